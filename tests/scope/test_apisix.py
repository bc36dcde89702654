"""Apache APISIX ai-proxy entries (samples/logs/apisix-ai-proxy.ndjson, built from log-util.lua's
full log and ai-proxy's llm_summary in its two generations; hand counts in
tests/presets/expected/apisix-ai-proxy.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assess.scope.api import scope_run
from tests.scope.helpers import conserved

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "logs" / "apisix-ai-proxy.ndjson"
EXPECTED = json.loads(
    (
        Path(__file__).resolve().parents[1] / "presets" / "expected" / "apisix-ai-proxy.json"
    ).read_text()
)


def _entries() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SAMPLE.read_text().splitlines()[:-1]]


@pytest.mark.parametrize("preset", ["auto", "apisix-ai-proxy"])
def test_the_sample_by_detection_and_by_id(preset: str) -> None:
    # the preset maps no provider field: the served-by statement binds the entries
    result = scope_run([str(SAMPLE)], preset=preset, served_by="workers-ai").result
    conserved(result)
    assert result.preset == "apisix-ai-proxy"
    assert result.counts.model_dump() == EXPECTED["counts"]
    assert result.affected.request_ids == EXPECTED["affected"]["request_ids"]
    # the end user wins over the consumer (a01's consumer is a team key)
    assert [a.account_id for a in result.affected.accounts] == ["acct-a", "acct-b"]
    # the 429 was refused before inference: neither possibly affected nor a source
    assert result.breakdown.by_verdict["rejected_before_inference"] == 1


def test_an_http_logger_batch_reads_the_same_entries(tmp_path: Path) -> None:
    path = tmp_path / "batch.json"
    path.write_text(json.dumps(_entries()))
    result = scope_run([str(path)]).result
    conserved(result)
    assert result.preset == "apisix-ai-proxy"
    assert result.counts.over_threshold == EXPECTED["counts"]["over_threshold"]


def test_summaries_off_back_no_verdict(tmp_path: Path) -> None:
    """With logging.summaries off nothing says which model a request went to: every entry is a
    non-request, and the run is not assessable rather than 'not affected'."""
    path = tmp_path / "no-summaries.ndjson"
    entries = [{k: v for k, v in e.items() if k != "llm_summary"} for e in _entries()]
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    result = scope_run([str(path)], preset="apisix-ai-proxy").result
    assert result.breakdown.requests == 0
    assert (result.verdict, result.exit_code) == ("not_assessable", 2)


def test_explain_shows_the_end_user_before_the_consumer(run_cli: Any) -> None:
    result = run_cli("scope", str(SAMPLE), "--explain", "--json", "-")
    (reading,) = json.loads(result.stdout)["reading"]
    fields = {f["field"]: f for f in reading["fields"]}
    assert fields["account_id"]["by_path"] == {
        "llm_summary.end_user_id": 5,  # a01 a04 a05 a06 a07
        "consumer.username": 1,  # a02
    }
    assert fields["model"]["source"] == "llm_summary.model"
