"""OpenTelemetry GenAI spans as OTLP JSON (samples/logs/otel-genai.jsonl, built from the OTLP File
Exporter spec and the GenAI conventions; hand counts in tests/presets/expected/otel-genai.json):
every form a TracesData is saved in reads to the same spans, resource attributes are readable,
and `--explain` shows the paths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assess.scope.api import scope_run
from tests.scope.helpers import conserved

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "logs" / "otel-genai.jsonl"
EXPECTED = json.loads(
    (Path(__file__).resolve().parents[1] / "presets" / "expected" / "otel-genai.json").read_text()
)


def _batches() -> list[dict[str, Any]]:
    """The sample's whole TracesData lines (the cut third line left out)."""
    lines = SAMPLE.read_text().splitlines()
    return [json.loads(line) for line in lines[:2]]


def _minus_skipped(counts: dict[str, int]) -> dict[str, int]:
    return {**counts, "records_read": counts["records_read"] - 1, "records_skipped": 0}


@pytest.mark.parametrize("preset", ["auto", "otel-genai"])
def test_the_sample_by_detection_and_by_id(preset: str) -> None:
    result = scope_run([str(SAMPLE)], preset=preset, served_by="workers-ai").result
    conserved(result)
    assert result.preset == "otel-genai"
    assert result.counts.model_dump() == EXPECTED["counts"]
    assert result.affected.request_ids == EXPECTED["affected"]["request_ids"]
    assert result.breakdown.non_request_reasons == {
        "GenAI span that is not a model call (tool, agent, workflow or embeddings)": 2,
        "OpenLLMetry workflow, task, agent or tool span, not a model call": 1,
        "span without gen_ai.request.model (HTTP, database or other non-model span)": 1,
    }
    assert result.possibly_affected.status == {"2": 1}  # the failed call, status code ERROR
    assert result.verdict == "affected"


@pytest.mark.parametrize("form", ["array", "document", "jsonl.gz"])
def test_every_form_of_a_traces_data_reads_the_same_spans(tmp_path: Path, form: str) -> None:
    import gzip

    batches = _batches()
    if form == "array":
        path = tmp_path / "spans.json"
        path.write_text(json.dumps(batches))
    elif form == "document":  # one OTLP/HTTP JSON body, pretty-printed: both batches' resources
        path = tmp_path / "body.json"
        merged = {"resourceSpans": [g for b in batches for g in b["resourceSpans"]]}
        path.write_text(json.dumps(merged, indent=2))
    else:
        path = tmp_path / "spans.jsonl.gz"
        path.write_bytes(gzip.compress(b"".join(json.dumps(b).encode() + b"\n" for b in batches)))
    result = scope_run([str(path)], served_by="workers-ai").result
    conserved(result)
    assert result.preset == "otel-genai"
    assert result.counts.model_dump() == _minus_skipped(EXPECTED["counts"])
    assert sorted(result.affected.request_ids) == sorted(EXPECTED["affected"]["request_ids"])


def test_resource_attributes_are_readable() -> None:
    result = scope_run(
        [str(SAMPLE)],
        mapping={"account_id": "resource.attributes.service.name"},
        served_by="workers-ai",
    ).result
    assert [(a.account_id, a.requests) for a in result.affected.accounts] == [("chat-api", 4)]
    assert result.disclosed.accounts == 1  # batch-worker (s06, s07); chat-api's were over
    assert result.disclosed.unattributed == 0


def test_int64_as_numbers_and_the_older_conventions_alone(tmp_path: Path) -> None:
    """Some exporters write intValue as a JSON number; an old instrumentation writes only
    gen_ai.system and gen_ai.usage.prompt_tokens."""
    span = {
        "traceId": "0af7651916cd43dd8448eb211c80319c",
        "spanId": "b7ad6b7169203331",
        "startTimeUnixNano": 1788256800000000000,
        "attributes": [
            {"key": "gen_ai.system", "value": {"stringValue": "openai"}},
            {"key": "gen_ai.request.model", "value": {"stringValue": "glm-5.3"}},
            {"key": "gen_ai.usage.prompt_tokens", "value": {"intValue": 700000}},
        ],
    }
    path = tmp_path / "old.jsonl"
    body = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": [span]}]}]}
    path.write_text(json.dumps(body) + "\n")
    result = scope_run([str(path)], served_by="workers-ai").result
    assert result.preset == "otel-genai"
    assert result.affected.request_ids == ["b7ad6b7169203331"]  # no response id: the span id
    assert result.counts.over_threshold == 1  # 700,000 read
    assert result.disclosed.prompt_tokens_total == 0  # over the trigger: not a source


def test_parallel_jobs_read_spans_as_serial(tmp_path: Path) -> None:
    logs = []
    for n in range(2):
        path = tmp_path / f"spans-{n}.jsonl"
        # a blank line per copy keeps the two files distinct inputs (identical ones are read once)
        path.write_bytes(SAMPLE.read_bytes() + b"\n" * (n + 1))
        logs.append(str(path))
    serial = scope_run(logs, jobs=1, served_by="workers-ai").result
    both = scope_run(logs, jobs=2, served_by="workers-ai").result
    assert both.counts == serial.counts
    # the copies hold the same spans: each request is counted once, its repeats said so
    assert both.counts.over_threshold == EXPECTED["counts"]["over_threshold"]
    assert both.duplicates == serial.duplicates
    assert both.duplicates.requests == EXPECTED["counts"]["in_window"]
    assert both.affected.request_ids == serial.affected.request_ids


def test_explain_shows_the_attribute_paths(run_cli: Any) -> None:
    result = run_cli("scope", str(SAMPLE), "--served-by", "workers-ai", "--explain", "--json", "-")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    (reading,) = document["reading"]
    assert reading["preset"] == "otel-genai" and reading["chosen_by"] == "auto"
    fields = {f["field"]: f for f in reading["fields"]}
    assert fields["model"]["source"] == "attributes.gen_ai.request.model"
    assert fields["prompt_tokens"]["by_path"] == {
        "attributes.gen_ai.usage.input_tokens": 5,  # s01 s06 s08 s09 s12
        "attributes.gen_ai.usage.prompt_tokens": 2,
    }
    assert fields["account_id"]["by_path"] == {
        "attributes.user.id": 6,
        "attributes.traceloop.association.properties.user_id": 1,
    }
    assert "preset otel-genai" in result.stderr
    assert "attributes.gen_ai.request.model" in result.stderr


def test_emit_sql_refuses_otlp_spans_it_cannot_see(run_cli: Any) -> None:
    """One SQL row per line would see a TracesData, not its spans: the emission refuses, by
    auto-detection and by preset id, instead of writing a query that reads no request."""
    for args in (
        ["--emit-sql", "duckdb", str(SAMPLE)],
        ["--emit-sql", "spark", "--preset", "otel-genai"],
    ):
        result = run_cli("scope", *args)
        assert result.exit_code == 2
        assert "--emit-sql: preset otel-genai: a line holds a TracesData" in result.output
