"""Duplicates (issue 36, item 7): one request counted once, whatever the path it came by.

Measured before the change: an export and its ``.gz`` twin, overlapping API pages and a request
id repeated in one file were all counted again, without a word (10 affected requests read as
20); a request id logged twice with other content was counted twice, without a word.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import zstandard

from assess.scope.api import scope_run
from assess.scope.duplicates import DUPLICATE_REASON
from tests.scope.helpers import conserved, ndjson

N = 10

COMPRESS: dict[str, Callable[[bytes], bytes]] = {
    "gz": gzip.compress,
    "zst": zstandard.ZstdCompressor().compress,
    "xz": lzma.compress,
    "bz2": bz2.compress,
}


def _records(first: int = 0, count: int = N, tokens: int = 900_000) -> list[dict[str, Any]]:
    return [
        {
            "timestamp": "2026-09-01T10:00:00Z",
            "model": "glm-5.3",
            "prompt_tokens": tokens + i,
            "request_id": f"req-{i}",
            "account_id": f"acct-{i % 3}",
        }
        for i in range(first, first + count)
    ]


def _json(run_cli: Callable[..., Any], *args: str) -> tuple[dict[str, Any], str]:
    result = run_cli("scope", "--preset", "canonical", *args, "--json", "-")
    assert "Traceback" not in result.stdout + result.stderr
    return json.loads(result.stdout), result.stderr


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
@pytest.mark.parametrize("plain_first", [True, False])
def test_an_export_and_its_compressed_twin_are_counted_once(
    tmp_path: Path, run_cli: Callable[..., Any], suffix: str, plain_first: bool
) -> None:
    data = ndjson(_records())
    plain = tmp_path / "export.ndjson"
    plain.write_bytes(data)
    twin = tmp_path / f"export.ndjson.{suffix}"
    twin.write_bytes(COMPRESS[suffix](data))
    first, second = (plain, twin) if plain_first else (twin, plain)
    doc, _ = _json(run_cli, str(first), str(second))
    assert doc["counts"]["records_read"] == N
    assert doc["possibly_affected"]["requests"] == N
    assert [i["path"] for i in doc["inputs"]] == [str(first)]
    (note,) = doc["inputs_not_read"]
    assert note["path"] == str(second) and note["same_as"] == str(first)
    assert "once decompressed" in note["reason"] and "counted once" in note["reason"]


def test_a_cut_compressed_twin_is_not_taken_for_its_export(tmp_path: Path) -> None:
    data = ndjson(_records())
    plain = tmp_path / "export.ndjson"
    plain.write_bytes(data)
    cut = tmp_path / "export.ndjson.gz"
    cut.write_bytes(gzip.compress(data)[:-12])  # the trailer lost: not the same input
    result = scope_run([plain, cut], preset="canonical").result
    assert result.inputs_not_read == []
    conserved(result)


def test_overlapping_api_pages_count_each_request_once(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    one = tmp_path / "page-1.json"
    one.write_text(json.dumps({"data": _records(0, 6)}, indent=2))
    two = tmp_path / "page-2.json"
    two.write_text(json.dumps({"data": _records(4, 6)}, indent=2))  # req-4 and req-5 again
    doc, err = _json(run_cli, str(one), str(two))
    assert doc["possibly_affected"]["requests"] == N
    assert doc["possibly_affected"]["request_ids"] == [f"req-{i}" for i in range(N)]
    assert doc["counts"]["records_read"] == 12
    assert doc["breakdown"]["requests"] == N
    assert doc["breakdown"]["non_request_reasons"] == {DUPLICATE_REASON: 2}
    assert doc["duplicates"] == {
        "requests": 2,
        "examples": ["req-4", "req-5"],
        "conflicts": 0,
        "conflict_examples": [],
    }
    assert "duplicates: 2 records repeat a request already counted" in err
    assert "req-4, req-5" in err


def test_a_request_id_repeated_in_one_file_is_counted_once(tmp_path: Path) -> None:
    rows = _records()
    log = tmp_path / "log.ndjson"
    log.write_bytes(ndjson(rows + rows[:3] + rows[:1]))
    for fast in (True, False):
        from tests.scope.helpers import scope

        result = scope([log], fast=fast)
        conserved(result)
        assert result.counts.records_read == N + 4
        assert result.possibly_affected.requests == N
        assert result.duplicates.requests == 4
        assert result.duplicates.examples == ["req-0", "req-1", "req-2"]
        assert result.counts.non_request_records == 4


def test_a_request_id_with_other_content_is_a_conflict_both_counted(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    log = tmp_path / "log.ndjson"
    log.write_bytes(ndjson(_records() + _records(0, 2, tokens=950_000)))
    doc, err = _json(run_cli, str(log))
    assert doc["possibly_affected"]["requests"] == N + 2
    assert doc["duplicates"]["requests"] == 0
    assert doc["duplicates"]["conflicts"] == 2
    assert doc["duplicates"]["conflict_examples"] == ["req-0", "req-1"]
    assert "conflicts: 2 records reuse a request id counted with other content" in err


def test_records_without_an_id_are_never_duplicates(tmp_path: Path) -> None:
    rows = [{k: v for k, v in r.items() if k != "request_id"} for r in _records()]
    log = tmp_path / "log.ndjson"
    log.write_bytes(ndjson(rows + rows))
    result = scope_run([log], preset="canonical").result
    assert result.possibly_affected.requests == 2 * N
    assert result.duplicates.requests == 0


@pytest.mark.parametrize("jobs", [1, 2])
def test_parallel_reading_counts_duplicates_and_twins_as_serial(tmp_path: Path, jobs: int) -> None:
    one = tmp_path / "a.ndjson"
    one.write_bytes(ndjson(_records(0, 6)))
    two = tmp_path / "b.ndjson"
    two.write_bytes(ndjson(_records(4, 6)))
    twin = tmp_path / "a.ndjson.zst"
    twin.write_bytes(COMPRESS["zst"](one.read_bytes()))
    result = scope_run([one, two, twin], preset="canonical", jobs=jobs).result
    conserved(result)
    assert result.possibly_affected.requests == N
    assert result.duplicates.requests == 2
    assert [n.path for n in result.inputs_not_read] == [str(twin)]
    assert [i.path for i in result.inputs] == [str(one), str(two)]
