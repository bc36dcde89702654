"""Cache-audit evidence documents (`assess probe --mode cache --json`) for the score and report
tests, made by the probe's own summary and verdict code from seeded timings: a level "shares"
when its hits are about five times faster than its misses (a cached 95% prefix), as the lab and
llama.cpp's server showed (docs/probe.md)."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assess.probe.cache import Arms, Level, summarise_level
from assess.probe.cache_api import verdict_of
from assess.probe.cache_models import CacheAccount, CacheProbeResult, CacheSettings
from assess.probe.config import ProbeAccount

ENDPOINT = "https://api.edge-inference.example/v1"
MODEL = "@cf/zai-org/glm-5.3"
_ACCOUNTS = {
    "A": ProbeAccount("A", "KEY_A", "unused"),
    "A2": ProbeAccount("A2", "KEY_A2", "unused"),  # type: ignore[arg-type]
    "B": ProbeAccount("B", "KEY_B", "unused"),
}
_LEVELS = {"same-account": "A", "same-organisation": "A2", "other-organisation": "B"}


def _arms(shared: bool, rng: random.Random, n: int, cached_misses: bool = False) -> Arms:
    """``cached_misses``: every miss reports cached tokens (a repeated --seed: contaminated)."""
    misses = [round(70 + rng.uniform(-5, 5), 3) for _ in range(n)]
    hits = [round((15 if shared else 70) + rng.uniform(-5, 5), 3) for _ in range(n)]
    cached = [1000 if cached_misses else None] * n
    return Arms(hit_ms=hits, miss_ms=misses, hit_ttft=list(hits), miss_ttft=list(misses),
                hit_cached=[None] * n, miss_cached=cached)  # fmt: skip


def cache_result(
    shared: dict[str, bool],
    *,
    endpoint: str = ENDPOINT,
    model: str = MODEL,
    when: datetime = datetime(2026, 9, 2, 10, 0, tzinfo=UTC),
    complete: bool = True,
    samples: int = 16,
    contaminated: tuple[str, ...] = (),
) -> CacheProbeResult:
    """Return an audit whose levels (keys of ``shared``) show caching where ``shared`` says;
    the ``contaminated`` levels' misses report cached tokens (the probe's own check flags them)."""
    rng = random.Random(7)
    levels = []
    for name, visible in shared.items():
        level = Level(name, _ACCOUNTS["A"], _ACCOUNTS[_LEVELS[name]])  # type: ignore[arg-type]
        arms = _arms(visible, rng, samples, cached_misses=name in contaminated)
        levels.append(summarise_level(level, arms, 1e-8))
    verdict, summary = verdict_of(levels, complete)
    return CacheProbeResult(
        run_id=f"cache{sum(shared.values())}{len(shared)}", endpoint=endpoint, model=model,
        started_at=when, finished_at=when, complete=complete,
        accounts=[CacheAccount(label=_LEVELS[n], key_env=f"KEY_{_LEVELS[n]}", role="test")  # type: ignore[arg-type]
                  for n in shared],
        settings=CacheSettings(samples=samples, prompt_tokens=1100, shared_fraction=0.95,
                               primes=1, seed=0, alpha=1e-8, stream=True, timeout_s=60,
                               max_retries=3, max_errors=5, transport="httpx"),
        requests=3 * samples * len(shared), levels=levels, errors=[], verdict=verdict,
        summary=f"{endpoint}: {summary}",
    )  # fmt: skip


#: The four verdicts, by the levels' visibility.
SHARED = {"same-account": True, "other-organisation": True}
WITHIN_ORG = {"same-account": True, "same-organisation": True, "other-organisation": False}
NOT_SHARED = {"same-account": True, "same-organisation": False, "other-organisation": False}
NO_CONTROL = {"same-account": False, "other-organisation": False}


def write_cache_doc(path: Path, shared: dict[str, bool], **kwargs: Any) -> Path:
    """Write the audit's JSON to ``path`` (as `--json` does) and return the path."""
    doc = json.loads(cache_result(shared, **kwargs).model_dump_json())
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return path
