"""Numbers and times at their limits given to `assess scope` (issue 36, items 10 and 12).

Measured before the changes: a record dated 0001-01-01 or 9999-12-31, or an epoch of 10**20,
was an OverflowError traceback (exit 1, the "affected" code); so were ``--until 2300-01-01``,
``--since 0001-01-01`` and ``--min-prompt-tokens 10**20`` (pyarrow refused the Python int);
a JSON array holding a number of 4,400 digits (ValueError) or nested 1,000 deep (RecursionError)
was a traceback; two counts of 2**63-1 gave a negative disclosed total; a bare
``--until 2026-09-30`` left out 23:59:59.5 of that day; the epoch text ``1756252799.9999999``
(100 ns before the window) was rounded into it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.scope.helpers import conserved, ndjson, scope, write


def _record(
    i: int, timestamp: Any = "2026-09-01T10:00:00Z", tokens: Any = 700_001
) -> dict[str, Any]:
    return {
        "timestamp": timestamp,
        "model": "glm-5.3",
        "prompt_tokens": tokens,
        "request_id": f"req-{i}",
        "status": "200",
    }


def _cli_json(run_cli: Callable[..., Any], *args: str) -> tuple[int, dict[str, Any]]:
    result = run_cli("scope", *args, "--json", "-")
    assert "Traceback" not in result.stdout + result.stderr
    return result.exit_code, json.loads(result.stdout)


OUT_OF_RANGE = ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", 10**20, 10**30, str(10**25)]


@pytest.mark.parametrize("fmt", ["ndjson", "csv", "json"])
@pytest.mark.parametrize("fast", [True, False])
def test_timestamps_out_of_range_are_skipped_with_their_reason(
    tmp_path: Path, fmt: str, fast: bool
) -> None:
    records = [_record(i) for i in range(5)]
    records += [_record(10 + i, timestamp=t) for i, t in enumerate(OUT_OF_RANGE)]
    result = scope([write(tmp_path / f"t.{fmt}", records, fmt)], fast=fast)
    conserved(result)
    assert result.counts.over_threshold == 5
    assert result.counts.records_skipped == len(OUT_OF_RANGE)
    assert all("out of range" in s.reason for s in result.skipped)


def test_parquet_timestamp_column_out_of_range(tmp_path: Path) -> None:
    stamps = [datetime(2026, 9, 1, 10), datetime(1, 1, 1), datetime(9999, 12, 31)]
    table = pa.table(
        {
            "timestamp": pa.array(stamps, pa.timestamp("us")),
            "model": ["glm-5.3"] * 3,
            "prompt_tokens": pa.array([700_001] * 3, pa.int64()),
        }
    )
    pq.write_table(table, tmp_path / "t.parquet")
    result = scope([tmp_path / "t.parquet"])
    conserved(result)
    assert result.counts.over_threshold == 1
    assert result.counts.records_skipped == 2
    assert all("out of range" in s.reason for s in result.skipped)


@pytest.mark.parametrize(
    "options",
    [
        ["--until", "2300-01-01"],
        ["--since", "0001-01-01"],
        ["--since", "0001-01-01", "--until", "9999-12-31"],
        ["--min-prompt-tokens", str(10**20)],
        ["--min-prompt-tokens", str(2**63 - 1)],
    ],
)
def test_window_and_threshold_options_at_their_limits(
    tmp_path: Path, run_cli: Callable[..., Any], options: list[str]
) -> None:
    path = tmp_path / "log.ndjson"
    path.write_bytes(ndjson([_record(i) for i in range(4)]))
    code, doc = _cli_json(run_cli, str(path), *options)
    high = options[0] == "--min-prompt-tokens"
    assert code == (0 if high else 1)
    assert doc["counts"]["in_window"] == 4
    assert doc["counts"]["over_threshold"] == (0 if high else 4)


def test_an_option_beyond_year_9999_is_a_usage_error(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    path = tmp_path / "log.ndjson"
    path.write_bytes(ndjson([_record(0)]))
    result = run_cli("scope", str(path), "--until", str(10**23))
    assert result.exit_code == 2
    assert "outside the years 1 to 9999" in result.output
    assert "Traceback" not in result.output


def test_json_array_with_a_4400_digit_number_and_deep_nesting(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    good = [json.dumps(_record(i)) for i in range(3)]
    huge = '{"timestamp": "2026-09-01T10:00:00Z", "model": "glm-5.3", "prompt_tokens": '
    huge += "9" * 4400 + "}"
    deep = "[" * 1000 + "]" * 1000
    path = tmp_path / "array.json"
    path.write_text(f"[{good[0]}, {huge}, {good[1]}, {deep}, {good[2]}]")
    for jobs in ("1", "2"):
        code, doc = _cli_json(run_cli, str(path), str(path), "--jobs", jobs)
        assert code == 1
        reasons = [s["reason"] for s in doc["skipped"]]
        assert any("out of range" in r for r in reasons)
        assert any("nested too deep" in r for r in reasons)
        assert doc["counts"]["over_threshold"] >= 2


def test_an_epoch_of_4400_digits_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "array.json"
    path.write_text(
        '[{"timestamp": '
        + "1" * 4400
        + ', "model": "glm-5.3", "prompt_tokens": 1},'
        + json.dumps(_record(0))
        + "]"
    )
    result = scope([path])
    conserved(result)
    assert result.counts.over_threshold == 1
    assert result.counts.records_skipped == 1


@pytest.mark.parametrize("fmt", ["ndjson", "parquet", "csv"])
def test_token_totals_are_exact_past_int64(tmp_path: Path, fmt: str) -> None:
    records = [_record(i, tokens=2**63 - 1) for i in range(3)] + [_record(9, tokens=5)]
    # the trigger at the largest count: every request is at or under it, so in the source set
    result = scope([write(tmp_path / f"t.{fmt}", records, fmt)], min_prompt_tokens=2**63 - 1)
    conserved(result)
    assert result.disclosed.prompt_tokens_total == 3 * (2**63 - 1) + 5


def test_a_bare_until_date_includes_the_whole_day(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    records = [
        _record(0, "2026-09-30T23:59:59.5Z"),
        _record(1, "2026-09-30T23:59:59.999999999Z"),
        _record(2, "2026-10-01T00:00:00Z"),
    ]
    path = tmp_path / "log.ndjson"
    path.write_bytes(ndjson(records))
    code, doc = _cli_json(
        run_cli, str(path), "--model", "glm-5.3", "--since", "2026-09-30", "--until", "2026-09-30"
    )
    assert code == 1
    assert doc["counts"]["in_window"] == 2


def test_the_advisory_window_includes_its_last_day_whole(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    """Acc36 B2: the advisory's window ended at 23:59:59Z, so a 900k-token request at
    23:59:59.5 of the incident's last day was "not affected", exit 0 (a bare --until found it)."""
    records = [
        _record(0, "2026-09-09T23:59:59.5Z", 900_000),
        _record(1, "2026-09-09T23:59:59.999999999Z", 900_000),
        _record(2, "2026-09-10T00:00:00Z", 900_000),
    ]
    path = tmp_path / "log.ndjson"
    path.write_bytes(ndjson(records))
    code, doc = _cli_json(run_cli, str(path))
    assert code == 1
    assert doc["counts"]["in_window"] == 2 and doc["counts"]["over_threshold"] == 2
    assert doc["filter"]["until"] == "2026-09-09T23:59:59.999999Z"  # as a bare --until date


@pytest.mark.parametrize("fast", [True, False])
def test_epoch_text_with_100ns_digits_is_read_exactly(tmp_path: Path, fast: bool) -> None:
    since = 1787788800  # 2026-08-27T00:00:00Z, the advisory window's start
    records = [
        _record(0, f"{since - 1}.9999999"),  # 100 ns before: outside
        _record(1, f"{since}.0000001"),  # 100 ns after: inside
        _record(2, f"{since - 1}999.9999"),  # milliseconds, 100 ns before: outside
    ]
    result = scope([write(tmp_path / "log.ndjson", records, "ndjson")], fast=fast)
    conserved(result)
    assert result.counts.in_window == 1
    assert result.breakdown.model_matched_outside_window == 2
