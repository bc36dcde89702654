"""Every format, compression, glob and bad-input case gives the same, conserved counts."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

import pytest
import zstandard

from assess.kernel.errors import InputError
from tests.scope.helpers import conserved, ndjson, scope, write

ASSETS = Path(__file__).resolve().parent.parent / "assets" / "scope"

RECORDS: list[dict[str, Any]] = [
    # affected: in the window, strictly over 681,280
    {
        "timestamp": "2026-09-01T10:00:00Z",
        "model": "@cf/zai-org/glm-5.3",
        "prompt_tokens": 681281,
        "request_id": "r1",
        "account_id": "acct-a",
        "session_id": "s1",
        "status": 200,
        "prompt": "see https://ours.example",
        "response": "mail eve@else.example",
    },
    {
        "timestamp": "2026-09-09T23:59:59Z",
        "model": "zai-org/GLM-5.3",
        "provider": "workers-ai",  # no @cf/ prefix: the platform is told by the provider
        "prompt_tokens": 900000,
        "request_id": "r2",
        "account_id": None,
        "session_id": "s1",
        "status": 500,
    },
    # exactly at the threshold: not affected
    {
        "timestamp": "2026-09-02T00:00:00Z",
        "model": "glm-5.3",
        "prompt_tokens": 681280,
        "request_id": "r3",
        "account_id": "acct-b",
        "status": 200,
    },
    # just outside the window on both sides (the window holds the whole of 2026-09-09)
    {
        "timestamp": "2026-09-10T00:00:00Z",
        "model": "glm-5.3",
        "prompt_tokens": 900000,
        "request_id": "r4",
        "account_id": "acct-c",
        "status": 200,
    },
    {
        "timestamp": "2026-08-26T23:59:59Z",
        "model": "glm-5.3",
        "prompt_tokens": 900000,
        "request_id": "r5",
        "account_id": "acct-c",
        "status": 200,
    },
    # look-alike models
    {
        "timestamp": "2026-09-01T00:00:00Z",
        "model": "glm-5.3-flash",
        "prompt_tokens": 900000,
        "request_id": "r6",
        "account_id": "acct-d",
        "status": 200,
    },
    {
        "timestamp": "2026-09-01T00:00:00Z",
        "model": "glm-5.2",
        "prompt_tokens": 900000,
        "request_id": "r7",
        "account_id": "acct-d",
        "status": 200,
    },
    # unknown tokens: possibly affected
    {
        "timestamp": "2026-08-27T00:00:00Z",
        "model": "us.zai.glm-5.3",
        "prompt_tokens": None,
        "request_id": "r8",
        "account_id": "acct-e",
        "status": 200,
        "prompt": "x" * 700,
    },
    {
        "timestamp": "2026-09-03T00:00:00",
        "model": "glm-5.3",
        "prompt_tokens": 0,
        "request_id": "r9",
        "account_id": "acct-e",
        "status": 200,
    },
]
EXPECTED = {
    "records_read": 9,
    "records_skipped": 0,
    "non_request_records": 0,
    "model_matched": 7,
    "in_window": 5,
    "over_threshold": 2,
    "at_or_under_threshold": 1,
    "unknown_tokens": 2,
}


@pytest.mark.parametrize("fmt", ["ndjson", "ndjson.gz", "ndjson.zst", "json", "csv", "parquet"])
@pytest.mark.parametrize("fast", [True, False])
def test_every_format_gives_the_same_counts(tmp_path: Path, fmt: str, fast: bool) -> None:
    path = write(tmp_path / f"log.{fmt}", RECORDS, fmt)
    result = scope([path], fast=fast)
    conserved(result)
    assert result.counts.model_dump() == EXPECTED
    assert sorted(result.affected.request_ids) == ["r1", "r2"]
    assert result.affected.unattributed == 1
    assert [a.account_id for a in result.affected.accounts] == ["acct-a"]
    assert result.affected.sessions == 1
    assert sorted(result.possibly_affected.request_ids) == ["r8", "r9"]
    assert result.candidate_foreign_data.responses_flagged == 1
    assert result.candidate_foreign_data.by_kind == {"email": 1}
    assert result.inputs[0].bytes == path.stat().st_size


def test_compression_is_sniffed_not_named(tmp_path: Path) -> None:
    path = tmp_path / "export.log"  # gzip without a .gz name
    path.write_bytes(gzip.compress(ndjson(RECORDS)))
    assert scope([path]).counts.model_dump() == EXPECTED


def test_several_files_and_globs(tmp_path: Path) -> None:
    write(tmp_path / "a.ndjson.gz", RECORDS[:4], "ndjson.gz")
    write(tmp_path / "b.csv", RECORDS[4:], "csv")
    result = scope([str(tmp_path / "*.ndjson.gz"), str(tmp_path / "b.csv")])
    assert result.counts.model_dump() == EXPECTED
    assert [Path(i.path).name for i in result.inputs] == ["a.ndjson.gz", "b.csv"]
    again = scope([str(tmp_path / "*"), str(tmp_path / "a.ndjson.gz")])  # no double counting
    assert again.counts.records_read == 9


def test_glob_matching_nothing_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="matches no file"):
        scope([str(tmp_path / "*.ndjson")])
    with pytest.raises(InputError, match="no such file"):
        scope([str(tmp_path / "absent.ndjson")])


@pytest.mark.parametrize("fast", [True, False])
def test_truncated_final_line(fast: bool) -> None:
    result = scope([ASSETS / "truncated_final_line.ndjson"], fast=fast)
    conserved(result)
    assert result.counts.records_read == 2
    assert [(s.line, s.reason) for s in result.skipped] == [
        (2, "truncated final line (invalid JSON, no newline at end of file)")
    ]
    assert result.counts.over_threshold == 1


def test_empty_file() -> None:
    result = scope([ASSETS / "empty.ndjson"])
    assert result.counts.records_read == 0
    assert result.verdict == "not_assessable"  # no record is no evidence of anything
    assert result.exit_code == 2
    assert result.inputs[0].bytes == 0


@pytest.mark.parametrize("fast", [True, False])
def test_binary_junk_is_skipped_line_by_line(fast: bool) -> None:
    result = scope([ASSETS / "binary_junk.ndjson"], fast=fast)
    conserved(result)
    assert result.counts.records_read == 4
    assert [s.line for s in result.skipped] == [2, 3]
    assert all("binary" in s.reason or "JSON" in s.reason for s in result.skipped)
    assert result.breakdown.requests == 2


def test_csv_with_wrong_field_count() -> None:
    result = scope([ASSETS / "wrong_field_count.csv"])
    conserved(result)
    assert result.counts.records_read == 4
    assert [(s.line, s.reason) for s in result.skipped] == [
        (3, "CSV row has 4 fields, the header has 5"),
        (4, "CSV row has 6 fields, the header has 5"),
    ]
    assert result.counts.over_threshold == 1
    assert result.counts.unknown_tokens == 1


def test_malformed_lines_in_the_middle_of_a_big_block(tmp_path: Path) -> None:
    good = {
        "timestamp": "2026-09-01T00:00:00Z",
        "model": "glm-5.3",
        "prompt_tokens": 700000,
    }  # no request id: the 1,000 copies are not the same request repeated
    lines: list[dict[str, Any] | str] = (
        [good] * 500
        + ['{"timestamp": "2026-09-01', ""]
        + [{"error": "boom"}, {"type": "x"}]
        + [good] * 500
    )
    path = tmp_path / "mixed.ndjson.gz"
    path.write_bytes(gzip.compress(ndjson(lines)))
    for fast in (True, False):
        result = scope([path], fast=fast)
        conserved(result)
        assert result.counts.records_read == 1003
        assert [s.line for s in result.skipped] == [501, 503, 504]
        assert result.counts.over_threshold == 1000


def test_corrupt_gzip_reports_the_break(tmp_path: Path) -> None:
    data = gzip.compress(ndjson(RECORDS * 50))
    path = tmp_path / "cut.ndjson.gz"
    path.write_bytes(data[: len(data) // 2])
    for fast in (True, False):
        result = scope([path], fast=fast)
        conserved(result)
        assert any("compressed stream" in s.reason for s in result.skipped)


def test_non_request_rows_and_join(tmp_path: Path) -> None:
    preset = tmp_path / "joined.yaml"
    preset.write_text(
        "id: joined\ntitle: t\ndetect: {all_of: [ts, m]}\n"
        "fields: {timestamp: [ts], model: [m], prompt_tokens: [tok], request_id: [cid]}\n"
        "non_request:\n  - when: {path: type, in: [span]}\n    reason: trace span\n"
        "join:\n  key: cid\n  detect: {all_of: [sub, cid]}\n  fields: {account_id: [sub]}\n"
    )
    rows = [
        {"ts": "2026-09-01T00:00:00Z", "m": "glm-5.3", "tok": 700000, "cid": "c1"},
        {"ts": "2026-09-01T00:00:00Z", "m": "glm-5.3", "tok": 700000, "cid": "c2"},
        {"ts": "2026-09-01T00:00:00Z", "m": "glm-5.3", "type": "span"},
        {"sub": "subscription-1", "cid": "c1"},
    ]
    path = tmp_path / "apim.ndjson"
    path.write_bytes(ndjson(rows))
    result = scope([path], preset=str(preset))
    conserved(result)
    assert result.counts.non_request_records == 2
    assert result.breakdown.non_request_reasons == {"trace span": 1, "joined joined side table": 1}
    # no provider field: the platform cannot be told, so they are possibly affected
    assert [a.account_id for a in result.possibly_affected.accounts] == ["subscription-1"]
    assert result.possibly_affected.requests == 2


@pytest.mark.parametrize("fast", [True, False])
def test_corrupt_parquet_is_one_skipped_record(tmp_path: Path, fast: bool) -> None:
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"PAR1" + b"\x00" * 64)
    result = scope([path], fast=fast)
    conserved(result)
    assert result.counts.records_skipped == 1
    assert result.skipped[0].reason.startswith("unreadable Parquet")


def test_csv_json_cell_and_missing_column(tmp_path: Path) -> None:
    path = tmp_path / "cells.csv"
    path.write_text(
        "timestamp,model,prompt_tokens,meta\n"
        '2026-09-01T00:00:00Z,glm-5.3,700000,"{""user"": {""id"": ""u1""}}"\n'
    )
    result = scope([path], mapping={"account_id": "meta.user.id"})
    assert [a.account_id for a in result.possibly_affected.accounts] == ["u1"]  # no provider
    missing = tmp_path / "no-time.csv"
    missing.write_text("when,model,prompt_tokens\n2026-09-01T00:00:00Z,glm-5.3,700000\n")
    result = scope([missing])
    conserved(result)
    assert [(s.line, s.reason) for s in result.skipped] == [(2, "missing timestamp")]


def test_progress_is_reported_through_the_callback(tmp_path: Path) -> None:
    from assess.scope.logs import open_logs

    a = write(tmp_path / "a.ndjson.gz", RECORDS * 20, "ndjson.gz")
    b = write(tmp_path / "b.csv", RECORDS, "csv")
    calls: list[tuple[int, int | None]] = []
    reader = open_logs([str(a), str(b)], "canonical", progress=lambda d, t: calls.append((d, t)))
    batches = list(reader.batches())
    assert sum(x.records_read for x in batches) == 9 * 21
    total = a.stat().st_size + b.stat().st_size
    assert calls and all(t == total for _, t in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert calls[-1][0] == total


@pytest.mark.parametrize("cut", ["", ",", ", \n"])
def test_json_array_cut_after_an_element_is_reported(tmp_path: Path, cut: str) -> None:
    records = [
        {"timestamp": "2026-09-01T00:00:00Z", "model": "glm-5.3", "prompt_tokens": 700_000},
        {"timestamp": "2026-09-02T00:00:00Z", "model": "glm-5.3", "prompt_tokens": 700_000},
    ]
    text = "[\n" + ",\n".join(json.dumps(r) for r in records) + cut  # no closing ']'
    (tmp_path / "cut.json").write_text(text)
    result = scope([tmp_path / "cut.json"], preset="canonical")
    conserved(result)
    assert result.counts.over_threshold == 2
    assert [s.reason for s in result.skipped] == ["truncated JSON array (no closing ']')"]


@pytest.mark.parametrize("fast", [True, False])
def test_small_truncated_gzip_is_one_skipped_record_not_a_crash(tmp_path: Path, fast: bool) -> None:
    """Broken before its first block: the format cannot even be sniffed (was EOFError, exit 1)."""
    data = gzip.compress(ndjson(RECORDS))
    path = tmp_path / "cut.ndjson.gz"
    path.write_bytes(data[: len(data) // 2])
    result = scope([path], fast=fast)
    conserved(result)
    assert result.counts.records_read == 1
    assert [(s.line, s.reason.split(" (")[0]) for s in result.skipped] == [
        (1, "compressed stream is corrupt or truncated")
    ]
    assert result.inputs[0].bytes == len(data) // 2


def _many_records(count: int) -> bytes:
    rng = random.Random(7)
    return ndjson(
        [
            {
                "timestamp": "2026-09-01T00:00:00Z",
                "model": "glm-5.3",
                "prompt_tokens": 700_000,
                "request_id": f"r{i}",
                "prompt": rng.randbytes(100).hex(),
            }
            for i in range(count)
        ]
    )


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("kind", ["gzip-cut", "zstd-cut", "zstd-corrupt"])
def test_broken_compressed_stream_keeps_the_lines_before_the_break(
    tmp_path: Path, fast: bool, kind: str
) -> None:
    """A truncated zstd used to read as shorter or empty with no error, a corrupt one crashed,
    and a truncated gzip lost every line of the block in which it broke (up to 8 MB)."""
    plain = _many_records(8000)  # ~2.4 MB: the gzip breaks after its first read
    if kind == "gzip-cut":
        data = gzip.compress(plain)[: len(gzip.compress(plain)) // 2]
    else:
        whole = zstandard.ZstdCompressor().compress(plain)
        if kind == "zstd-cut":
            data = whole[: len(whole) // 2]
        else:
            broken = bytearray(whole)
            broken[len(whole) // 2 : len(whole) // 2 + 64] = bytes(64)
            data = bytes(broken)
    path = tmp_path / "broken.ndjson.x"
    path.write_bytes(data)
    result = scope([path], fast=fast)
    conserved(result)
    assert [s.reason.split(" (")[0] for s in result.skipped] == [
        "compressed stream is corrupt or truncated"
    ]
    assert result.skipped[0].line == result.counts.records_read
    assert 2500 < result.counts.over_threshold < 4000  # the good first half, less one chunk
