"""The columnar fast path is taken for clean NDJSON and agrees with the reference path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import assess.scope.logs.engine as engine
from tests.scope.helpers import conserved, scope, write


def _rows(n: int, tokens_from: int = 0) -> list[dict[str, Any]]:
    return [
        {
            "timestamp": f"2026-09-0{1 + i % 9}T00:00:0{i % 10}.{i % 1000:03d}Z",
            "model": ["@cf/zai-org/glm-5.3", "glm-5.3-flash", "us.zai.glm-5.3"][i % 3],
            "prompt_tokens": None if i < tokens_from else 600_000 + (i * 7919) % 200_000,
            "request_id": f"r{i}",
            "account_id": None if i % 11 == 0 else f"a{i % 17}",
            "session_id": f"s{i % 5}",
            "status": 200 if i % 4 else 500,
            "prompt": "p" * (i % 50),
            "response": "see x@y.example" if i % 13 == 0 else "ok",
        }
        for i in range(n)
    ]


@pytest.fixture
def reference_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    original = engine._Builder.add

    def counting(self: Any, line: int, record: Any) -> None:
        calls.append(line)
        original(self, line, record)

    monkeypatch.setattr(engine._Builder, "add", counting)
    return calls


def test_clean_ndjson_never_needs_the_reference_path(
    tmp_path: Path, reference_calls: list[int]
) -> None:
    # tokens are null in the first 300 rows: the plan must still type them as integers
    path = write(tmp_path / "clean.ndjson.gz", _rows(2000, tokens_from=300), "ndjson.gz")
    fast = scope([path])
    assert reference_calls == []
    slow = scope([path], fast=False)
    conserved(fast)
    assert fast.counts == slow.counts
    assert sorted(fast.affected.request_ids) == sorted(slow.affected.request_ids)
    assert fast.possibly_affected == slow.possibly_affected
    assert fast.candidate_foreign_data == slow.candidate_foreign_data
    assert fast.disclosed == slow.disclosed
    assert fast.affected.sessions == slow.affected.sessions
    assert fast.affected.accounts == slow.affected.accounts
    assert (fast.status, fast.per_day) == (slow.status, slow.per_day)


def test_odd_rows_go_to_the_reference_path_alone(
    tmp_path: Path, reference_calls: list[int]
) -> None:
    rows: list[dict[str, Any]] = _rows(50)
    rows[10] = {"timestamp": "", "model": "glm-5.3", "prompt_tokens": 700_000}
    rows[20] = {"timestamp": "2026-09-01T00:00:00Z", "model": "glm-5.3", "prompt_tokens": -5}
    path = write(tmp_path / "odd.ndjson", rows, "ndjson")
    result = scope([path])
    assert reference_calls == [11, 21]
    assert [(s.line, s.reason.split(" ")[0]) for s in result.skipped] == [
        (11, "missing"),
        (21, "unparseable"),
    ]
    conserved(result)


@pytest.mark.parametrize("zone", ["UTC", None])
def test_parquet_takes_the_columnar_path_with_timestamp_columns(
    tmp_path: Path, reference_calls: list[int], zone: str | None
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from assess.scope.logs.timestamps import parse_timestamp

    rows = _rows(300)
    stamps = [parse_timestamp(r["timestamp"]) for r in rows]
    table = pa.table(
        {
            "timestamp": pa.array(stamps, pa.int64()).cast(pa.timestamp("ns", tz=zone)),
            "model": [r["model"] for r in rows],
            "prompt_tokens": pa.array([r["prompt_tokens"] for r in rows], pa.int64()),
            "request_id": [r["request_id"] for r in rows],
            "account_id": [r["account_id"] for r in rows],
            "status": [r["status"] for r in rows],
            "response": [r["response"] for r in rows],
        }
    )
    path = tmp_path / "log.parquet"
    pq.write_table(table, path)
    fast = scope([path])
    assert reference_calls == []
    slow = scope([path], fast=False)
    conserved(fast)
    assert fast.counts == slow.counts
    assert fast.affected == slow.affected
    assert fast.candidate_foreign_data == slow.candidate_foreign_data
    assert fast.counts.over_threshold > 0


def test_csv_takes_the_columnar_path(tmp_path: Path, reference_calls: list[int]) -> None:
    path = write(tmp_path / "log.csv", _rows(1500, tokens_from=250), "csv")
    fast = scope([path])
    assert reference_calls == []
    slow = scope([path], fast=False)
    conserved(fast)
    assert fast.counts == slow.counts
    assert fast.affected == slow.affected
    assert fast.possibly_affected == slow.possibly_affected
    assert fast.candidate_foreign_data == slow.candidate_foreign_data


def test_bad_lines_are_taken_out_and_the_rest_stays_columnar(
    tmp_path: Path, reference_calls: list[int]
) -> None:
    import json

    lines = [json.dumps(r) for r in _rows(200)]
    lines.insert(50, '{"timestamp": "2026-09-0')
    lines.insert(120, "\x00\x01 junk")
    lines.append('{"timestamp": "2026-09-01T00:00:00Z", "model": "glm-5.3"')  # no newline at end
    path = tmp_path / "gappy.ndjson"
    path.write_text("\n".join(lines))
    fast = scope([path])
    assert reference_calls == [51, 121, 203]
    slow = scope([path], fast=False)
    conserved(fast)
    assert fast.counts == slow.counts
    assert fast.skipped == slow.skipped
    assert fast.affected == slow.affected
    assert fast.skipped[-1].reason.startswith("truncated final line")


def test_rows_a_non_request_rule_cannot_apply_to_stay_columnar(
    tmp_path: Path, reference_calls: list[int]
) -> None:
    """Langfuse: `type not_in [GENERATION, EMBEDDING]`. GENERATION rows stay on the columnar
    path; SPAN/EVENT rows, a null type and a missing type (told apart only record by record: an
    explicit null is "not in" the list) go by the record path, which counts them."""
    rows: list[dict[str, Any]] = []
    for i in range(400):
        kind = ["GENERATION", "GENERATION", "SPAN", "EVENT"][i % 4]
        rows.append(
            {
                "id": f"o{i}",
                "traceId": "t",
                "type": kind,
                "startTime": "2026-09-01T10:00:00Z",
                "model": "glm-5.3",
                "usageDetails": {"input": 700_000 + i},
            }
        )
    rows[396]["type"] = None  # a GENERATION by position
    del rows[397]["type"]  # a GENERATION by position
    path = write(tmp_path / "observations.ndjson", rows, "ndjson")
    fast = scope([path], preset="langfuse")
    expected = [n + 1 for n in range(400) if n % 4 in (2, 3) or n in (396, 397)]
    assert sorted(reference_calls) == expected
    slow = scope([path], preset="langfuse", fast=False)
    conserved(fast)
    assert fast.counts == slow.counts
    assert fast.counts.non_request_records == 201  # 200 spans/events + the null type
    assert sorted(fast.affected.request_ids) == sorted(slow.affected.request_ids)
    assert fast.breakdown.non_request_reasons == slow.breakdown.non_request_reasons
