"""Damaged logs given to `assess scope`: every readable record is kept, every loss is listed.

Measured before the changes: a gzip NDJSON cut in half kept 22 of its 481 complete lines (the
decompressor dropped what it had buffered when the stream broke), a good gzip member followed by
junk kept 22 of 1,000; ``prompt_tokens`` of 2**63 was an OverflowError traceback; a CSV with one
unbalanced quote read 3 of 1,000 rows and said "nothing affected", exit 0; a FIFO was "a folder".
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.scope.helpers import FIELDS, conserved, ndjson, scope, write

ROWS = 1000


def _record(i: int, tokens: Any = None) -> dict[str, Any]:
    return {
        "timestamp": "2026-09-01T10:00:00Z",
        "model": "glm-5.3",
        "prompt_tokens": 700_000 + i if tokens is None else tokens,
        "request_id": f"req-{i:04d}",
        "account_id": f"acct-{i % 7}",
        "session_id": f"sess-{i % 11}",
        "status": "200",
        "prompt": "hello " * 30,
    }


def _records(n: int = ROWS) -> list[dict[str, Any]]:
    return [_record(i) for i in range(n)]


def _cli_json(run_cli: Callable[..., Any], *args: str) -> tuple[int, dict[str, Any]]:
    result = run_cli("scope", *args, "--json", "-")
    assert "Traceback" not in result.stdout + result.stderr
    return result.exit_code, json.loads(result.stdout)


def _conserved_doc(doc: dict[str, Any]) -> None:
    c = doc["counts"]
    requests = doc["breakdown"]["requests"]
    assert c["records_read"] == requests + c["non_request_records"] + c["records_skipped"]


def _complete_lines(compressed: bytes) -> int:
    """The number of whole lines a forgiving inflater gets out of ``compressed`` (zlib)."""
    return zlib.decompressobj(31).decompress(compressed).count(b"\n")


# -- 1. compressed streams ------------------------------------------------------------------------
@pytest.mark.parametrize("fast", [True, False])
def test_gzip_cut_in_half_keeps_every_complete_line(tmp_path: Path, fast: bool) -> None:
    whole = gzip.compress(ndjson(_records()))
    cut = whole[: len(whole) // 2]
    path = tmp_path / "cut.ndjson.gz"
    path.write_bytes(cut)
    good = _complete_lines(cut)
    assert 400 < good < ROWS
    result = scope([path], fast=fast)
    conserved(result)
    assert result.counts.over_threshold == good
    assert result.counts.records_skipped == 1
    (skip,) = result.skipped
    assert skip.line == good + 1
    assert f"at byte {len(cut):,} of the file" in skip.reason
    assert f"last good line {good}" in skip.reason


@pytest.mark.parametrize("fast", [True, False])
def test_junk_after_a_gzip_member_is_reported_not_fatal(tmp_path: Path, fast: bool) -> None:
    whole = gzip.compress(ndjson(_records()))
    path = tmp_path / "junk.ndjson.gz"
    path.write_bytes(whole + b"this is not gzip at all\x00\x01")
    result = scope([path], fast=fast)
    conserved(result)
    assert result.counts.over_threshold == ROWS
    (skip,) = result.skipped
    assert skip.line == ROWS + 1
    assert f"junk after the end of a gzip member at byte {len(whole):,}" in skip.reason


@pytest.mark.parametrize("cut", [False, True])
def test_gzip_piece_inflating_past_one_output_buffer(tmp_path: Path, cut: bool) -> None:
    """Identical lines compress about 1000:1, so one 128 KB piece of the file inflates to far
    more than one inflate call returns (``compression._PIECE``): every line still comes out,
    and a cut keeps every complete line before it."""
    from assess.scope.logs import compression

    # ~12 MB of text, ~40 KB compressed; no request id: not one request repeated
    lines = ndjson([{k: v for k, v in _record(1).items() if k != "request_id"}] * 40_000)
    whole = gzip.compress(lines)
    assert len(lines) > 8 * compression._PIECE and len(whole) < 1 << 17
    data = whole[: len(whole) * 3 // 4] if cut else whole
    path = tmp_path / "dense.ndjson.gz"
    path.write_bytes(data)
    good = _complete_lines(data)
    result = scope([path])
    conserved(result)
    assert result.counts.over_threshold == good
    assert cut or good == 40_000
    assert result.counts.records_skipped == (1 if cut else 0)


def test_two_gzip_members_are_both_read(tmp_path: Path) -> None:
    half = _records()
    path = tmp_path / "two.ndjson.gz"
    path.write_bytes(gzip.compress(ndjson(half[:500])) + gzip.compress(ndjson(half[500:])))
    result = scope([path])
    assert result.counts.over_threshold == ROWS
    assert result.counts.records_skipped == 0


def test_cut_gzip_through_the_cli_keeps_the_documented_exit_code(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    whole = gzip.compress(ndjson(_records()))
    path = tmp_path / "cut.ndjson.gz"
    path.write_bytes(whole[: len(whole) // 2])
    code, doc = _cli_json(run_cli, str(path))
    assert code == 1  # affected requests found (README: exit codes of scope)
    _conserved_doc(doc)
    assert doc["counts"]["records_skipped"] == 1
    # the rest of the file was never read: said, though "affected" stands on what was read
    assert any("not read to the end" in r for r in doc["assessment"]["reasons"])
    assert doc["counts"]["over_threshold"] == _complete_lines(whole[: len(whole) // 2])


# -- 2. token counts ------------------------------------------------------------------------------
BAD_TOKENS = [2**63, str(2**63), 2**64 + 5, str(10**30), 12.5, "12.5", 1e30, -3, True, "12a"]


@pytest.mark.parametrize("fmt", ["ndjson", "csv", "json"])
@pytest.mark.parametrize("fast", [True, False])
def test_token_counts_out_of_range_are_skipped_with_a_reason(
    tmp_path: Path, fmt: str, fast: bool
) -> None:
    records = _records(20) + [_record(100 + i, tokens=t) for i, t in enumerate(BAD_TOKENS)]
    records.append(_record(999, tokens=2**63 - 1))  # the largest int64: kept
    path = write(tmp_path / f"tokens.{fmt}", records, fmt)
    result = scope([path], fast=fast)
    conserved(result)
    assert result.counts.over_threshold == 21
    assert result.counts.records_skipped == len(BAD_TOKENS)
    reasons = [s.reason for s in result.skipped]
    assert all(r.startswith("unparseable prompt_tokens") for r in reasons)
    assert sum("out of range" in r for r in reasons) >= 3


def test_huge_token_count_through_the_cli_has_no_traceback(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    path = tmp_path / "big.ndjson"
    path.write_bytes(ndjson([*_records(5), _record(7, tokens=2**63), _record(8, str(2**70))]))
    code, doc = _cli_json(run_cli, str(path))
    assert code == 1
    _conserved_doc(doc)
    assert doc["counts"]["records_skipped"] == 2
    assert all("out of range" in s["reason"] for s in doc["skipped"])


# -- 3. CSV with an unbalanced quote -------------------------------------------------------------
def _csv_with_quote(tmp_path: Path, column: str, row: int = 2) -> Path:
    path = write(tmp_path / "quote.csv", _records(), "csv")
    lines = path.read_text().splitlines(keepends=True)
    at = FIELDS.index(column)
    cells = lines[row + 1].rstrip("\n").split(",")
    cells[at] = '"' + cells[at]
    lines[row + 1] = ",".join(cells) + "\n"
    path.write_text("".join(lines))
    return path


@pytest.mark.parametrize("column", ["request_id", "prompt"])
@pytest.mark.parametrize("fast", [True, False])
def test_csv_unbalanced_quote_resynchronises(tmp_path: Path, column: str, fast: bool) -> None:
    path = _csv_with_quote(tmp_path, column)
    result = scope([path], fast=fast)
    conserved(result)
    assert result.counts.records_read == ROWS
    assert result.counts.over_threshold == ROWS - 1
    (skip,) = result.skipped
    assert skip.line == 4  # header, two rows, then the broken one
    assert "unbalanced quote" in skip.reason


def test_csv_quote_in_last_column_is_not_nothing_affected(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    path = _csv_with_quote(tmp_path, FIELDS[-1])
    code, doc = _cli_json(run_cli, str(path))
    assert code == 1
    _conserved_doc(doc)
    assert doc["counts"]["over_threshold"] == ROWS - 1
    assert doc["counts"]["records_skipped"] == 1


def test_csv_quoted_fields_over_several_lines_still_read(tmp_path: Path) -> None:
    records = _records(50)
    for r in records[::5]:
        r["prompt"] = 'line one\nline "two"\n\nline, four'
    path = write(tmp_path / "multi.csv", records, "csv")
    result = scope([path])
    conserved(result)
    assert result.counts.over_threshold == 50
    assert result.counts.records_skipped == 0


def test_csv_runaway_quote_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from assess.scope.logs import formats

    monkeypatch.setattr(formats, "MAX_RECORD_CHARS", 5000)
    path = _csv_with_quote(tmp_path, FIELDS[-1], row=500)
    result = scope([path], fast=False)
    conserved(result)
    assert result.counts.over_threshold == ROWS - 1
    assert [s.line for s in result.skipped] == [502]


# -- 4. not a regular file ------------------------------------------------------------------------
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_fifo_is_refused_clearly(tmp_path: Path, run_cli: Callable[..., Any]) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result = run_cli("scope", str(fifo))
    assert result.exit_code == 2
    out = result.stdout + result.stderr
    assert "named pipe (FIFO)" in out
    assert "folder" not in out
    assert "Traceback" not in out


# -- 5. over-long lines ---------------------------------------------------------------------------
@pytest.mark.parametrize("compressed", [False, True])
@pytest.mark.parametrize("fast", [True, False])
def test_over_long_lines_are_skipped_and_listed(
    tmp_path: Path, fast: bool, compressed: bool
) -> None:
    records: list[Any] = _records(30)
    records[5] = dict(_record(5), prompt="x" * 200_000)
    records[20] = dict(_record(20), prompt="y" * 5_000)
    data = ndjson(records)
    path = tmp_path / ("long.ndjson.gz" if compressed else "long.ndjson")
    path.write_bytes(gzip.compress(data) if compressed else data)
    result = scope([path], fast=fast, max_line_bytes=4096)  # open_logs's limit, as scope_run's
    conserved(result)
    assert result.counts.over_threshold == 28
    assert [s.line for s in result.skipped] == [6, 21]
    assert all("longer than --max-line-bytes" in s.reason for s in result.skipped)


def test_over_long_line_memory_is_bounded() -> None:
    import io

    from assess.scope.logs.sources import line_blocks

    class Endless(io.RawIOBase):
        """50 MB of one line, then a short one; counts the largest piece held."""

        def __init__(self) -> None:
            self.left = 50 << 20

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            if self.left <= 0:
                if self.left == 0:
                    self.left = -1
                    buffer[:3] = b"\n{}"
                    return 3
                return 0
            n = min(len(buffer), self.left)
            buffer[:n] = b"z" * n
            self.left -= n
            return n

    blocks = list(line_blocks(io.BufferedReader(Endless(), 1 << 20), 1 << 20, max_line=1 << 20))
    assert max(len(b.data) for b in blocks) < 3 << 20
    lines = b"".join(b.data for b in blocks).split(b"\n")
    assert lines[0].startswith(b"\x00assess: over-long line of ")
    assert lines[1] == b"{}"


def test_max_line_bytes_option(tmp_path: Path, run_cli: Callable[..., Any]) -> None:
    path = tmp_path / "long.ndjson"
    path.write_bytes(ndjson([*_records(5), dict(_record(9), prompt="q" * 10_000)]))
    code, doc = _cli_json(run_cli, str(path), "--max-line-bytes", "2048")
    assert code == 1
    _conserved_doc(doc)
    assert [s["line"] for s in doc["skipped"]] == [6]
    assert "longer than --max-line-bytes" in doc["skipped"][0]["reason"]
