"""Issue 40 acceptance defect 2 over real HTTP (fix40 tested it only in process): a proxy on
127.0.0.1 in front of a lab with a *shared* prefix cache answers every request carrying B's key
with HTTP 400, as acc40's bfail.py did. Those answers are errors, never timing samples: the
audit is inconclusive (exit 2), never `not-shared`, through both transports."""

from __future__ import annotations

import httpx
import pytest

from assess.lab.engine import LabConfig
from assess.lab.server import run_lab_server
from assess.probe.cache import CacheConfig
from assess.probe.cache_api import EXIT_CODES, cache_setup, run_cache_probe
from tests.probe.conftest import KEY_A, KEY_B
from tests.probe.servers import Reply, json_reply, request_headers, scripted_server
from tests.probe.test_cache_probe import FAST


@pytest.mark.parametrize("transport", ["httpx", "openai"])
def test_http_400_for_b_over_loopback_is_inconclusive_not_shared(
    transport: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if transport == "openai":
        pytest.importorskip("openai")
    monkeypatch.setenv("TEST_KEY_A", KEY_A)
    monkeypatch.setenv("TEST_KEY_B", KEY_B)
    lab_config = LabConfig(pool_tokens=4096, context_tokens=4096, prefix_cache="shared",
                           latency=FAST, report_cached_tokens=True)  # fmt: skip
    with run_lab_server(lab_config) as lab, httpx.Client(base_url=lab) as client:

        def proxy(method: str, path: str, body: dict[str, object]) -> Reply:
            auth = request_headers().get("authorization", "")
            if auth == f"Bearer {KEY_B}":
                error = {"error": {"message": "model_not_found", "type": "invalid_request"}}
                return json_reply(400, error)
            resp = client.request(method, path.removeprefix("/v1"), json=body or None,
                                  headers={"Authorization": auth})  # fmt: skip
            return resp.status_code, {"Content-Type": "application/json"}, resp.content

        with scripted_server(proxy, echo=False) as base_url:
            config = CacheConfig(base_url, "lab-glm-5.3", samples=16, prompt_tokens=200,
                                 seed=11, stream=False, transport=transport,
                                 max_errors=1000)  # fmt: skip
            config, levels = cache_setup(config, "TEST_KEY_A", "TEST_KEY_B", None)
            result = run_cache_probe(config, levels)

    control, other = result.levels
    assert control.caching_visible and not control.inconclusive_reason  # the lab is reached
    assert other.hit_ms == [] and other.miss_ms == []
    assert (other.inconclusive_reason or "").startswith("only 0 valid hits and 0 valid misses")
    assert result.verdict == "inconclusive" and EXIT_CODES[result.verdict] == 2
    assert not result.complete
    rejected = [e for e in result.errors if e.level == "other-organisation"]
    assert len(rejected) == 32 and {(e.status, e.kind) for e in rejected} == {(400, "rejected")}
    assert KEY_B not in result.model_dump_json()
