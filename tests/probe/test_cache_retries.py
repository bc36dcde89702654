"""Issue 40 acceptance defect 4: a request retried after HTTP 429 is timed from its last attempt
(the Retry-After wait is no part of the sample), and the evidence says how often each sample and
each level was retried. A loopback server answers every fourth request with 429 Retry-After: 1;
the transports' clock and sleep are one fake clock, so the wait costs no real time but moves
the clock the transport reads by a whole second."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from assess.cli.probe_cache import print_cache
from assess.probe.cache import CacheConfig
from assess.probe.cache_api import cache_setup, run_cache_probe
from assess.probe.run import TRANSPORTS
from assess.probe.transport import httpx_transport, openai_sdk
from tests.probe.conftest import KEY_A, KEY_B
from tests.probe.servers import Reply, completion, json_reply, scripted_server


@dataclass
class FakeClock:
    """Real monotonic time plus every second ``sleep`` was asked to wait (without waiting)."""

    offset: float = 0.0
    waits: list[float] = field(default_factory=list)

    def monotonic(self) -> float:
        return time.monotonic() + self.offset

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.offset += seconds


@dataclass
class EveryFourth429:
    """Answers a completion (with usage, no cached tokens), every fourth chat request a 429."""

    chats: int = 0
    limited: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, method: str, path: str, body: dict[str, Any]) -> Reply:
        with self.lock:
            self.chats += 1
            if self.chats % 4 == 0:
                self.limited += 1
                error = {"error": {"message": "slow down", "type": "rate_limit_exceeded"}}
                return json_reply(429, error, {"Retry-After": "1"})
        usage = {"prompt_tokens": 40, "completion_tokens": 1,
                 "prompt_tokens_details": {"cached_tokens": 0}}  # fmt: skip
        return json_reply(200, {**completion("ok"), "usage": usage})


@pytest.mark.parametrize("name", ["httpx", "openai"])
def test_a_retried_sample_is_timed_without_its_wait_and_counted(
    name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if name == "openai":
        pytest.importorskip("openai")
    clock = FakeClock()
    module = httpx_transport if name == "httpx" else openai_sdk
    monkeypatch.setattr(module, "time", SimpleNamespace(monotonic=clock.monotonic))
    build = httpx_transport.HttpxTransport if name == "httpx" else openai_sdk.OpenAITransport

    def factory(url: str, key: str, timeout: float, retries: int) -> Any:
        return build(url, key, timeout, retries, sleep=clock.sleep)

    monkeypatch.setitem(TRANSPORTS, name, factory)
    monkeypatch.setenv("TEST_KEY_A", KEY_A)
    monkeypatch.setenv("TEST_KEY_B", KEY_B)
    server = EveryFourth429()
    with scripted_server(server, echo=False) as base_url:
        config = CacheConfig(base_url, "m", samples=16, prompt_tokens=20, seed=3,
                             stream=False, transport=name)  # fmt: skip
        config, levels = cache_setup(config, "TEST_KEY_A", "TEST_KEY_B", None)
        result = run_cache_probe(config, levels)

    assert result.complete and result.errors == []
    assert server.limited > 0 and clock.waits == [1.0] * server.limited
    assert sum(lv.retries for lv in result.levels) == server.limited
    samples = [
        (ms, tries)
        for lv in result.levels
        for ms, tries in [
            *zip(lv.hit_ms, lv.hit_retries, strict=True),
            *zip(lv.miss_ms, lv.miss_retries, strict=True),
        ]  # fmt: skip
    ]
    retried = [ms for ms, tries in samples if tries]
    assert retried, "some timed sample was retried"
    # the wait moved the transport's clock by 1,000 ms: none of it is in the sample
    assert max(ms for ms, _ in samples) < 500, retried
    document = json.loads(result.model_dump_json())
    level = document["levels"][0]
    assert {"hit_retries", "miss_retries", "retries"} <= set(level)
    assert len(level["hit_retries"]) == len(level["hit_ms"])
    print_cache(result)
    assert f"retries: {server.limited} (HTTP 429/503)" in capsys.readouterr().out
