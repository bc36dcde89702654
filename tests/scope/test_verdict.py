"""No all-clear without evidence: every run ends with a verdict, and logs whose required fields
were not read, whose records were mostly skipped, or none of whose requests names the model are
``not_assessable`` (exit 2, the JSON still written), on every reading path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assess.scope.api import NotAssessable, emit_sql, scope_engine_run, scope_logs, scope_run
from assess.scope.evidence import MAX_SKIPPED_SHARE, MIN_FIELD_SHARE
from tests.scope.helpers import conserved, ndjson, scope, write


def _record(n: int, model: str | None = "glm-5.3", tokens: int = 1000) -> dict[str, Any]:
    return {
        "timestamp": f"2026-09-01T10:00:{n % 60:02d}Z",
        "model": model,
        "prompt_tokens": tokens,
        "request_id": f"r{n}",
        "account_id": f"acct-{n % 3}",
    }


#: Requests to the model in the window, all under the trigger, and to other models: the run
#: could have found an affected request and did not.
CLEAN = [_record(n) for n in range(6)] + [_record(n, "gpt-4o") for n in range(6, 10)]

FORMATS = [("ndjson", True), ("ndjson", False), ("json", True), ("csv", True), ("parquet", True)]


@pytest.mark.parametrize(("fmt", "fast"), FORMATS)
def test_clean_logs_are_not_affected_exit_0(tmp_path: Path, fmt: str, fast: bool) -> None:
    log = write(tmp_path / f"l.{fmt}", CLEAN, fmt)
    result = scope([log], fast=fast)
    assert (result.verdict, result.exit_code) == ("not_affected", 0)
    assert result.assessment.reasons == []
    assert result.assessment.model_read == 10
    assert [(m.model, m.requests) for m in result.assessment.models_seen] == [
        ("glm-5.3", 6),
        ("gpt-4o", 4),
    ]


@pytest.mark.parametrize(("fmt", "fast"), FORMATS)
def test_a_model_map_no_record_holds_is_not_assessable(
    tmp_path: Path, fmt: str, fast: bool
) -> None:
    """The bug of issue 35: `--map model=PATH` to nowhere read as "0 affected", exit 0."""
    log = write(tmp_path / f"l.{fmt}", CLEAN, fmt)
    result = scope([log], fast=fast, mapping={"model": "no.such.path"})
    conserved(result)
    assert result.breakdown.requests == 10 and result.counts.model_matched == 0
    assert (result.verdict, result.exit_code) == ("not_assessable", 2)
    assert result.assessment.model_read == 0
    assert result.assessment.reasons == [
        "the model was read in 0 of 10 requests (0%; at least 90% needed)"
    ]
    assert result.assessment.models_seen == []


def test_a_timestamp_map_no_record_holds_is_not_assessable(tmp_path: Path) -> None:
    log = write(tmp_path / "l.ndjson", CLEAN, "ndjson")
    result = scope([log], mapping={"timestamp": "when"})
    assert (result.verdict, result.exit_code) == ("not_assessable", 2)
    assert result.assessment.timestamp_read == 0 and result.assessment.request_records == 10
    assert any(
        "none of the 10 records read is a usable request" in r for r in result.assessment.reasons
    )


def _renamed(records: list[dict[str, Any]], tag: int) -> list[dict[str, Any]]:
    return [{**r, "request_id": f"{r.get('request_id')}-{tag}"} for r in records]


def test_parallel_jobs_give_the_same_verdict(tmp_path: Path) -> None:
    # two different files (identical ones are read once: tests/damaged/test_scope_identity.py)
    # and other requests (one request in two files is counted once: test_scope_duplicates.py)
    logs = [
        str(write(tmp_path / f"l{i}.ndjson", _renamed(CLEAN[i:] + CLEAN[:i], i), "ndjson"))
        for i in range(2)
    ]
    serial = scope_run(logs, preset="canonical", mapping=["model=nope"], jobs=1).result
    both = scope_run(logs, preset="canonical", mapping=["model=nope"], jobs=2).result
    assert both.verdict == serial.verdict == "not_assessable"
    assert both.assessment == serial.assessment
    assert (
        both.assessment.reasons[0]
        == "the model was read in 0 of 20 requests (0%; at least 90% needed)"
    )
    fine = scope_run(logs, preset="canonical", jobs=2).result
    assert fine.verdict == "not_affected"
    assert [(m.model, m.requests) for m in fine.assessment.models_seen] == [
        ("glm-5.3", 12),
        ("gpt-4o", 8),
    ]


def test_engine_results_give_the_same_verdict(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    from tests.scope.test_sql import lines_view

    log = write(tmp_path / "l.ndjson", CLEAN, "ndjson")
    for mapping, verdict in (([], "not_affected"), (["model=nope"], "not_assessable")):
        local = scope_run([str(log)], preset="canonical", mapping=mapping).result
        con = duckdb.connect()
        lines_view(con, log)
        out = tmp_path / "result.parquet"
        query = emit_sql("duckdb", preset="canonical", mapping=mapping)
        con.execute(f"COPY ({query.sql}) TO '{out}' (FORMAT parquet)")
        engine = scope_engine_run(out, preset="canonical", mapping=mapping).result
        assert engine.verdict == local.verdict == verdict
        # the local run adds what the reading report found (no path held the model)
        reasons = local.assessment.reasons
        assert engine.assessment == local.assessment.model_copy(
            update={"reasons": reasons[: len(engine.assessment.reasons)]}
        )
        assert reasons[1:] == (
            [f"{log}: no model at any of its paths (nope) with preset canonical"] if mapping else []
        )


def test_no_request_naming_the_model_lists_the_models_seen(tmp_path: Path, run_cli: Any) -> None:
    """A spelling the filter does not know looks exactly like a model never used."""
    records = [_record(n, "glm53-fp8-internal") for n in range(5)]
    records += [_record(n, "gpt-4o") for n in range(5, 7)]
    log = write(tmp_path / "l.ndjson", records, "ndjson")
    out = tmp_path / "o.json"
    result = run_cli("scope", str(log), "--json", str(out))
    assert result.exit_code == 2
    document = json.loads(out.read_text())
    assert document["verdict"] == "not_assessable"
    assert document["assessment"]["models_seen"] == [
        {"model": "glm53-fp8-internal", "requests": 5},
        {"model": "gpt-4o", "requests": 2},
    ]
    assert (
        "no request names glm-5.3 although 7 name a model" in document["assessment"]["reasons"][0]
    )
    assert "Models seen" in result.stderr and "glm53-fp8-internal" in result.stderr
    assert "verdict: NOT ASSESSABLE" in result.stderr
    named = run_cli("scope", str(log), "--model", "glm53-fp8-internal")
    assert named.exit_code == 0 and "verdict: not affected" in named.stdout


@pytest.mark.parametrize(("with_model", "verdict"), [(9, "not_affected"), (8, "not_assessable")])
def test_the_model_must_read_in_the_documented_share(
    tmp_path: Path, with_model: int, verdict: str
) -> None:
    assert MIN_FIELD_SHARE == 0.9
    records = [_record(n, "glm-5.3" if n < with_model else None) for n in range(10)]
    result = scope([write(tmp_path / "l.ndjson", records, "ndjson")])
    assert result.verdict == verdict
    assert result.assessment.model_read == with_model


@pytest.mark.parametrize(("junk", "verdict"), [(10, "not_affected"), (11, "not_assessable")])
def test_most_records_skipped_is_not_assessable(tmp_path: Path, junk: int, verdict: str) -> None:
    """Junk lines with no timestamp count against the timestamp share as well: 10 good records
    and 1 junk line is 91% read."""
    assert MAX_SKIPPED_SHARE == 0.5
    log = tmp_path / "l.ndjson"
    log.write_bytes(ndjson([*CLEAN, *["{not json"] * junk]))
    result = scope([log])
    assert result.counts.records_skipped == junk
    assert result.verdict == verdict
    if verdict == "not_assessable":
        assert result.assessment.reasons[0].startswith(f"{junk} of {junk + 10} records (52%)")


def test_a_few_skipped_timestamps_keep_the_verdict(tmp_path: Path) -> None:
    records = [*CLEAN, {**_record(99), "timestamp": None}]
    result = scope([write(tmp_path / "l.ndjson", records, "ndjson")])
    assert result.assessment.request_records == 11 and result.assessment.timestamp_read == 10
    assert result.verdict == "not_affected"
    worse = [*CLEAN, *({**_record(99), "timestamp": None} for _ in range(2))]
    assert scope([write(tmp_path / "m.ndjson", worse, "ndjson")]).verdict == "not_assessable"


def test_affected_stays_affected_with_the_caveats_listed(tmp_path: Path) -> None:
    records = [_record(0, tokens=700_000), *(_record(n, None) for n in range(1, 4))]
    result = scope([write(tmp_path / "l.ndjson", records, "ndjson")])
    assert (result.verdict, result.exit_code) == ("affected", 1)
    assert result.assessment.reasons == [
        "the model was read in 1 of 4 requests (25%; at least 90% needed)"
    ]


def test_the_python_api_raises_rather_than_return_an_all_clear(tmp_path: Path) -> None:
    log = write(tmp_path / "l.ndjson", CLEAN, "ndjson")
    assert scope_logs([log], preset="canonical").verdict == "not_affected"
    with pytest.raises(NotAssessable, match="the model was read in 0 of 10") as caught:
        scope_logs([log], preset="canonical", mapping={"model": "nope"})
    assert caught.value.result.verdict == "not_assessable"
    assert caught.value.result.exit_code == 2
