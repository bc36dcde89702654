"""The lab's prefix cache: who reuses whose pages, modelled latency, cached_tokens on the wire."""

from __future__ import annotations

import json

import httpx
import pytest

from assess.lab.engine import LabConfig, LabEngine
from assess.lab.prefix_cache import LatencyModel, PrefixCache
from assess.lab.server import make_lab_server, run_lab_server

WORDS = [f"w{i}" for i in range(64)]  # 64 tokens = 4 pages of 16
OTHER = [*WORDS[:48], *(f"x{i}" for i in range(16))]  # shares 3 leading pages
NO_NOISE = LatencyModel(base_ms=2.0, per_token_ms=0.5, noise_ms=0.0)


def _cache(mode: str) -> PrefixCache:
    return PrefixCache(mode, 16, NO_NOISE)  # type: ignore[arg-type]


def test_shared_cache_reuses_another_tenants_prefix_and_is_faster() -> None:
    cache = _cache("shared")
    first = cache.admit("t-a", WORDS)
    second = cache.admit("t-b", OTHER)
    assert (first.cached_tokens, first.delay_ms) == (0, 2.0 + 0.5 * 64)
    assert (second.cached_tokens, second.delay_ms) == (48, 2.0 + 0.5 * 16)


def test_per_key_cache_reuses_only_within_a_key() -> None:
    cache = _cache("per-key")
    cache.admit("t-a", WORDS)
    assert cache.admit("t-b", OTHER).cached_tokens == 0
    assert cache.admit("t-a", OTHER).cached_tokens == 48


def test_off_never_reuses_and_a_partial_page_is_never_cached() -> None:
    off = _cache("off")
    off.admit("t-a", WORDS)
    assert off.admit("t-a", WORDS).cached_tokens == 0
    shared = _cache("shared")
    shared.admit("t-a", WORDS[:15])
    assert shared.admit("t-a", WORDS[:15]).cached_tokens == 0


def test_a_differing_first_page_breaks_the_chain() -> None:
    cache = _cache("shared")
    cache.admit("t-a", WORDS)
    assert cache.admit("t-a", ["zz", *WORDS[1:]]).cached_tokens == 0


def test_noise_is_seeded_and_bounded() -> None:
    model = LatencyModel(base_ms=1.0, per_token_ms=0.0, noise_ms=3.0, seed=7)
    runs = [[c.admit("t", WORDS).delay_ms for _ in range(5)]
            for c in (PrefixCache("off", 16, model), PrefixCache("off", 16, model))]  # fmt: skip
    assert runs[0] == runs[1]
    cache = PrefixCache("off", 16, model)
    delays = [cache.admit("t", WORDS).delay_ms for _ in range(50)]
    assert all(1.0 <= d <= 4.0 for d in delays)
    assert len(set(delays)) > 40


def test_bad_mode_and_negative_latency_are_refused() -> None:
    with pytest.raises(ValueError, match="prefix cache mode"):
        PrefixCache("sometimes", 16, NO_NOISE)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=">= 0 ms"):
        LatencyModel(per_token_ms=-1)


def test_engine_without_a_cache_keeps_todays_behaviour() -> None:
    done = LabEngine(LabConfig()).complete("t-a", " ".join(WORDS[:10]))
    assert (done.cached_tokens, done.delay_ms) == (None, 0.0)


def _post(base: str, key: str, words: list[str], stream: bool) -> httpx.Response:
    return httpx.post(
        f"{base}/chat/completions",
        headers={"Authorization": f"Bearer {key}"},
        json={
            "model": "lab-glm-5.3",
            "messages": [{"role": "user", "content": " ".join(words)}],
            "max_tokens": 1,
            "stream": stream,
        },
    )


def test_server_reports_cached_tokens_and_waits_the_modelled_time() -> None:
    config = LabConfig(
        pool_tokens=256, prefix_cache="shared", latency=NO_NOISE, report_cached_tokens=True
    )
    server = make_lab_server(config)
    waits: list[float] = []
    server.sleep = waits.append  # no real sleeping: record what the lab would wait
    import threading

    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        base = server.base_url
        first = _post(base, "key-a", WORDS, stream=False).json()
        assert first["usage"]["prompt_tokens_details"] == {"cached_tokens": 0}
        streamed = _post(base, "key-b", OTHER, stream=True).text
        usage = [json.loads(line[5:])["usage"] for line in streamed.splitlines()
                 if line.startswith("data: {") and '"usage"' in line]  # fmt: skip
        assert usage[-1]["prompt_tokens_details"] == {"cached_tokens": 48}
    finally:
        server.shutdown()
        server.server_close()
    assert waits == [(2.0 + 0.5 * 64) / 1000, (2.0 + 0.5 * 16) / 1000]


def test_cached_tokens_are_not_reported_unless_asked() -> None:
    config = LabConfig(pool_tokens=256, prefix_cache="shared", latency=NO_NOISE)
    with run_lab_server(config) as base:
        body = _post(base, "key-a", WORDS, stream=False).json()
    assert "prompt_tokens_details" not in body["usage"]


def test_cli_refuses_an_unknown_cache_mode_and_negative_latency(run_cli: object) -> None:
    result = run_cli("lab", "serve", "--prefix-cache", "sometimes")  # type: ignore[operator]
    assert result.exit_code == 2
    assert "--prefix-cache 'sometimes': not one of shared, per-key, off" in result.stderr
    result = run_cli("lab", "serve", "--prefix-cache", "off", "--noise-ms", "-1")  # type: ignore[operator]
    assert result.exit_code == 2
    assert ">= 0 ms" in result.stderr
