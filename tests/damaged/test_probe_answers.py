"""Issue 36, item 1: an answer that could not have carried a marker is not a probe.

Before the fix, an endpoint answering every request with an empty SSE stream, a stream of
``data: {"error": ...}`` events, ``{"choices": []}`` or empty content gave "No leak found in N
probes ... below X%", exit 0: nothing had been tested. Now such answers are recorded
(``carries_text: false``, an ``empty_answer`` error) and not counted; without enough answers that
could have shown a marker the verdict is inconclusive, exit 2, and --json/--junit still say so.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.probe.conftest import keys, probe
from tests.probe.servers import Reply, completion, json_reply, scripted_server

__all__ = ["keys", "probe"]  # the probe fixtures, shared with tests/probe

MODELS = {"object": "list", "data": [{"id": "lab-glm-5.3"}]}
SSE = {"Content-Type": "text/event-stream"}


def _sse(*events: str) -> bytes:
    return "".join(f"data: {e}\n\n" for e in events).encode()


EMPTY_ANSWERS: dict[str, tuple[Reply, Reply]] = {
    # (non-streamed answer, streamed answer)
    "empty stream": (json_reply(200, completion("")), (200, SSE, _sse("[DONE]"))),
    "error events only": (
        json_reply(200, {"choices": []}),
        (200, SSE, _sse('{"error": {"message": "overloaded"}}', "[DONE]")),
    ),
    "no choices": (json_reply(200, {"choices": []}), (200, SSE, _sse('{"choices": []}'))),
    "empty content": (
        json_reply(200, completion("   ")),
        (200, SSE, _sse('{"choices": [{"delta": {"content": ""}}]}', "[DONE]")),
    ),
}


def _script(answer: Callable[[int], tuple[Reply, Reply]]) -> Any:
    count = [0]

    def script(method: str, path: str, body: dict[str, Any]) -> Reply:
        if method == "GET":
            return json_reply(200, MODELS)
        count[0] += 1
        plain, streamed = answer(count[0])
        return streamed if body.get("stream") else plain

    return script


@pytest.mark.parametrize("transport", ["httpx", "openai"])
@pytest.mark.parametrize("case", sorted(EMPTY_ANSWERS))
def test_answers_without_text_are_not_probes(
    probe: Callable[..., Any], tmp_path: Path, case: str, transport: str
) -> None:
    out, junit = tmp_path / "p.json", tmp_path / "p.xml"
    # every answer empty, the echo control's too
    with scripted_server(_script(lambda n: EMPTY_ANSWERS[case]), echo=False) as base:
        result = probe(
            base,
            "--rounds",
            "3",
            "--max-errors",
            "100",
            "--json",
            str(out),
            "--junit",
            str(junit),
            transport=transport,
        )
    assert result.exit_code == 2, result.output
    assert "No leak found" not in result.output
    assert "INCONCLUSIVE" in result.stderr
    doc = json.loads(out.read_text())
    assert doc["verdict"] == "inconclusive" and doc["leak_found"] is False
    assert doc["stats"]["probes"] == 0 and doc["stats"]["leak_rate_upper_95"] is None
    assert all(r["carries_text"] is False for r in doc["requests"])
    # every probe and follow-up answer is counted as unusable, on either transport (acc36 m4)
    asked = [r for r in doc["requests"] if r["role"] in ("probe", "followup")]
    assert len(asked) == 15 and doc["stats"]["unusable"] == len(asked)
    assert "none of the probe answers could be scanned: 15 held no text" in result.stderr
    assert not doc["markers"]  # an empty answer to the plant: never shown to be in the cache
    assert "nothing scanned" in junit.read_text() or "INCONCLUSIVE" in junit.read_text()


def test_most_answers_empty_is_inconclusive(probe: Callable[..., Any], tmp_path: Path) -> None:
    """Plants answered, one probe answer in four with text: too few to bound a leak rate."""

    def answer(n: int) -> tuple[Reply, Reply]:
        if n % 6 in (1, 0, 2):  # each round's plant, follow-up and one probe: text
            return json_reply(200, completion("noted")), (200, SSE, _sse(_delta("noted")))
        return EMPTY_ANSWERS["no choices"]

    out = tmp_path / "p.json"
    with scripted_server(_script(answer)) as base:
        result = probe(base, "--rounds", "3", "--max-errors", "100", "--json", str(out))
    doc = json.loads(out.read_text())
    assert result.exit_code == 2, result.output
    assert doc["verdict"] == "inconclusive"
    assert doc["stats"]["unusable"] > doc["stats"]["probes"] > 0
    assert "INCONCLUSIVE: only" in result.stderr


def test_a_few_empty_answers_still_bound_the_rate(
    probe: Callable[..., Any], tmp_path: Path
) -> None:
    """The control: most answers hold text, so the clean verdict stands (exit 0)."""

    def answer(n: int) -> tuple[Reply, Reply]:
        if n == 3:
            return EMPTY_ANSWERS["empty content"]
        return json_reply(200, completion("noted")), (200, SSE, _sse(_delta("noted")))

    out = tmp_path / "p.json"
    with scripted_server(_script(answer)) as base:
        result = probe(base, "--rounds", "3", "--json", str(out))
    doc = json.loads(out.read_text())
    assert result.exit_code == 0, result.output
    assert doc["verdict"] == "no-leak" and doc["stats"]["unusable"] == 1
    assert "No leak found" in result.output


def _delta(text: str) -> str:
    return json.dumps({"choices": [{"delta": {"content": text}}]})
