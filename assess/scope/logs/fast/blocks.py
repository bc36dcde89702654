"""Helpers of the columnar paths: parsing an NDJSON block, mapping rows to lines, CSV columns."""

from __future__ import annotations

import io
from typing import Any

import pyarrow as pa
import pyarrow.json as pj

from assess.scope.fields import FAST_FIELDS
from assess.scope.logs.fast.columnar import ColumnPlan, NotColumnar, first_text
from assess.scope.logs.paths import path_head
from assess.scope.logs.presets import Preset
from assess.scope.logs.sources import LineBlock, numpy_int64


def flat_columns(preset: Preset, header: list[str]) -> dict[str, bool] | None:
    """Return the CSV columns the fast fields and rules read (name -> holds tokens), or None
    when a path is not a plain column of ``header`` but could walk into a JSON cell."""
    names = set(header)
    wanted: dict[str, bool] = {}
    paths = [(p, f == "prompt_tokens") for f in FAST_FIELDS for p in preset.fields.get(f, [])]
    paths += [(rule.when.path, False) for rule in preset.non_request]
    for path, is_tokens in paths:
        if path in names:
            wanted[path] = is_tokens
        elif path_head(path) in names:
            return None
    return wanted


def line_numbers(block: LineBlock, rows: int) -> Any | None:
    """Return the 0-based line index in ``block`` of each of ``rows`` parsed rows (numpy int64
    array: polars skips blank lines), or None if rows and lines disagree."""
    import numpy as np

    if block.line_count == rows:  # no blank lines: row i is line i
        return np.arange(rows, dtype=np.int64)
    numbers = [i for i, line in enumerate(block.data.split(b"\n")) if line.strip()]
    if len(numbers) != rows:
        return None
    return np.asarray(numbers, dtype=np.int64)


class TextRows:
    """The planned texts (ids, status, prompt, response) of chosen rows of a block, read from
    their lines by polars (most rows' texts are never needed, so they are not parsed with the
    block)."""

    def __init__(self, block: LineBlock, numbers: Any, texts: dict[str, list[str]]) -> None:
        """``numbers``: the 0-based line index in ``block`` of each row (see
        :func:`line_numbers`); ``texts``: field name -> flat keys."""
        self._block = block
        self._numbers = numbers
        self._texts = texts

    @property
    def names(self) -> set[str]:
        """Return the fields this reader gives."""
        return set(self._texts)

    def __call__(self, rows: pa.Array) -> dict[str, Any] | None:
        """Return name -> text array of ``rows`` (ascending row indices), or None if polars
        refuses (the reference path then reads those rows)."""
        import polars as pl

        paths = [p for ps in self._texts.values() for p in ps]
        lines = self._block.join_lines(self._numbers[rows.to_numpy(zero_copy_only=False)])
        try:
            frame = pl.read_ndjson(io.BytesIO(lines), schema=dict.fromkeys(paths, pl.String))
        except Exception:
            return None
        if frame.height != len(rows):
            return None
        picked = _to_arrow(frame)
        return {
            name: first_text([picked.column(p) for p in ps]) for name, ps in self._texts.items()
        }


def parse_block(block: bytes, plan: ColumnPlan) -> pa.Table:
    """Parse a block of whole NDJSON lines into a table of the plan's columns only (not the
    texts: see :class:`TextRows`).

    polars parses these blocks about twice as fast as ``pyarrow.json`` here (README "scope"); it
    is imported on first use so other commands do not pay for it.

    Raises:
        NotColumnar: when a line is not JSON or a value does not fit the plan's types.
    """
    try:
        import polars as pl
    except ImportError:  # pragma: no cover - polars is a dependency; pyarrow is the fallback
        if plan.texts:
            raise NotColumnar("text columns need polars") from None
        try:
            return pj.read_json(
                io.BytesIO(block),
                read_options=pj.ReadOptions(block_size=4 << 20),
                parse_options=pj.ParseOptions(
                    explicit_schema=plan.schema, unexpected_field_behavior="ignore"
                ),
            )
        except pa.ArrowException as exc:
            raise NotColumnar(str(exc)) from exc
    try:
        frame = pl.read_ndjson(io.BytesIO(block), schema=plan.polars_schema(lean=True))
    except Exception as exc:  # any refusal only sends the block to the reference path
        if not plan.null_columns or "NULL-typed" not in str(exc):
            raise NotColumnar(str(exc)[:200]) from exc
        # a candidate no sampled record held has a value in this block: read it typed
        try:
            frame = pl.read_ndjson(io.BytesIO(block), schema=plan.polars_schema())
        except Exception as again:
            raise NotColumnar(str(again)[:200]) from again
    return _to_arrow(frame).cast(plan.schema)


def _to_arrow(frame: Any) -> pa.Table:
    """Return a polars frame as one Arrow chunk per column (text as ``string_view``).

    Through the Arrow C stream, this is one call that holds the GIL briefly, where
    ``DataFrame.to_arrow`` takes it again for every chunk of every column and copies the text:
    with the main thread busy in Python, that waited up to 800 ms for an 8 MB block here.
    """
    return pa.table(frame)


def spread(values: pa.Array, flags: Any) -> pa.Array:
    """Return ``values`` placed at the rows where ``flags`` (numpy bool) is set, null elsewhere:
    ``values.take`` through an index that is null on the unflagged rows, without the take.

    For a ``large_string`` or ``large_binary`` array the result shares ``values``' character
    buffer and only gets new offsets (one cumulative sum) and validity: a take copied every text
    and cost ~0.3 ms per column of a 32,000-row block, three times as much.
    """
    import numpy as np

    count = len(flags)
    if values.type not in (pa.large_string(), pa.large_binary()):
        return values.take(numpy_int64(np.cumsum(flags) - 1, flags))
    _, offsets_buffer, data = values.buffers()
    first = values.offset
    offsets = np.frombuffer(offsets_buffer, np.int64)[first : first + len(values) + 1]
    lengths = np.zeros(count, dtype=np.int64)
    lengths[flags] = np.diff(offsets)  # a null keeps its slot's length: the data stays in step
    placed = np.empty(count + 1, dtype=np.int64)
    placed[0] = offsets[0]
    np.cumsum(lengths, out=placed[1:])
    placed[1:] += offsets[0]
    valid = flags.copy()
    if values.null_count:
        valid[flags] = values.is_valid().to_numpy(zero_copy_only=False)
    bits = pa.py_buffer(np.packbits(valid, bitorder="little"))
    if data is None:  # every value null or empty: no character buffer
        data = pa.py_buffer(b"")
    return pa.Array.from_buffers(
        values.type, count, [bits, pa.py_buffer(placed), data], null_count=-1
    )
