"""``--source-table`` / ``--source-column``: a real qualified name of each dialect is accepted
and quoted where it needs it (the emitted SQL parses in that dialect and, for DuckDB, runs);
anything else is refused with exit 2 naming the option, never a sqlglot traceback (acc39 6)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assess.kernel.errors import UsageError
from assess.scope.api import emit_sql
from tests.conftest import REPO

sqlglot = pytest.importorskip("sqlglot")

SAMPLE = REPO / "samples" / "logs" / "litellm.ndjson"

ACCEPTED = [
    # (dialect, --source-table, the table as the query names it)
    ("bigquery", "my-project.logs.assess_logs", "`my-project`.logs.assess_logs"),
    ("bigquery", "`my-project.logs.assess_logs`", "`my-project.logs.assess_logs`"),
    ("bigquery", "`my-project`.logs.assess_logs", "`my-project`.logs.assess_logs"),
    ("bigquery", "logs.assess_logs", "logs.assess_logs"),
    ("athena", "my-db.assess_logs", '"my-db"."assess_logs"'),
    ("athena", '"my-db".assess_logs', '"my-db".assess_logs'),
    ("trino", 'hive."my-db".assess_logs', 'hive."my-db".assess_logs'),
    ("trino", "hive.my-db.assess_logs", '"hive"."my-db"."assess_logs"'),
    ("spark", "my-db.assess_logs", "`my-db`.`assess_logs`"),
    ("spark", "`my db`.assess_logs", "`my db`.assess_logs"),
    ("duckdb", '"my-db".assess_logs', '"my-db".assess_logs'),
    ("duckdb", "main.assess_logs", "main.assess_logs"),
    # a dot inside quotes is part of the name, not an empty part
    ("duckdb", '"my.db".assess_logs', '"my.db".assess_logs'),
    ("trino", 'hive."a..b".assess_logs', 'hive."a..b".assess_logs'),
    ("spark", "`.db`.assess_logs", "`.db`.assess_logs"),
]


@pytest.mark.parametrize(("dialect", "given", "named"), ACCEPTED)
def test_a_qualified_name_is_quoted_where_needed_and_the_query_parses(
    dialect: str, given: str, named: str
) -> None:
    sql = emit_sql(dialect, preset="litellm", table=given).sql
    assert f"FROM {named}\n" in sql
    tree = sqlglot.parse_one(sql, read=dialect)  # the dialect reads the query back
    tables = {t.sql(dialect=dialect) for t in tree.find_all(sqlglot.exp.Table)}
    assert named in tables


def test_duckdb_runs_the_query_over_a_hyphenated_schema_and_a_quoted_column() -> None:
    duckdb = pytest.importorskip("duckdb")
    from tests.scope.test_sql import lines_view

    con = duckdb.connect()
    lines_view(con, SAMPLE)
    want = con.sql(emit_sql("duckdb", preset="litellm").sql).fetchall()
    con.execute('CREATE SCHEMA "my-db"')
    con.execute('CREATE TABLE "my-db"."raw logs" AS SELECT line AS "the line" FROM assess_logs')
    sql = emit_sql("duckdb", preset="litellm", table='"my-db"."raw logs"', column='"the line"').sql
    assert sorted(con.sql(sql).fetchall(), key=str) == sorted(want, key=str)
    plain = emit_sql("duckdb", preset="litellm", table="my-db.assess_logs").sql
    con.execute('CREATE TABLE "my-db".assess_logs AS SELECT line FROM assess_logs')
    assert sorted(con.sql(plain).fetchall(), key=str) == sorted(want, key=str)


REFUSED = [
    ("--source-table", "x; drop table y"),
    ("--source-table", ""),
    ("--source-table", "t AS x"),
    ("--source-table", "f(x)"),
    ("--source-table", "a.b.c.d"),
    ("--source-table", "a b"),
    ("--source-column", "li ne"),
    ("--source-column", "t.line"),
    ("--source-column", ""),
    ("--source-column", "line; drop table y"),
    # an empty part of a dotted name (sqlglot reads "a..b" with an empty schema, ".a" as "a")
    ("--source-table", "a."),
    ("--source-table", "a..b"),
    ("--source-table", "..a"),
    ("--source-table", ".a"),
    ("--source-table", "a...b"),
    ("--source-table", "a.b."),
    ("--source-table", "a..1"),
    ("--source-column", ".line"),
    ("--source-column", "li..ne"),
]


@pytest.mark.parametrize("dialect", ["duckdb", "bigquery", "athena", "spark", "trino"])
@pytest.mark.parametrize(("option", "given"), REFUSED)
def test_what_is_not_a_name_is_refused_naming_the_option(
    dialect: str, option: str, given: str
) -> None:
    keyword = "table" if option == "--source-table" else "column"
    with pytest.raises(UsageError, match=f"^{option} .*: not a {keyword} name in {dialect}"):
        emit_sql(dialect, preset="litellm", **{keyword: given})


@pytest.mark.parametrize(
    "args",
    [
        ["bigquery", "--source-table", "my-project.logs.assess_logs"],
        ["athena", "--source-table", "my-db.assess_logs"],
        ["bigquery", "--source-table", "`my-project`.logs.assess_logs"],
    ],
)
def test_cli_accepts_real_names(args: list[str], run_cli: Any) -> None:
    out = run_cli("scope", "--emit-sql", args[0], "--preset", "litellm", *args[1:])
    assert out.exit_code == 0, out.stdout + out.stderr
    assert "my-" in out.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--source-table", "x; drop table y"],
        ["--source-column", "li ne"],
        ["--source-table", ""],
        ["--source-table", "a..b"],
        ["--source-table", "..a"],
        ["--source-table", ".a"],
    ],
)
def test_cli_exits_2_without_a_traceback(args: list[str], run_cli: Any, tmp_path: Path) -> None:
    out = run_cli("scope", "--emit-sql", "duckdb", "--preset", "litellm", *args)
    text = out.stdout + out.stderr
    assert out.exit_code == 2 and "Traceback" not in text and "ParseError" not in text
    assert f"{args[0]} " in text
