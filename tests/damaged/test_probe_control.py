"""The probe's echo control (issue 36, item 1, the positive control left open in round three).

Measured before the change: an endpoint answering every request with the same short text
("noted": text, so "at least half of the answered probes hold text" held) gave "No leak found in
N probes", exit 0, though no answer could have carried a marker from another request. Now the
run ends with a control request asking to repeat a random code; without the code in its answer
the verdict is inconclusive (exit 2).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.probe.conftest import fixed_lab, keys, probe
from tests.probe.servers import Reply, completion, json_reply, scripted_server

__all__ = ["fixed_lab", "keys", "probe"]  # fixtures

MODELS = {"object": "list", "data": [{"id": "lab-glm-5.3"}]}
SSE = {"Content-Type": "text/event-stream"}


def _noted(method: str, path: str, body: dict[str, Any]) -> Reply:
    if method == "GET":
        return json_reply(200, MODELS)
    if body.get("stream"):
        chunk = json.dumps({"choices": [{"delta": {"content": "noted"}}]})
        return 200, SSE, f"data: {chunk}\n\ndata: [DONE]\n\n".encode()
    return json_reply(200, completion("noted"))


@pytest.mark.parametrize("transport", ["httpx", "openai"])
def test_answers_that_could_carry_no_marker_are_inconclusive(
    probe: Callable[..., Any], tmp_path: Path, transport: str
) -> None:
    out, junit = tmp_path / "p.json", tmp_path / "p.xml"
    with scripted_server(_noted, echo=False) as base:
        result = probe(
            base, "--rounds", "2", "--json", str(out), "--junit", str(junit), transport=transport
        )
    assert result.exit_code == 2, result.output
    assert "No leak found" not in result.output
    assert "asked to repeat a random code" in result.stderr
    doc = json.loads(out.read_text())
    assert doc["verdict"] == "inconclusive" and doc["stats"]["probes"] > 0
    control = doc["control"]
    assert control["echoed"] is False and control["code"].startswith("echo-")
    (request,) = [r for r in doc["requests"] if r["role"] == "control"]
    assert request["id"] == control["request_id"] and request["account"] == "B"
    assert "inconclusive" in junit.read_text()


def test_the_same_endpoint_repeating_the_code_backs_a_clean_verdict(
    probe: Callable[..., Any], tmp_path: Path
) -> None:
    out = tmp_path / "p.json"
    with scripted_server(_noted, echo=True) as base:
        result = probe(base, "--rounds", "2", "--json", str(out))
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["verdict"] == "no-leak" and doc["control"]["echoed"] is True


def test_the_fixed_lab_passes_its_own_control(
    probe: Callable[..., Any], fixed_lab: str, tmp_path: Path
) -> None:
    out = tmp_path / "p.json"
    result = probe(fixed_lab, "--rounds", "1", "--json", str(out))
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["control"]["echoed"] is True and doc["verdict"] == "no-leak"
