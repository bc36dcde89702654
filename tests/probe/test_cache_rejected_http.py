"""Issue 40 acceptance defect 2 over real HTTP (fix40 tested it only in process): a proxy on
127.0.0.1 in front of a lab with a *shared* prefix cache answers every request carrying B's key
with HTTP 400, as acc40's bfail.py did. Those answers are errors, never timing samples: the
audit is inconclusive (exit 2), never `not-shared`, through both transports."""

from __future__ import annotations

import pytest

from assess.probe.cache_api import EXIT_CODES
from tests.probe.conftest import KEY_A, KEY_B
from tests.probe.test_cache_empty_answers import REJECTED, audit, proxy_for_b


@pytest.mark.parametrize("transport", ["httpx", "openai"])
def test_http_400_for_b_over_loopback_is_inconclusive_not_shared(
    transport: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if transport == "openai":
        pytest.importorskip("openai")
    monkeypatch.setenv("TEST_KEY_A", KEY_A)
    monkeypatch.setenv("TEST_KEY_B", KEY_B)
    with proxy_for_b(REJECTED) as base_url:
        result = audit(base_url, transport, stream=False, max_errors=1000)

    control, other = result.levels
    assert control.caching_visible and not control.inconclusive_reason  # the lab is reached
    assert other.hit_ms == [] and other.miss_ms == []
    assert (other.inconclusive_reason or "").startswith("only 0 valid hits and 0 valid misses")
    assert result.verdict == "inconclusive" and EXIT_CODES[result.verdict] == 2
    assert not result.complete
    rejected = [e for e in result.errors if e.level == "other-organisation"]
    assert len(rejected) == 32 and {(e.status, e.kind) for e in rejected} == {(400, "rejected")}
    assert other.failed_requests == 32 and other.unusable == 0
    assert KEY_B not in result.model_dump_json()
