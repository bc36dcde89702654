"""Issue 40 acceptance (acc40b) defect 1: a proxy on 127.0.0.1 in front of a lab with a *shared*
prefix cache answers B's requests with HTTP 200 and nothing in them, as acc40b's proxy.py did
(``bsseempty``: ``data: [DONE]`` only; ``bsseerr``: only ``data: {"error": ...}`` events, the
way a streaming server reports a failure after its headers are sent; ``b200empty``:
``{"choices": []}``). Such an answer served no prompt: it is not a timing sample, the level has
no data and the audit is inconclusive (exit 2), never `not-shared`; defect 2: the summary names
the level whose requests failed, not the control."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from assess.lab.engine import LabConfig
from assess.lab.server import run_lab_server
from assess.probe.cache import CacheConfig
from assess.probe.cache_api import EXIT_CODES, cache_setup, run_cache_probe
from assess.probe.cache_models import CacheProbeResult
from tests.probe.conftest import KEY_A, KEY_B
from tests.probe.servers import Reply, json_reply, request_headers, scripted_server
from tests.probe.test_cache_probe import FAST

SSE = {"Content-Type": "text/event-stream"}
EMPTY_FOR_B: dict[str, Reply] = {
    "sse-done-only": (200, SSE, b"data: [DONE]\n\n"),
    "sse-error-only": (
        200, SSE, b'data: {"error": {"message": "overloaded"}}\n\ndata: [DONE]\n\n'
    ),
    "no-choices": json_reply(200, {"id": "x", "object": "chat.completion",
                                   "model": "lab-glm-5.3", "choices": []}),
}  # fmt: skip
REJECTED: Reply = json_reply(400, {"error": {"message": "model_not_found"}})


@contextmanager
def proxy_for_b(answer_b: Reply) -> Iterator[str]:
    """Yield the /v1 URL of a proxy in front of a shared-cache lab that answers B's requests
    with ``answer_b`` and forwards everyone else's (stream or not) unchanged."""
    lab_config = LabConfig(pool_tokens=4096, context_tokens=4096, prefix_cache="shared",
                           latency=FAST, report_cached_tokens=True)  # fmt: skip
    with run_lab_server(lab_config) as lab, httpx.Client(base_url=lab) as client:

        def proxy(method: str, path: str, body: dict[str, object]) -> Reply:
            auth = request_headers().get("authorization", "")
            if auth == f"Bearer {KEY_B}":
                return answer_b
            resp = client.request(method, path.removeprefix("/v1"), json=body or None,
                                  headers={"Authorization": auth})  # fmt: skip
            ctype = resp.headers.get("content-type", "application/json")
            return resp.status_code, {"Content-Type": ctype}, resp.content

        with scripted_server(proxy, echo=False) as base_url:
            yield base_url


def audit(base_url: str, transport: str, stream: bool, max_errors: int) -> CacheProbeResult:
    config = CacheConfig(base_url, "lab-glm-5.3", samples=16, prompt_tokens=200, seed=11,
                         stream=stream, transport=transport, max_errors=max_errors)  # fmt: skip
    config, levels = cache_setup(config, "TEST_KEY_A", "TEST_KEY_B", None)
    return run_cache_probe(config, levels)


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_KEY_A", KEY_A)
    monkeypatch.setenv("TEST_KEY_B", KEY_B)


@pytest.mark.usefixtures("keys")
@pytest.mark.parametrize("transport", ["httpx", "openai"])
@pytest.mark.parametrize(
    ("mode", "stream"),
    [("sse-done-only", True), ("sse-error-only", True), ("no-choices", False),
     ("no-choices", True)],
)  # fmt: skip
def test_empty_200_answers_for_b_are_not_samples(mode: str, stream: bool, transport: str) -> None:
    if transport == "openai":
        pytest.importorskip("openai")
    with proxy_for_b(EMPTY_FOR_B[mode]) as base_url:
        result = audit(base_url, transport, stream, max_errors=1000)
    control, other = result.levels
    assert control.caching_visible and not control.inconclusive_reason  # the lab is reached
    assert other.hit_ms == [] and other.miss_ms == [] and not other.caching_visible
    assert other.unusable == other.failed_requests == 32
    assert (other.inconclusive_reason or "").startswith(
        "only 0 valid hits and 0 valid misses (32 of its requests gave no sample, 32 of them "
        "HTTP 2xx with no content"
    )
    assert result.verdict == "inconclusive" and EXIT_CODES[result.verdict] == 2
    assert result.summary.endswith(
        f"INCONCLUSIVE: level other-organisation: {other.inconclusive_reason}"
    )
    empty = [e for e in result.errors if e.level == "other-organisation"]
    assert len(empty) == 32 and {(e.status, e.kind) for e in empty} == {(200, "empty_answer")}
    assert KEY_B not in result.model_dump_json()


@pytest.mark.usefixtures("keys")
@pytest.mark.parametrize("answer_b", [REJECTED, EMPTY_FOR_B["no-choices"]], ids=["400", "empty"])
def test_stopped_run_blames_the_level_whose_requests_failed(answer_b: Reply) -> None:
    """acc40b defect 2: --max-errors stops the run early, so every level has too few samples;
    the summary must point at B's failed requests, not at the same-account control."""
    with proxy_for_b(answer_b) as base_url:
        result = audit(base_url, "httpx", stream=False, max_errors=5)
    assert not result.complete and result.verdict == "inconclusive"
    assert "INCONCLUSIVE: level other-organisation: only 0 valid hits" in result.summary
    assert "5 of its requests gave no sample" in result.summary
    other = next(lv for lv in result.levels if lv.level == "other-organisation")
    assert other.failed_requests == 5


def test_an_answer_that_ran_the_model_is_served_even_without_text() -> None:
    """max_tokens is 1: the one token may be whitespace or end-of-text (llama.cpp's server with a
    random-weight model answers ``content: ""`` with ``finish_reason: stop``); usage counting
    tokens or a finished choice shows the prompt was served, so it stays a sample."""
    from assess.probe.cache import served
    from assess.probe.transport.interface import ChatResponse

    stop = {"choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "stop"}]}
    assert served(ChatResponse(200, {"content": "\n"}, "", 1.0, 0))
    assert served(ChatResponse(200, {}, json.dumps({"choices": []}), 1.0, 0, 40, 1))
    assert served(ChatResponse(200, {}, f"data: {json.dumps(stop)}\n\ndata: [DONE]", 1.0, 0))
    assert not served(ChatResponse(200, {}, "data: [DONE]", 1.0, 0))
    assert not served(ChatResponse(200, {}, json.dumps({"choices": []}), 1.0, 0))
    error_only = 'data: {"error": {"message": "overloaded"}}\n\ndata: [DONE]'
    assert not served(ChatResponse(200, {}, error_only, 1.0, 0))
