"""Kong AI Gateway file-log / http-log entries (samples/logs/kong-file-log.ndjson, built from
kong/pdk/log.lua's serializer and the AI plugins' three generations of the `ai` object; hand
counts in tests/presets/expected/kong-ai-gateway.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assess.kernel.errors import UsageError
from assess.scope.api import emit_sql, scope_run
from tests.scope.helpers import conserved

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "logs" / "kong-file-log.ndjson"
EXPECTED = json.loads(
    (
        Path(__file__).resolve().parents[1] / "presets" / "expected" / "kong-ai-gateway.json"
    ).read_text()
)


@pytest.mark.parametrize("preset", ["auto", "kong-ai-gateway"])
def test_the_sample_by_detection_and_by_id(preset: str) -> None:
    result = scope_run([str(SAMPLE)], preset=preset, served_by="workers-ai").result
    conserved(result)
    assert result.preset == "kong-ai-gateway"
    assert result.counts.model_dump() == EXPECTED["counts"]
    assert result.affected.request_ids == EXPECTED["affected"]["request_ids"]
    assert result.possibly_affected.status == {"500": 1}


def test_an_http_log_batch_reads_the_same_entries(tmp_path: Path) -> None:
    """http-log with queue batching posts a JSON array of the same objects."""
    entries = [json.loads(line) for line in SAMPLE.read_text().splitlines()[:-1]]
    path = tmp_path / "http-log-batch.json"
    path.write_text(json.dumps(entries))
    result = scope_run([str(path)], served_by="workers-ai").result
    conserved(result)
    assert result.preset == "kong-ai-gateway"
    assert result.counts.over_threshold == EXPECTED["counts"]["over_threshold"]
    assert result.counts.records_skipped == 0


def test_explain_names_each_generation_s_path(run_cli: Any) -> None:
    result = run_cli("scope", str(SAMPLE), "--served-by", "workers-ai", "--explain", "--json", "-")
    (reading,) = json.loads(result.stdout)["reading"]
    fields = {f["field"]: f for f in reading["fields"]}
    assert fields["prompt_tokens"]["by_path"] == {
        "ai.proxy.usage.prompt_tokens": 5,  # k01 k05 k07 k08 k09 (k06 has none)
        "ai.*.usage.prompt_token": 1,  # k02, Kong 3.8
        "ai.*.instances.0.usage.prompt_token": 1,  # k03, Kong 3.6
    }
    assert fields["account_id"]["by_path"] == {"consumer.username": 6, "consumer.custom_id": 1}


def test_emit_sql_refuses_the_any_key_path() -> None:
    with pytest.raises(UsageError, match=r"any key \(\*\)"):
        emit_sql("duckdb", preset="kong-ai-gateway")
