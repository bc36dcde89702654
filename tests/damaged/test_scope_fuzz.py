"""Fuzz: valid logs cut, spliced and corrupted, plain and gzip, through both reading paths.

Invariants, whatever the damage: no exception but a clean AssessError (the CLI's exit 2), every
conservation equation of the document, and every original record whose line survived intact is
counted (damage may make extra records, it may never lose an intact one).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assess.kernel.errors import AssessError
from tests.scope.helpers import conserved, scope

N = 40


def _line(i: int) -> bytes:
    record = {
        "timestamp": "2026-09-01T10:00:00Z",
        "model": "glm-5.3",
        "prompt_tokens": 700_000 + i,
        "request_id": f"req-{i:04d}",
        "account_id": f"acct-{i % 5}",
        "status": "200",
        "prompt": 'text, with "quotes" and ünïcode ' * 3,
    }
    return json.dumps(record, ensure_ascii=False).encode()


LINES = [_line(i) for i in range(N)]
BODY = b"".join(line + b"\n" for line in LINES)
HEAD = len(LINES[0]) + 1  # the first line is left alone: it is what the format is sniffed from

damage = st.lists(
    st.tuples(
        st.sampled_from(["cut", "splice", "flip", "delete"]),
        st.integers(min_value=HEAD, max_value=len(BODY) - 1),
        st.binary(min_size=1, max_size=12),
    ),
    min_size=1,
    max_size=4,
)


def _damage(data: bytes, steps: list[tuple[str, int, bytes]]) -> bytes:
    for kind, at, junk in steps:
        at = min(at, len(data))
        if kind == "cut":
            data = data[:at]
        elif kind == "splice":
            data = data[:at] + junk + data[at:]
        elif kind == "flip":
            data = data[:at] + bytes([junk[0] ^ 0xFF]) + data[at + 1 :]
        else:
            data = data[:at] + data[at + len(junk) :]
    return data


def _intact(text: bytes) -> int:
    """How many original lines stand whole, as lines of their own, in ``text``."""
    present = set(text.split(b"\n"))
    complete = text.split(b"\n")
    if not text.endswith(b"\n") and complete:
        present.discard(complete[-1])  # a last line without its newline may be a cut one
        present |= {complete[-1]} if complete[-1] in LINES else set()
    return sum(1 for line in LINES if line in present)


def _check(path: Path, fast: bool) -> object:
    try:
        result = scope([path], fast=fast)
    except AssessError:
        return None  # a clear refusal (exit 2) is allowed; a crash is not
    conserved(result)
    return result


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=damage, fast=st.booleans())
def test_damaged_plain_ndjson_loses_no_intact_record(
    tmp_path_factory: object, steps: list[tuple[str, int, bytes]], fast: bool
) -> None:
    data = _damage(BODY, steps)
    path = tmp_path_factory.mktemp("fuzz") / "log.ndjson"  # type: ignore[attr-defined]
    path.write_bytes(data)
    result = _check(path, fast)
    assert result is not None, "the first line is intact: the file must be read"
    assert result.counts.over_threshold >= _intact(data)  # type: ignore[attr-defined]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=damage, fast=st.booleans())
def test_damaged_gzip_keeps_what_precedes_the_damage(
    tmp_path_factory: object, steps: list[tuple[str, int, bytes]], fast: bool
) -> None:
    whole = gzip.compress(BODY, mtime=0)
    head = 20  # the gzip header and the start of the deflate stream stay whole
    data = _damage(whole, [(k, head + at % (len(whole) - head), j) for k, at, j in steps])
    path = tmp_path_factory.mktemp("fuzz") / "log.ndjson.gz"  # type: ignore[attr-defined]
    path.write_bytes(data)
    result = _check(path, fast)
    if result is None:
        return
    # what zlib can inflate before the first break, in whole lines, is the least to be counted
    import zlib

    inflater = zlib.decompressobj(31)
    try:
        out = inflater.decompress(data)
    except zlib.error:
        out = b""
    before = out[: out.rfind(b"\n") + 1] if b"\n" in out else b""
    assert result.counts.over_threshold >= _intact(before)  # type: ignore[attr-defined]
