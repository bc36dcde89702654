"""Issue 40 acceptance defects: a repeated seed's pre-cached misses and HTTP 4xx answers must
give `inconclusive`, never a verdict; a fresh seed on the same lab gives `not-shared` again."""

from __future__ import annotations

import json

import pytest

from assess.cli.probe_cache import print_cache
from assess.kernel.errors import UsageError
from assess.lab.engine import LabConfig, LabEngine
from assess.probe.cache import CacheConfig, run_seed
from assess.probe.cache_api import EXIT_CODES, cache_setup, run_cache_probe
from assess.probe.cache_models import CacheProbeResult
from assess.probe.run import TRANSPORTS
from assess.probe.transport.interface import ChatRequest, ChatResponse
from tests.probe.conftest import KEY_A, KEY_B
from tests.probe.test_cache_probe import FAST, KEY_A2, LabTransport


class RejectB(LabTransport):
    """A proxy in front of the lab that answers B's requests with HTTP 400."""

    def chat(self, request: ChatRequest) -> ChatResponse:
        if self.key == KEY_B:
            raw = json.dumps({"error": {"message": "model_not_found"}})
            return ChatResponse(400, {"error.message": "model_not_found"}, raw, 0.5, 0)
        return super().chat(request)


def _run(
    monkeypatch: pytest.MonkeyPatch,
    engine: LabEngine,
    seed: int,
    cls: type[LabTransport] = LabTransport,
    same_org: bool = True,
) -> CacheProbeResult:
    def factory(_url: str, key: str, _timeout: float, _retries: int) -> LabTransport:
        return cls(engine, key, True)

    monkeypatch.setitem(TRANSPORTS, "lab", factory)
    for name, key in (("TEST_KEY_A", KEY_A), ("TEST_KEY_B", KEY_B), ("TEST_KEY_A2", KEY_A2)):
        monkeypatch.setenv(name, key)
    config = CacheConfig("http://127.0.0.1:9/v1", "lab-glm-5.3", samples=16, prompt_tokens=200,
                         seed=seed, transport="lab", max_errors=1000)  # fmt: skip
    a2 = "TEST_KEY_A2" if same_org else None
    config, levels = cache_setup(config, "TEST_KEY_A", "TEST_KEY_B", a2)
    return run_cache_probe(config, levels)


def _engine(mode: str) -> LabEngine:
    return LabEngine(LabConfig(pool_tokens=200_000, context_tokens=1024,
                               prefix_cache=mode, latency=FAST))  # type: ignore[arg-type]  # fmt: skip


def test_repeated_seed_is_inconclusive_not_shared(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = _engine("per-key")
    first = _run(monkeypatch, engine, seed=5)
    assert first.verdict == "not-shared"
    second = _run(monkeypatch, engine, seed=5)
    assert second.verdict == "inconclusive" and EXIT_CODES[second.verdict] == 2
    assert "misses (fresh prompts) reported cached tokens" in second.summary
    assert all(lv.inconclusive_reason for lv in second.levels)
    # acc40b defect 3: a contaminated level shows nothing, in the JSON and on the console
    print_cache(second)
    out = capsys.readouterr().out
    assert "VISIBLE" not in out and out.count("contaminated (misses already cached)") == 3
    assert all(lv.contaminated and not lv.caching_visible for lv in second.levels)
    assert not any(lv.contaminated for lv in first.levels)
    assert second.settings.seed == 5
    third = _run(monkeypatch, engine, seed=6)
    assert third.verdict == "not-shared" and EXIT_CODES[third.verdict] == 0


def test_rejected_answers_are_errors_not_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    result = _run(monkeypatch, _engine("shared"), seed=5, cls=RejectB, same_org=False)
    other = next(lv for lv in result.levels if lv.level == "other-organisation")
    assert other.hit_ms == [] and other.miss_ms == []
    assert other.inconclusive_reason and other.inconclusive_reason.startswith("only 0 valid")
    assert result.verdict == "inconclusive" and not result.complete
    rejected = [e for e in result.errors if e.level == "other-organisation"]
    assert len(rejected) == 32 and {e.status for e in rejected} == {400}
    assert KEY_B not in result.model_dump_json()


def test_default_seed_is_fresh_per_run_and_explicit_kept() -> None:
    assert len({run_seed(None) for _ in range(5)}) > 1
    assert run_seed(7) == 7 and run_seed(0) == 0


def test_same_org_key_equal_to_a_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_KEY_A", KEY_A)
    monkeypatch.setenv("TEST_KEY_B", KEY_B)
    config = CacheConfig("http://127.0.0.1:9/v1", "lab-glm-5.3", samples=16)
    with pytest.raises(UsageError, match="same key as --api-key-env"):
        cache_setup(config, "TEST_KEY_A", "TEST_KEY_B", "TEST_KEY_A")
