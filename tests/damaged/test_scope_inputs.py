"""Inputs the scope reader met in the wild, round three (issue 36, items 3, 5 and 8).

Measured before the changes: a CSV prompt cell over 131,072 characters lost its record, reported
as "unbalanced quote"; a 3 MB cell of 50,000 lines in a 3-row file became 50,000 skipped records;
a Parquet model column stored as BINARY read as "b'glm-5.3'" (nothing matched); DECIMAL(38,0)
token counts (Snowflake NUMBER) were skipped as "not a number".
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.scope.helpers import conserved, scope, write


def _record(i: int, prompt: str = "hi") -> dict[str, Any]:
    return {
        "timestamp": "2026-09-01T10:00:00Z",
        "model": "glm-5.3",
        "prompt_tokens": 900_000 + i,
        "request_id": f"req-{i}",
        "status": "200",
        "prompt": prompt,
    }


# -- CSV cells ------------------------------------------------------------------------------------
@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize(
    "prompt",
    [
        "x" * 200_000,  # one line over the csv module's 131,072
        "a line of a long prompt, with a comma\n" * 80_000,  # 3 MB, 80,000 lines
        'quoted "words" and\nnewlines ' * 20_000,
    ],
    ids=["wide", "tall", "quotes"],
)
def test_a_huge_prompt_cell_keeps_its_record(tmp_path: Path, fast: bool, prompt: str) -> None:
    records = [_record(0), _record(1, prompt), _record(2)]
    result = scope([write(tmp_path / "log.csv", records, "csv")], fast=fast)
    conserved(result)
    assert result.counts.records_read == 3
    assert result.counts.over_threshold == 3
    assert result.counts.records_skipped == 0


@pytest.mark.parametrize("fast", [True, False])
def test_a_cell_past_the_limit_is_one_skipped_record_with_that_reason(
    tmp_path: Path, fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assess.scope.logs import formats

    monkeypatch.setattr(formats, "MAX_RECORD_CHARS", 150_000)
    records = [_record(0), _record(1, "y" * 200_000), _record(2, "z\n" * 100_000), _record(3)]
    result = scope([write(tmp_path / "log.csv", records, "csv")], fast=fast)
    conserved(result)
    assert result.counts.over_threshold == 2
    reasons = [s.reason for s in result.skipped]
    assert reasons and all("150,000 characters" in r for r in reasons[:2])
    assert not any("unbalanced" in r for r in reasons[:2])


# -- Parquet types --------------------------------------------------------------------------------
@pytest.mark.parametrize("fast", [True, False])
def test_parquet_binary_model_and_decimal_tokens(tmp_path: Path, fast: bool) -> None:
    n = 5
    table = pa.table(
        {
            "timestamp": pa.array(["2026-09-01T10:00:00Z"] * n),
            "model": pa.array([b"glm-5.3"] * n, pa.binary()),
            "prompt_tokens": pa.array(
                [Decimal(900_000 + i) for i in range(n - 1)] + [Decimal(2**63 - 1)],
                pa.decimal128(38, 0),
            ),
            "request_id": pa.array([f"r{i}".encode() for i in range(n)], pa.large_binary()),
        }
    )
    pq.write_table(table, tmp_path / "log.parquet")
    result = scope([tmp_path / "log.parquet"], fast=fast, served_by="workers-ai")
    conserved(result)
    assert result.counts.model_matched == n
    assert result.counts.over_threshold == n
    assert "r0" in result.affected.request_ids
    # with the trigger at the largest count every request is a source: the exact total
    every = scope([tmp_path / "log.parquet"], fast=fast, min_prompt_tokens=2**63 - 1)
    assert every.disclosed.prompt_tokens_total == sum(range(900_000, 900_000 + n - 1)) + 2**63 - 1


@pytest.mark.parametrize("fast", [True, False])
def test_parquet_decimal_counts_that_are_not_whole_or_too_big_are_skipped(
    tmp_path: Path, fast: bool
) -> None:
    table = pa.table(
        {
            "timestamp": pa.array(["2026-09-01T10:00:00Z"] * 3),
            "model": pa.array(["glm-5.3"] * 3),
            "prompt_tokens": pa.array(
                [Decimal("900000.00"), Decimal("12.50"), Decimal(10**30)], pa.decimal128(38, 2)
            ),
        }
    )
    pq.write_table(table, tmp_path / "log.parquet")
    result = scope([tmp_path / "log.parquet"], fast=fast)
    conserved(result)
    assert result.counts.over_threshold == 1
    reasons = [s.reason for s in result.skipped]
    assert len(reasons) == 2
    assert "'12.50': not a whole number" in reasons[0]
    assert "out of range" in reasons[1]


def test_parquet_auto_detection_sees_every_column(tmp_path: Path) -> None:
    """acc36 m2: auto-detection read only the canonical preset's columns of a Parquet file, so a
    LiteLLM export with a string ``startTime`` was "no known log format (... litellm missing:
    startTime)", exit 2, while the same rows as CSV were detected as litellm."""
    import csv

    with open("samples/logs/litellm-spendlogs.csv", newline="", encoding="utf-8") as handle:
        header, *rows = list(csv.reader(handle))
    rows = [row for row in rows if len(row) == len(header)]  # the sample's last row is cut
    csv_path = tmp_path / "spendlogs.csv"
    with csv_path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([header, *rows])
    table = pa.table({name: [row[i] for row in rows] for i, name in enumerate(header)})
    assert table.schema.field("startTime").type == pa.string()
    pq.write_table(table, tmp_path / "spendlogs.parquet")
    from_csv = scope([csv_path], preset="auto")
    from_parquet = scope([tmp_path / "spendlogs.parquet"], preset="auto")
    conserved(from_parquet)
    assert from_parquet.preset == from_csv.preset == "litellm"
    assert from_parquet.counts == from_csv.counts
    assert from_parquet.affected.request_ids == from_csv.affected.request_ids
