"""The scoping query run by Spark (local[2]) gives `assess scope`'s counts and ids exactly.

Spark reads the gzip NDJSON as text (one row per line), runs the query --emit-sql spark wrote,
and writes Parquet; --from-engine-results turns that into the document compared with the local
run's. One Spark session serves the test session (tests/scope/conftest.py); the data is small.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest

from assess.scope.api import emit_sql, scope_engine_run, scope_run
from tests.scope import sqldiff
from tests.scope.helpers import CANONICAL
from tests.scope.test_sql import assert_same
from tests.scope.traplogs import trap_ndjson


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["canonical", "litellm"])
def test_spark_runs_the_query_to_the_local_answer(tmp_path: Path, spark: Any, preset: str) -> None:
    logs = tmp_path / "logs.json.gz"
    logs.write_bytes(gzip.compress(trap_ndjson(31, 1500, litellm=preset == "litellm")))
    local = scope_run([str(logs)], preset=preset).result.model_dump(mode="json")
    doc = _spark_round_trip(spark, logs, preset, tmp_path / "result")
    assert local["counts"]["records_skipped"] and local["counts"]["unknown_tokens"]
    assert_same(doc, local)
    assert doc["engine"]["dialect"] == "spark"


def _spark_round_trip(spark: Any, logs: Path, preset: str, out: Path) -> dict[str, Any]:
    """Run ``preset``'s Spark query over ``logs`` (JSON lines); return the document read back."""
    query = emit_sql("spark", preset=preset)
    lines = spark.read.option("lineSep", "\n").text(str(logs)).withColumnRenamed("value", "line")
    lines.createOrReplaceTempView("assess_logs")
    spark.sql(query.sql).coalesce(1).write.parquet(str(out))
    (part,) = out.glob("part-*.parquet")
    return scope_engine_run(part, preset=preset).result.model_dump(mode="json")


@pytest.mark.slow
def test_spark_runs_the_canonical_fixture_to_the_local_answer(tmp_path: Path, spark: Any) -> None:
    """canonical has no shipped sample; its fixture (tests/scope/helpers.py, CANONICAL)
    round-trips through Spark as through DuckDB: counts, skip totals and request ids."""
    local = scope_run([str(CANONICAL)], preset="canonical").result.model_dump(mode="json")
    assert_same(_spark_round_trip(spark, CANONICAL, "canonical", tmp_path / "result"), local)


def _spark_cases() -> list[Any]:
    """The fixed cases as few Spark queries (each costs seconds to plan): the canonical ones
    that agree today as one file, every other one alone (its own preset, options or xfail)."""
    cases = sqldiff.fixed_cases()
    together = [
        c
        for c in cases
        if c.preset == "canonical"
        and not c.options
        and c.id not in sqldiff.REFUSED["spark"]
        and not sqldiff.known(c.id, "spark")
    ]
    merged = sqldiff.merged(together, "canonical-traps")
    alone = [c for c in cases if c not in together]
    return [pytest.param(merged, id=merged.id)] + [
        pytest.param(case, marks=sqldiff.known(case.id, "spark"), id=case.id) for case in alone
    ]


@pytest.mark.slow
@pytest.mark.parametrize("case", _spark_cases())
def test_spark_gives_the_local_answer_on_every_trap(
    tmp_path: Path, spark: Any, case: sqldiff.Case
) -> None:
    """Issue 39's fixed cases (tests/scope/sqldiff.py) through Spark: the local NDJSON answer."""
    reference = sqldiff.local_ndjson(case, tmp_path)
    assert "error" not in reference and reference["counts"]["in_window"]  # the controls
    found = sqldiff.spark_answer(case, tmp_path, spark)
    assert found == sqldiff.expected(case, "spark", reference)
