"""The Trino, Athena and BigQuery queries, carried back to DuckDB, give the local answer.

No Trino, Athena or BigQuery runs here. Each query of --emit-sql is parsed as its own dialect by
sqlglot (so it is valid SQL there), transpiled from that dialect to DuckDB, and run by DuckDB over
the same trap logs as tests/scope/test_sql.py; the export must then give `assess scope`'s counts,
ids, days and verdict. What this proves: the dialect's text keeps the definition's meaning through
a parse in that dialect. What it cannot prove: that the engine itself evaluates every function
the way sqlglot maps it (that needs the engine). Spark is run for real in test_sql_spark.py.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest
import sqlglot
from sqlglot import exp

from assess.scope.api import emit_sql, scope_engine_run, scope_run
from assess.scope.sql import DIALECTS
from tests.scope.test_sql import assert_same, lines_view
from tests.scope.traplogs import trap_ndjson

duckdb = pytest.importorskip("duckdb")

ENGINES = ("trino", "athena", "bigquery")


def _safe_to_try(node: exp.Expression) -> Any:
    """BigQuery's ``SAFE.f(x)`` (NULL instead of an error) is DuckDB's ``TRY(f(x))``.

    sqlglot parses the SAFE prefix but writes it unchanged for DuckDB, which has no such prefix.
    """
    if isinstance(node, exp.SafeFunc):
        return exp.func("TRY", node.this.copy())
    return node


def to_duckdb(sql: str, dialect: str) -> str:
    """Parse ``sql`` as ``dialect`` and write it as DuckDB."""
    tree = sqlglot.parse_one(sql, read=DIALECTS[dialect])
    return str(tree.transform(_safe_to_try).transform(_group_references).sql(dialect="duckdb"))


def _group_references(node: exp.Expression) -> Any:
    """Trino's and Athena's replacement text names a group ``$1``; DuckDB's ``\\1``."""
    if isinstance(node, exp.RegexpReplace) and node.args.get("replacement") is not None:
        node.set("replacement", node.args["replacement"].transform(_dollar_to_backslash))
    return node


def _dollar_to_backslash(node: exp.Expression) -> Any:
    if isinstance(node, exp.Literal) and node.is_string and node.this in ("$1", "$2"):
        return exp.Literal.string("\\" + node.this[1:])
    return node


@pytest.fixture(scope="module")
def trap_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("dialects")
    out = {}
    for preset in ("canonical", "litellm"):
        path = root / f"{preset}.json.gz"
        path.write_bytes(gzip.compress(trap_ndjson(31, 2500, litellm=preset == "litellm")))
        out[preset] = path
    return out


@pytest.mark.parametrize("preset", ["canonical", "litellm"])
@pytest.mark.parametrize("dialect", ENGINES)
def test_the_dialect_query_transpiled_to_duckdb_gives_the_local_answer(
    tmp_path: Path, trap_logs: dict[str, Path], dialect: str, preset: str
) -> None:
    logs = trap_logs[preset]
    local = scope_run([str(logs)], preset=preset).result.model_dump(mode="json")
    query = emit_sql(dialect, preset=preset)
    duck = to_duckdb(query.sql, dialect)
    con: Any = duckdb.connect()
    con.execute("SET TimeZone = 'America/New_York'")
    lines_view(con, logs)
    out = tmp_path / "result.parquet"
    con.execute(f"COPY ({duck}) TO '{out}' (FORMAT parquet)")
    doc = scope_engine_run(out, preset=preset).result.model_dump(mode="json")
    assert local["counts"]["records_skipped"] and local["affected"]["request_ids"]
    assert_same(doc, local)
    # the export names the dialect it was written in, and the document keeps that dialect's text
    assert doc["engine"]["dialect"] == dialect and doc["engine"]["query"] == query.sql


def test_bigquery_json_check_is_rewritten_not_dropped() -> None:
    """The SAFE rewrite keeps the JSON check: without it DuckDB refuses the query outright."""
    sql = emit_sql("bigquery", preset="canonical").sql
    assert "SAFE.PARSE_JSON" in sql
    plain = sqlglot.parse_one(sql, read="bigquery").sql(dialect="duckdb")
    assert "SAFE.JSON(" in plain  # what sqlglot writes alone: not DuckDB
    assert "TRY(JSON(" in to_duckdb(sql, "bigquery")
    con: Any = duckdb.connect()
    con.execute("CREATE TABLE assess_logs (line VARCHAR)")
    with pytest.raises(duckdb.Error):
        con.execute(plain).fetchall()
    assert con.execute(to_duckdb(sql, "bigquery")).fetchall() is not None


@pytest.mark.parametrize("preset", ["canonical", "litellm"])
def test_bigquery_regexp_extract_has_one_capturing_group(preset: str) -> None:
    """BigQuery's REGEXP_EXTRACT takes no group index and returns the one capturing group (an
    error for more than one): every pattern the BigQuery text extracts with has at most one."""
    import re

    tree = sqlglot.parse_one(emit_sql("bigquery", preset=preset).sql, read="bigquery")
    patterns = [str(node.expression.this) for node in tree.find_all(exp.RegexpExtract)]
    assert patterns
    assert [p for p in patterns if re.compile(p).groups > 1] == []
