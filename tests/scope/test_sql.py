"""The scoping query run by DuckDB gives `assess scope`'s counts and ids exactly.

Logs generated with traps (tests/scope/traplogs.py) are scoped locally, and by DuckDB running the
query of --emit-sql over the raw lines; --from-engine-results turns DuckDB's export into the
document. The session time zone is set away from UTC on purpose: the query must not depend on it.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import sqlglot

from assess.advisories.catalogue import get_advisory
from assess.kernel.errors import InputError, UsageError
from assess.scope.accumulator import make_filter
from assess.scope.api import emit_sql, scope_engine_run, scope_run
from assess.scope.logs.presets import get_preset
from assess.scope.sql import DIALECTS, scoping_query
from tests.scope.traplogs import trap_ndjson

duckdb = pytest.importorskip("duckdb")

#: How each engine's rows compare with the local run's: ids as sets (engines keep no order),
#: skip reasons by total (the query names a reason's kind, not the value).
SAME = ("records_read", "records_skipped", "non_request_records", "model_matched", "in_window")


def lines_view(con: Any, path: Path) -> None:
    """Make ``assess_logs(line)`` over an NDJSON file, as docs/scope-remote.md shows: a gzip file
    is decompressed first (DuckDB's ``read_blob`` reads the compressed bytes as they are)."""
    from tests.scope.sqldiff import duckdb_lines

    if path.suffix == ".gz":
        plain = path.with_suffix("")
        plain.write_bytes(gzip.decompress(path.read_bytes()))
        path = plain
    duckdb_lines(con, path)


def assert_same(engine: dict[str, Any], local: dict[str, Any]) -> None:
    """The engine's document says what the local one says, up to row order and reason text."""
    assert engine["counts"] == local["counts"]
    assert engine["verdict"] == local["verdict"]
    assert engine["assessment"] == local["assessment"]
    assert engine["breakdown"]["requests"] == local["breakdown"]["requests"]
    assert engine["breakdown"]["non_request_reasons"] == local["breakdown"]["non_request_reasons"]
    for part in ("affected", "possibly_affected"):
        assert sorted(engine[part]["request_ids"]) == sorted(local[part]["request_ids"])
    assert engine["per_day"] == local["per_day"]
    assert engine["status"] == local["status"]
    assert engine["disclosed"] == local["disclosed"]
    assert sorted(engine["affected"]["accounts"], key=str) == sorted(
        local["affected"]["accounts"], key=str
    )


@pytest.mark.parametrize("preset", ["canonical", "litellm"])
def test_duckdb_runs_the_query_to_the_local_answer(tmp_path: Path, preset: str) -> None:
    logs = tmp_path / "logs.json.gz"
    logs.write_bytes(gzip.compress(trap_ndjson(21, 2500, litellm=preset == "litellm")))
    local = scope_run([str(logs)], preset=preset).result.model_dump(mode="json")
    query = emit_sql("duckdb", preset=preset)
    con = duckdb.connect()
    con.execute("SET TimeZone = 'America/New_York'")
    lines_view(con, logs)
    out = tmp_path / "result.parquet"
    con.execute(f"COPY ({query.sql}) TO '{out}' (FORMAT parquet)")
    run = scope_engine_run(out, preset=preset)
    doc = run.result.model_dump(mode="json")
    assert local["counts"]["records_skipped"] and local["counts"]["unknown_tokens"]
    assert_same(doc, local)
    assert doc["engine"]["dialect"] == "duckdb" and doc["engine"]["query"] == query.sql
    assert doc["inputs"][0]["path"] == str(out)


def test_cli_emits_the_query_and_reads_a_csv_export(tmp_path: Path, run_cli: Any) -> None:
    logs = tmp_path / "logs.ndjson"
    logs.write_bytes(trap_ndjson(22, 1200))
    emitted = run_cli("scope", "--emit-sql", "duckdb", str(logs))  # the preset detected: auto
    assert emitted.exit_code == 0
    con = duckdb.connect()
    lines_view(con, logs)
    out = tmp_path / "result.csv"
    con.execute(f"COPY ({emitted.stdout}) TO '{out}' (HEADER)")
    doc_path, local_path = tmp_path / "engine.json", tmp_path / "local.json"
    ids = tmp_path / "ids.csv"
    engine = run_cli(
        "scope", "--from-engine-results", str(out), "--json", str(doc_path), "--ids-csv", str(ids)
    )
    local = run_cli("scope", str(logs), "--json", str(local_path))
    assert engine.exit_code == local.exit_code == 1
    assert "engine: duckdb ran the scoping query" in engine.stdout
    assert_same(json.loads(doc_path.read_text()), json.loads(local_path.read_text()))
    assert ids.read_text().count("\n") > 10


def test_results_of_other_options_are_refused(tmp_path: Path) -> None:
    logs = tmp_path / "logs.ndjson"
    logs.write_bytes(trap_ndjson(23, 300))
    con = duckdb.connect()
    lines_view(con, logs)
    out = tmp_path / "result.csv"
    con.execute(f"COPY ({emit_sql('duckdb', preset='canonical').sql}) TO '{out}' (HEADER)")
    with pytest.raises(InputError, match="another preset or filter"):
        scope_engine_run(out, preset="canonical", min_prompt_tokens=10)
    (tmp_path / "other.csv").write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="not the scoping query's result"):
        scope_engine_run(tmp_path / "other.csv", preset="canonical")


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_every_dialect_is_generated_from_the_one_definition(dialect: str) -> None:
    scope = make_filter(get_advisory("glm-5.3-kv-leak"))
    query = scoping_query(get_preset("litellm"), scope, dialect)
    assert sqlglot.parse_one(query.sql, read=DIALECTS[dialect]) is not None  # valid SQL there
    assert "call_mcp_tool" in query.sql and "681280" in query.sql
    assert "JSON_VALID" not in query.sql.upper() or dialect == "duckdb"
    assert query.definition == scoping_query(get_preset("litellm"), scope, "duckdb").definition


def test_auto_without_logs_and_a_join_preset_are_usage_errors() -> None:
    with pytest.raises(UsageError, match="needs a log file"):
        emit_sql("spark")
    with pytest.raises(UsageError, match="joins a side table"):
        emit_sql("spark", preset="azure-apim")
    with pytest.raises(UsageError, match="no such dialect"):
        emit_sql("oracle", preset="canonical")


def test_a_report_over_an_engine_result_names_the_query_in_its_inputs(tmp_path: Path) -> None:
    from assess import build_report
    from assess.kernel.output import to_json
    from tests.conftest import REPO

    logs = tmp_path / "logs.ndjson"
    logs.write_bytes(trap_ndjson(24, 400))
    con = duckdb.connect()
    lines_view(con, logs)
    out = tmp_path / "result.parquet"
    query = emit_sql("duckdb", preset="canonical")
    con.execute(f"COPY ({query.sql}) TO '{out}' (FORMAT parquet)")
    scope_json = tmp_path / "scope.json"
    scope_json.write_text(to_json(scope_engine_run(out, preset="canonical").result))
    report = build_report(REPO / "samples" / "vendors" / "incident-like.yaml", logs=[scope_json])
    (entry,) = [i for i in report.inputs if i.role == "logs"]
    assert entry.engine == "duckdb"
    assert entry.query_sha256 == hashlib.sha256(query.sql.encode()).hexdigest()


def _stamps() -> list[object]:
    """Timestamps the query must read as the local parser does: tricky ones, then random ISO."""
    import random

    tricky: list[object] = [
        "2024-02-29T12:00:00Z",  # leap day
        "2023-02-29T12:00:00Z",  # no such day: unparseable
        "2026-04-31T00:00:00Z",  # no such day
        "2026-13-01T00:00:00Z",  # no such month
        "2026-09-01T24:00:00Z",  # no such hour
        "2026-09-01T23:60:00Z",
        "2026-09-01T10:00:00+05:30",
        "2026-09-01T10:00:00-0800",
        "2026-09-01T10:00:00+24:00",  # no such offset
        "2026-09-01T10:00:00.123456789Z",
        "2026-09-01T10:00:00.1234567891234Z",  # digits past nanoseconds are dropped
        "2026-09-01T10:00:00,5Z",
        "2026-09-01t10:00:00z",
        "2026-09-01 10:00:00 UTC",
        "2026-09-01",
        "2026-09-01T10:00",
        " 2026-09-01T10:00:00Z ",
        "2026-9-1T10:00:00Z",
        "1900-03-01T00:00:00Z",
        "2100-12-31T23:59:59Z",
        "1788220800",
        "1788220800.25",
        "1788220799.9999999",  # 100 ns before: a DOUBLE rounds it to the second
        "1788220800123.4567891",
        1788220800123,
        1788220800123456,
        1788220800123456789,
        -86400,
        "yesterday",
        True,
    ]
    rng = random.Random(5)
    for _ in range(300):
        stamp = (
            f"{rng.randrange(1971, 2200):04d}-{rng.randrange(1, 13):02d}-"
            f"{rng.randrange(1, 32):02d}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:"
            f"{rng.randrange(60):02d}"
        )
        stamp += rng.choice(["", "Z", ".5Z", f".{rng.randrange(10**6):06d}+01:00", "-11:30"])
        tricky.append(stamp)
    return tricky


def test_the_query_reads_every_timestamp_as_the_local_parser_does(tmp_path: Path) -> None:
    from assess.scope.logs.timestamps import parse_timestamp

    stamps = _stamps()
    logs = tmp_path / "stamps.ndjson"
    logs.write_text(
        "".join(
            json.dumps({"timestamp": s, "model": "glm-5.3", "prompt_tokens": 9, "request_id": i})
            + "\n"
            for i, s in enumerate(stamps)
        )
    )
    options = {"preset": "canonical", "since": "1900-01-01", "until": "2262-01-01"}
    con = duckdb.connect()
    lines_view(con, logs)
    rows = con.execute(emit_sql("duckdb", **options).sql).fetchall()
    found = {int(r[6]): r[3] for r in rows if r[0] == "row"}
    parsed = {i: parse_timestamp(s) for i, s in enumerate(stamps)}
    since = -2208988800 * 10**9  # 1900-01-01T00:00:00Z
    expected = {i: ns for i, ns in parsed.items() if ns is not None and ns >= since}
    assert len(expected) > 200 and len(expected) < len(stamps)  # both kinds are there
    assert found == expected  # the same instants, to the nanosecond


def test_the_query_matches_model_ids_as_the_local_normalisation_does(tmp_path: Path) -> None:
    import itertools

    from assess.kernel.model_ids import normalise_model_id

    heads = [
        "",
        "us.",
        "eu.zai.",
        "global.",
        "z-ai/",
        "@cf/zai-org/",
        "arn:aws:x/",
        "us-gov.",
        "x.",
    ]
    names = ["glm-5.3", "GLM-5.3", " glm-5.3 ", "glm-5.3-flash", "glm-5", "glm-5.3.1", "us.", ""]
    tails = ["", "-v1:0", ":0", ":free", ":FREE", "-v2", ":1:free", "/", "-FP8", "_awq-int4", "x"]
    models = ["".join(p) for p in itertools.product(heads, names, tails)]
    logs = tmp_path / "models.ndjson"
    logs.write_text(
        "".join(
            json.dumps(
                {
                    "timestamp": "2026-09-01T00:00:00Z",
                    "model": m,
                    "prompt_tokens": 9,
                    "request_id": i,
                }
            )
            + "\n"
            for i, m in enumerate(models)
        )
    )
    con = duckdb.connect()
    lines_view(con, logs)
    rows = con.execute(emit_sql("duckdb", preset="canonical").sql).fetchall()
    found = {int(r[6]) for r in rows if r[0] == "row"}
    expected = {i for i, m in enumerate(models) if m and normalise_model_id(m) == "glm-5.3"}
    assert 20 < len(expected) < len(models) / 2
    assert found == expected


def test_the_query_accepts_and_refuses_token_counts_as_the_local_parser_does(
    tmp_path: Path,
) -> None:
    from assess.scope.logs.records import check_tokens

    values: list[object] = [0, "0", 5, "5", " 5 ", "1_000", "5.0", 5.0, 5.5, "5.5", -1, "-1"]
    values += [True, "true", None, "", 2**63 - 1, 2**63, "9223372036854775808", "abc", [1]]
    values += [{"n": 1}, 681280, 681281, "0681281", 1e3, "٣"]
    logs = tmp_path / "tokens.ndjson"
    logs.write_text(
        "".join(
            json.dumps(
                {"timestamp": "2026-09-01T00:00:00Z", "model": "glm-5.3", "request_id": i}
                | {"prompt_tokens": v}
            )
            + "\n"
            for i, v in enumerate(values)
        )
    )
    con = duckdb.connect()
    lines_view(con, logs)
    rows = con.execute(emit_sql("duckdb", preset="canonical").sql).fetchall()
    found = {int(r[6]): r[5] for r in rows if r[0] == "row"}
    checked = {i: check_tokens(v) for i, v in enumerate(values)}
    expected = {i: tokens for i, (tokens, why) in checked.items() if why is None}
    assert found == expected


def test_cli_refuses_both_engine_options_and_no_logs(tmp_path: Path, run_cli: Any) -> None:
    both = run_cli("scope", "--emit-sql", "spark", "--from-engine-results", "x.csv")
    assert both.exit_code == 2 and "Give one of them" in both.stdout + both.stderr
    none = run_cli("scope")
    assert none.exit_code == 2 and "give LOGS" in none.stdout + none.stderr
    spark = run_cli("scope", "--emit-sql", "spark", "--preset", "litellm")
    assert spark.exit_code == 0 and "GET_JSON_OBJECT" in spark.stdout
