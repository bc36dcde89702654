"""line_blocks cuts a stream into blocks of whole lines, counting them; lines found on demand."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assess.scope.logs import sources
from assess.scope.logs.fast.blocks import spread
from assess.scope.logs.sources import line_blocks

DATA = b'{"a":1}\n\n' + b"x" * 50 + b"\n  \n" + b'{"b":"' + b"y" * 30 + b'"}\n{"c":3}'


@pytest.mark.parametrize("size", [1, 3, 7, 16, 64, 1 << 20])
def test_blocks_hold_whole_lines_and_number_them(size: int) -> None:
    blocks = list(line_blocks(io.BytesIO(DATA), size))
    assert b"".join(b.data for b in blocks) == DATA
    expected = DATA.split(b"\n")
    seen: list[bytes] = []
    for block in blocks:
        assert block.first_line == len(seen)
        assert block.data.endswith(b"\n") or block.at_eof
        lines = [block.line(i) for i in range(block.line_count)]
        assert lines == block.data.split(b"\n")[: block.line_count]
        seen.extend(lines)
    assert seen == expected
    assert [b.at_eof for b in blocks] == [False] * (len(blocks) - 1) + [True]


def test_empty_stream_gives_no_block() -> None:
    assert list(line_blocks(io.BytesIO(b""), 8)) == []


@given(
    lines=st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")), max_size=30),
    final_newline=st.booleans(),
    pick=st.data(),
)
def test_join_lines_gives_the_chosen_lines_as_ndjson(
    lines: list[bytes], final_newline: bool, pick: st.DataObject
) -> None:
    """join_lines(indices) == the chosen lines, each with its newline (none after a final line
    that has none), whatever the block: blank lines, no final newline, one line, none chosen."""
    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    blocks = list(line_blocks(io.BytesIO(data), 1 << 20))
    if not data:
        assert blocks == []
        return
    (block,) = blocks
    count = block.line_count
    chosen = sorted(pick.draw(st.sets(st.integers(0, count - 1))))
    expected = b"".join(block.line(i) + (b"\n" if i < block.newline_count else b"") for i in chosen)
    assert block.join_lines(np.array(chosen, dtype=np.int64)) == expected


@given(
    data=st.binary(max_size=200)
    | st.lists(
        st.sampled_from([b"\n", b"a", b"\r\n", b"\n\n", b"\x0a\x0b", b"xyz"]), max_size=90
    ).map(b"".join),
    step=st.integers(1, 40),
)
def test_newline_offsets_in_steps_find_every_newline(data: bytes, step: int) -> None:
    """The stepped scan gives exactly the offsets of every b"\\n": across step boundaries, in the
    last bytes that do not fill a word, and where one 8-byte word holds several newlines."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sources, "_NEWLINE_STEP", step)
        found = sources.newline_offsets(data)
    assert found.dtype == np.int64
    assert found.tolist() == [i for i, byte in enumerate(data) if byte == 10]


@given(st.lists(st.tuples(st.integers(-(2**62), 2**62), st.booleans()), max_size=70))
def test_numpy_int64_keeps_values_and_nulls(pairs: list[tuple[int, bool]]) -> None:
    values = np.array([v for v, _ in pairs], dtype=np.int64)
    valid = np.array([ok for _, ok in pairs], dtype=bool)
    assert sources.numpy_int64(values).to_pylist() == values.tolist()
    expected = [v if ok else None for v, ok in pairs]
    assert sources.numpy_int64(values, valid).to_pylist() == expected


@given(
    rows=st.lists(st.one_of(st.none(), st.text(max_size=6)), max_size=30),
    cut=st.integers(0, 3),
    kind=st.sampled_from([pa.large_string(), pa.string()]),
    pick=st.data(),
)
def test_spread_places_values_on_flagged_rows_like_a_take(
    rows: list[str | None], cut: int, kind: pa.DataType, pick: st.DataObject
) -> None:
    """spread(values, flags) == values taken through an index that is null on unflagged rows:
    nulls and empty texts among the values, a sliced array, no flag, every flag."""
    values = pa.array(["drop"] * cut + rows, kind).slice(cut)  # a slice: offsets not from 0
    total = pick.draw(st.integers(max(len(rows), 1), len(rows) + 20))
    chosen = sorted(
        pick.draw(st.sets(st.integers(0, total - 1), min_size=len(rows), max_size=len(rows)))
    )
    flags = np.zeros(total, dtype=bool)
    flags[chosen] = True
    placed = spread(values, flags)
    expected: list[str | None] = [None] * total
    for row, value in zip(chosen, rows, strict=True):
        expected[row] = value
    assert placed.type == kind
    placed.validate(full=True)
    assert placed.to_pylist() == expected
