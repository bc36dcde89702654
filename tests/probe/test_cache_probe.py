"""`assess probe --mode cache` against the lab's prefix cache, timed by the lab's own latency
model (an in-process transport: no HTTP, no sleeping, no wall clock), and its KS statistic."""

from __future__ import annotations

import json
import random

import pytest
from scipy.stats import ks_2samp

from assess.kernel.errors import UsageError
from assess.lab.engine import LabConfig, LabEngine, tenant_id
from assess.lab.prefix_cache import LatencyModel
from assess.probe.cache import CacheConfig, cached_tokens, hit_pair
from assess.probe.cache_api import EXIT_CODES, cache_setup, run_cache_probe
from assess.probe.cache_models import CacheProbeResult
from assess.probe.ks import ks_less_than, smallest_reachable_p
from assess.probe.run import TRANSPORTS
from assess.probe.transport.interface import ChatRequest, ChatResponse
from tests.probe.conftest import KEY_A, KEY_B

KEY_A2 = "sk-probe-test-A2A2-77aa0c11"
FAST = LatencyModel(base_ms=1.0, per_token_ms=0.1, noise_ms=1.0, seed=3)


class LabTransport:
    """Answers from a LabEngine in process; latency is the engine's modelled delay."""

    def __init__(self, engine: LabEngine, key: str, report: bool) -> None:
        self.engine, self.key, self.report = engine, key, report

    def list_models(self) -> list[str] | None:
        return [self.engine.config.model]

    def chat(self, request: ChatRequest) -> ChatResponse:
        done = self.engine.complete(tenant_id(self.key), request.prompt, request.max_tokens)
        usage: dict[str, object] = {"prompt_tokens": done.prompt_tokens}
        if self.report:
            usage["prompt_tokens_details"] = {"cached_tokens": done.cached_tokens}
        raw = json.dumps({"choices": [{"message": {"content": done.reply}}], "usage": usage})
        return ChatResponse(200, {"content": done.reply}, raw, done.delay_ms, 0)

    def close(self) -> None:
        return None


def _audit(
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    *,
    latency: LatencyModel = FAST,
    report: bool = False,
    same_org: bool = False,
    samples: int = 16,
) -> CacheProbeResult:
    engine = LabEngine(LabConfig(pool_tokens=1024, context_tokens=1024,
                                 prefix_cache=mode, latency=latency))  # type: ignore[arg-type]  # fmt: skip

    def factory(_url: str, key: str, _timeout: float, _retries: int) -> LabTransport:
        return LabTransport(engine, key, report)

    monkeypatch.setitem(TRANSPORTS, "lab", factory)
    monkeypatch.setenv("TEST_KEY_A", KEY_A)
    monkeypatch.setenv("TEST_KEY_B", KEY_B)
    monkeypatch.setenv("TEST_KEY_A2", KEY_A2)
    config = CacheConfig("http://127.0.0.1:9/v1", "lab-glm-5.3", samples=samples,
                         prompt_tokens=200, transport="lab")  # fmt: skip
    config, levels = cache_setup(
        config, "TEST_KEY_A", "TEST_KEY_B", "TEST_KEY_A2" if same_org else None
    )
    return run_cache_probe(config, levels)


def _level(result: CacheProbeResult, name: str) -> dict[str, object]:
    return next(lv.model_dump() for lv in result.levels if lv.level == name)


def test_shared_cache_is_caught_across_organisations(monkeypatch: pytest.MonkeyPatch) -> None:
    result = _audit(monkeypatch, "shared")
    assert result.verdict == "shared-across-organisations"
    assert EXIT_CODES[result.verdict] == 1
    cross = _level(result, "other-organisation")
    assert cross["p_value"] < 1e-8  # type: ignore[operator]
    assert cross["hits_faster_than_fastest_miss"] == 1.0
    assert cross["effect_ms"] > 15  # type: ignore[operator]  # 190 of 200 tokens not prefilled
    assert result.kind == "assess.cache-probe" and result.schema_version == 1
    assert KEY_A not in result.model_dump_json() and KEY_B not in result.model_dump_json()


def test_per_key_cache_passes_with_a_visible_positive_control(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    result = _audit(monkeypatch, "per-key", same_org=True)
    assert result.verdict == "not-shared" and EXIT_CODES[result.verdict] == 0
    control = _level(result, "same-account")
    assert control["caching_visible"] and control["p_value"] < 1e-8  # type: ignore[operator]
    for name in ("same-organisation", "other-organisation"):
        level = _level(result, name)
        assert not level["caching_visible"] and level["p_value"] > 1e-3  # type: ignore[operator]
    assert [a.label for a in result.accounts] == ["A", "A2", "B"]


def test_no_cache_is_inconclusive_not_a_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    result = _audit(monkeypatch, "off")
    assert result.verdict == "inconclusive" and EXIT_CODES[result.verdict] == 2
    assert not any(lv.caching_visible for lv in result.levels)


def test_noise_only_finds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    noise = LatencyModel(base_ms=5.0, per_token_ms=0.0, noise_ms=20.0, seed=11)
    result = _audit(monkeypatch, "shared", latency=noise)
    assert result.verdict == "inconclusive"
    assert all(lv.p_value is not None and lv.p_value > 1e-4 for lv in result.levels)


def test_cached_tokens_catch_sharing_that_timing_misses(monkeypatch: pytest.MonkeyPatch) -> None:
    flat = LatencyModel(base_ms=5.0, per_token_ms=0.0, noise_ms=2.0, seed=5)
    result = _audit(monkeypatch, "shared", latency=flat, report=True)
    cross = _level(result, "other-organisation")
    assert cross["p_value"] > 1e-4 and cross["cached_tokens_seen"]  # type: ignore[operator]
    assert result.verdict == "shared-across-organisations"
    assert set(cross["cached_tokens_misses"]) == {0}  # type: ignore[arg-type]


def test_hit_prompt_shares_the_fraction_then_differs() -> None:
    config = CacheConfig("http://x/v1", "m", prompt_tokens=100, shared_fraction=0.95)
    for seed in range(20):
        victim, attacker = (p.split() for p in hit_pair(random.Random(seed), config))
        assert len(victim) == len(attacker) == 100
        assert victim[:95] == attacker[:95] and victim[95] != attacker[95]


def test_cached_tokens_are_read_from_a_stream_too() -> None:
    raw = 'data: {"choices": []}\n\ndata: {"usage": {"prompt_tokens_details": {"cached_tokens": 48}}}\n\ndata: [DONE]'  # noqa: E501
    assert cached_tokens(ChatResponse(200, {}, raw, 1.0, 0)) == 48
    assert cached_tokens(ChatResponse(200, {}, '{"usage": {}}', 1.0, 0)) is None


@pytest.mark.parametrize(("n", "m"), [(1, 1), (1, 6), (6, 1), (16, 16), (13, 7), (40, 33)])
@pytest.mark.parametrize("shift", [0.0, 0.7, 4.0])
def test_ks_matches_scipy(n: int, m: int, shift: float) -> None:
    rng = random.Random(n * 1000 + m)
    hits = [rng.gauss(0, 1) for _ in range(n)]
    misses = [rng.gauss(shift, 1) for _ in range(m)]
    ours = ks_less_than(hits, misses)
    theirs = ks_2samp(hits, misses, alternative="greater")
    assert ours.statistic == pytest.approx(float(theirs.statistic), abs=1e-12)
    assert ours.p_value == pytest.approx(float(theirs.pvalue), rel=1e-9)


def test_ks_asymptotic_matches_scipy_on_large_samples() -> None:
    rng = random.Random(2)
    hits = [rng.gauss(0, 1) for _ in range(600)]
    misses = [rng.gauss(0.3, 1) for _ in range(700)]
    ours = ks_less_than(hits, misses)
    theirs = ks_2samp(hits, misses, alternative="greater", method="asymp")
    assert ours.method == "asymptotic"
    assert ours.p_value == pytest.approx(float(theirs.pvalue), rel=1e-9)


def test_ks_edge_cases() -> None:
    assert ks_less_than([1.0], [2.0]).p_value == 0.5
    assert ks_less_than([2.0], [1.0]).p_value == 1.0
    assert ks_less_than([3.0] * 5, [3.0] * 5).statistic == 0.0
    with pytest.raises(ValueError, match="at least one value"):
        ks_less_than([], [1.0])
    assert smallest_reachable_p(15, 15) < 1e-8 < smallest_reachable_p(14, 14)


def test_too_few_samples_or_one_key_are_refused_before_sending(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TEST_KEY_A", KEY_A)
    monkeypatch.setenv("TEST_KEY_B", KEY_A)
    base = CacheConfig("http://127.0.0.1:9/v1", "m")
    with pytest.raises(UsageError, match="cannot reach p < 1e-08"):
        cache_setup(
            CacheConfig("http://127.0.0.1:9/v1", "m", samples=5), "TEST_KEY_A", "TEST_KEY_B", None
        )  # noqa: E501
    with pytest.raises(UsageError, match="needs --second-api-key-env"):
        cache_setup(base, "TEST_KEY_A", None, None)
    with pytest.raises(UsageError, match="same key as --api-key-env"):
        cache_setup(base, "TEST_KEY_A", "TEST_KEY_B", None)


def test_cli_shows_the_cost_and_sends_nothing_without_yes(run_cli: object, keys: None) -> None:
    result = run_cli(  # type: ignore[operator]
        "probe", "--mode", "cache", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
        "--api-key-env", "TEST_KEY_A", "--second-api-key-env", "TEST_KEY_B",
        "--input-price", "2.5",
    )  # fmt: skip
    assert result.exit_code == 2
    assert "150 requests, about 165,000 input tokens" in result.stderr
    assert "at most $0.4125" in result.stderr and "needs --yes" in result.stderr
    bad = run_cli("probe", "--mode", "kv", "--base-url", "http://x/v1", "--model", "m")  # type: ignore[operator]
    assert bad.exit_code == 2 and "--mode 'kv': not one of canary, cache" in bad.stderr


def test_first_token_time_skips_the_role_only_event() -> None:
    from assess.probe.transport.timing import timed_first_text

    first: list[float] = []
    lines = ['data: {"choices": [{"delta": {"role": "assistant", "content": ""}}]}', "",
             'data: {"choices": [{"delta": {"content": "hi"}}]}', "data: [DONE]"]  # fmt: skip
    seen = [(line, len(first)) for line in timed_first_text(iter(lines), first)]
    assert seen == [(lines[0], 0), (lines[1], 0), (lines[2], 1), (lines[3], 1)]
