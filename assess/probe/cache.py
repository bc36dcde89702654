"""The cache-isolation audit: does an endpoint reuse one tenant's cached prompt prefix for another?

Method of Gu et al., "Auditing Prompt Caching in Language Model APIs" (ICML 2025). Per level (who
primes, who measures) there are two arms, all trials of all levels interleaved in seeded random
order and sent one at a time (concurrent requests would disturb the timings):

* *hit*: the victim sends a random prompt (``primes`` times), then the attacker sends a prompt
  sharing its first ``shared_fraction`` with a suffix whose first word differs;
* *miss*: the attacker sends a fresh random prompt of the same length.

Prompts are random words from a list of common English words that are one token each in the
usual BPE vocabularies; ``max_tokens`` is 1. The signals are the attacker's whole latency, its
time to the first token when every answer streamed, and ``usage.prompt_tokens_details.
cached_tokens`` where reported. A level shows caching when a one-sided KS test finds hits faster
at ``p < alpha`` on either timing signal (two tests: the family-wise rate is at most
``2 alpha``), or a hit reports cached tokens.
"""

from __future__ import annotations

import json
import random
import secrets
import statistics
from dataclasses import dataclass, field
from typing import Any

from assess.probe.cache_models import CacheErrorRecord, LevelName, LevelResult
from assess.probe.config import CostEstimate, ProbeAccount
from assess.probe.ks import ks_less_than, samples_needed, smallest_reachable_p
from assess.probe.transport.interface import (
    ChatRequest,
    ChatResponse,
    Transport,
    TransportError,
    carries_text,
)

DEFAULT_ALPHA = 1e-8
# Misses are fresh random prompts: a share of them reporting cached tokens above this means the
# misses were already cached (e.g. a repeated seed), so the hit/miss comparison is invalid.
MAX_CACHED_MISS_SHARE = 0.1

# Common English words, each a single token in GPT-2/cl100k/o200k/Llama-style vocabularies when
# preceded by a space (checked against tiktoken's cl100k_base and o200k_base).
WORDS = (
    "time year people way day man thing woman life child world school state family student "
    "group country problem hand part place case week company system program question work "
    "government number night point home water room mother area money story fact month lot right "
    "study book eye job word business issue side kind head house service friend father power "
    "hour game line end member law car city community name president team minute idea kid body "
    "information back parent face others level office door health person art war history party "
    "result change morning reason research girl guy moment air teacher force education foot boy "
    "age policy music market sense nation plan college interest death experience effect class "
    "control care field development role effort rate heart drug show leader light voice wife "
    "police mind price report decision son view relationship town road arm difference value "
    "building action model season society tax director position player record paper space "
    "ground form event official matter center couple site project activity star table need "
    "court oil situation cost industry figure street image phone data picture practice piece "
    "land product doctor wall patient worker news test movie north love support technology step "
    "baby computer type attention film tree source organization hair window evidence population "
    "site blue red green black white small large old new good great little long young"
).split()


@dataclass(frozen=True)
class CacheConfig:
    """Everything a cache audit needs besides the accounts."""

    base_url: str
    model: str
    samples: int = 25
    prompt_tokens: int = 1100
    shared_fraction: float = 0.95
    primes: int = 1
    seed: int = 0
    alpha: float = DEFAULT_ALPHA
    stream: bool = True
    timeout_s: float = 60.0
    max_retries: int = 3
    max_errors: int = 5
    transport: str = "httpx"


@dataclass(frozen=True)
class Level:
    """Who primes (victim) and who measures (attacker)."""

    name: LevelName
    victim: ProbeAccount
    attacker: ProbeAccount


def run_seed(seed: int | None) -> int:
    """Return ``seed``, or a fresh one: a repeated seed sends prompts each key already cached."""
    return secrets.randbits(32) if seed is None else seed


def random_prompt(rng: random.Random, words: int) -> list[str]:
    """Return ``words`` random single-token words."""
    return [rng.choice(WORDS) for _ in range(words)]


def hit_pair(rng: random.Random, config: CacheConfig) -> tuple[str, str]:
    """Return (victim prompt, attacker prompt): the attacker's shares the victim's first part and
    then goes on with a different word."""
    victim = random_prompt(rng, config.prompt_tokens)
    keep = min(config.prompt_tokens - 1, round(config.prompt_tokens * config.shared_fraction))
    tail = random_prompt(rng, config.prompt_tokens - keep)
    while tail[0] == victim[keep]:
        tail[0] = rng.choice(WORDS)
    return " ".join(victim), " ".join(victim[:keep] + tail)


def estimate_cache_cost(config: CacheConfig, levels: int) -> CostEstimate:
    """Return what the run sends: per level, ``samples`` hits (with their primes) and misses."""
    per_level = config.samples * (config.primes + 2)
    requests = levels * per_level
    return CostEstimate(requests, requests * config.prompt_tokens, requests)


def _bodies(resp: ChatResponse) -> list[dict[str, Any]]:
    """Return the JSON objects of an answer: its body, or each event of its SSE stream."""
    chunks = [resp.raw]
    if not resp.raw.lstrip().startswith("{"):
        chunks = [line[5:].strip() for line in resp.raw.splitlines() if line.startswith("data:")]
    found = []
    for chunk in chunks:
        try:
            body = json.loads(chunk)
        except ValueError:
            continue
        if isinstance(body, dict):
            found.append(body)
    return found


def cached_tokens(resp: ChatResponse) -> int | None:
    """Return ``usage.prompt_tokens_details.cached_tokens`` of a JSON body or SSE stream."""
    found: int | None = None
    for body in _bodies(resp):
        usage = body.get("usage")
        details = usage.get("prompt_tokens_details") if isinstance(usage, dict) else None
        value = details.get("cached_tokens") if isinstance(details, dict) else None
        if isinstance(value, int) and not isinstance(value, bool):
            found = value
    return found


def _finished(resp: ChatResponse) -> bool:
    """Return True when some choice of the answer has a ``finish_reason`` (generation ran)."""
    for body in _bodies(resp):
        choices = body.get("choices")
        if isinstance(choices, list) and any(
            isinstance(choice, dict) and choice.get("finish_reason") for choice in choices
        ):
            return True
    return False


def served(resp: ChatResponse) -> bool:
    """Return True when an answer served the prompt: it holds text (the canary probe's
    :func:`carries_text` rule) or a whitespace-only token, its usage counts prompt or completion
    tokens, or a choice finished (a model whose one token is end-of-text answers an empty
    ``content`` with ``finish_reason: stop``). An empty SSE stream, a stream of only ``error``
    events or ``{"choices": []}`` served nothing: its latency times no prefill, not a sample."""
    return (
        carries_text(resp.fields)
        or any(resp.fields.values())
        or bool(resp.prompt_tokens or resp.completion_tokens)
        or _finished(resp)
    )


@dataclass
class Arms:
    """What one level collected."""

    hit_ms: list[float] = field(default_factory=list)
    miss_ms: list[float] = field(default_factory=list)
    hit_ttft: list[float | None] = field(default_factory=list)
    miss_ttft: list[float | None] = field(default_factory=list)
    hit_cached: list[int | None] = field(default_factory=list)
    miss_cached: list[int | None] = field(default_factory=list)
    hit_retries: list[int] = field(default_factory=list)
    miss_retries: list[int] = field(default_factory=list)
    retries: int = 0  # every retry of the level's requests, primes and failed ones included
    failed: int = 0  # requests of the level that gave no timing sample (errors[] has each)
    unusable: int = 0  # of those, 2xx answers that served nothing (no choice, no token)


@dataclass
class CacheRun:
    """Runs the interleaved trials; transports are keyed by account label."""

    config: CacheConfig
    levels: list[Level]
    transports: dict[str, Transport]
    arms: dict[str, Arms] = field(default_factory=dict)
    errors: list[CacheErrorRecord] = field(default_factory=list)
    requests: int = 0
    fatal: TransportError | None = None

    def schedule(self) -> list[tuple[Level, str]]:
        """Return every (level, arm) trial in seeded random order."""
        trials = [(lv, arm) for lv in self.levels for arm in ("hit", "miss")
                  for _ in range(self.config.samples)]  # fmt: skip
        random.Random(self.config.seed).shuffle(trials)
        return trials

    def run(self) -> bool:
        """Run every trial; return False when it stopped early (fatal or too many errors)."""
        rng = random.Random(self.config.seed + 1)
        self.arms = {lv.name: Arms() for lv in self.levels}
        for level, arm in self.schedule():
            try:
                self._trial(rng, level, arm)
            except TransportError as exc:
                self.arms[level.name].retries += exc.retries
                self.arms[level.name].failed += 1
                self.errors.append(CacheErrorRecord(
                    level=level.name, arm=arm, kind=exc.kind, status=exc.status,
                    message=exc.message))  # fmt: skip
                if exc.fatal:
                    self.fatal = exc
                    return False
            if len(self.errors) >= self.config.max_errors:
                return False
        return True

    def _send(self, account: ProbeAccount, prompt: str) -> ChatResponse:
        self.requests += 1
        request = ChatRequest(self.config.model, prompt, self.config.stream, 1)
        return self.transports[account.label].chat(request)

    def _valid(self, level: Level, arm: str, resp: ChatResponse) -> bool:
        """Only a 2xx answer that served the prompt is a timing sample; others are errors."""
        arms = self.arms[level.name]
        arms.retries += resp.retries
        if 200 <= resp.status < 300 and served(resp):
            return True
        arms.failed += 1
        kind, why = "rejected", f"HTTP {resp.status} answer: not a timing sample"
        if 200 <= resp.status < 300:
            arms.unusable += 1
            kind = "empty_answer"
            why = (f"HTTP {resp.status} answer with no content (empty stream, only error events "
                   "or no choices): the prompt was not served, not a timing sample")  # fmt: skip
        self.errors.append(CacheErrorRecord(
            level=level.name, arm=arm, kind=kind, status=resp.status, message=why))  # fmt: skip
        return False

    def _trial(self, rng: random.Random, level: Level, arm: str) -> None:
        arms = self.arms[level.name]
        if arm == "hit":
            victim, attacker = hit_pair(rng, self.config)
            for _ in range(self.config.primes):
                if not self._valid(level, "prime", self._send(level.victim, victim)):
                    return
            resp = self._send(level.attacker, attacker)
            if not self._valid(level, arm, resp):
                return
            arms.hit_ms.append(resp.latency_ms)
            arms.hit_ttft.append(resp.ttft_ms)
            arms.hit_cached.append(cached_tokens(resp))
            arms.hit_retries.append(resp.retries)
            return
        resp = self._send(level.attacker, " ".join(random_prompt(rng, self.config.prompt_tokens)))
        if not self._valid(level, arm, resp):
            return
        arms.miss_ms.append(resp.latency_ms)
        arms.miss_ttft.append(resp.ttft_ms)
        arms.miss_cached.append(cached_tokens(resp))
        arms.miss_retries.append(resp.retries)


def _power_note(d: float | None, p: float | None, n: int, m: int, alpha: float) -> str:
    if d is None or p is None:
        return "no samples in one arm: nothing can be said"
    need = samples_needed(d, alpha)
    if need is None:
        return (f"no hit faster than the misses (D+ = 0) in {n} hits and {m} misses; "
                "no effect to size")  # fmt: skip
    state = "reached" if p < alpha else "not reached"
    return (f"an effect of D+ = {d:.2f} needs about {need} samples per arm to reach "
            f"p < {alpha:g} (asymptotic estimate, the exact test may need fewer); this level "
            f"had {n} hits and {m} misses ({state})")  # fmt: skip


def _lost(arms: Arms) -> str:
    if not arms.failed:
        return ""
    empty = f", {arms.unusable} of them HTTP 2xx with no content" if arms.unusable else ""
    return f" ({arms.failed} of its requests gave no sample{empty}; see errors[])"


def _cached_misses(arms: Arms) -> int:
    return sum(1 for c in arms.miss_cached if (c or 0) > 0)


def contaminated(arms: Arms) -> bool:
    """Return True when the misses (fresh prompts) were already cached (a repeated --seed?)."""
    return _cached_misses(arms) > MAX_CACHED_MISS_SHARE * len(arms.miss_ms)


def invalid_reason(arms: Arms, alpha: float) -> str | None:
    """Return why a level's comparison cannot be trusted, or None (the positive-control check)."""
    n, m = len(arms.hit_ms), len(arms.miss_ms)
    if not n or not m or smallest_reachable_p(n, m) >= alpha:
        return (f"only {n} valid hits and {m} valid misses{_lost(arms)}: too few to reach "
                f"p < {alpha:g}")  # fmt: skip
    if contaminated(arms):
        return (
            f"{_cached_misses(arms)} of {m} misses (fresh prompts) reported cached tokens: the "
            "misses were already cached (a repeated --seed?), so hits and misses cannot be compared"
        )
    return None


def summarise_level(level: Level, arms: Arms, alpha: float) -> LevelResult:
    """Return the statistic and the verdict of one level."""
    hits, misses = arms.hit_ms, arms.miss_ms
    d = p = method = med_h = med_m = effect = faster = None
    if hits and misses:
        ks = ks_less_than(hits, misses)
        d, p, method = ks.statistic, ks.p_value, ks.method
        med_h, med_m = statistics.median(hits), statistics.median(misses)
        effect = round(med_m - med_h, 3)
        faster = round(sum(1 for h in hits if h < min(misses)) / len(hits), 4)
    seen = any((c or 0) > 0 for c in arms.hit_cached)
    hit_t = [t for t in arms.hit_ttft if t is not None]
    miss_t = [t for t in arms.miss_ttft if t is not None]
    ttft = None
    if hit_t and miss_t and len(hit_t) == len(hits) and len(miss_t) == len(misses):
        ttft = ks_less_than(hit_t, miss_t)
    ttft_p = ttft.p_value if ttft else None
    reason = invalid_reason(arms, alpha)
    signal = seen or any(x is not None and x < alpha for x in (p, ttft_p))
    return LevelResult(
        level=level.name, victim=level.victim.label, attacker=level.attacker.label,
        hit_ms=hits, miss_ms=misses, ks_statistic=d, p_value=p, p_method=method,
        median_hit_ms=med_h, median_miss_ms=med_m, effect_ms=effect,
        hits_faster_than_fastest_miss=faster, cached_tokens_hits=arms.hit_cached,
        cached_tokens_misses=arms.miss_cached, cached_tokens_seen=seen,
        hit_retries=arms.hit_retries, miss_retries=arms.miss_retries, retries=arms.retries,
        hit_ttft_ms=hit_t, miss_ttft_ms=miss_t,
        ttft_ks_statistic=ttft.statistic if ttft else None, ttft_p_value=ttft_p,
        caching_visible=signal and reason is None, contaminated=contaminated(arms),
        failed_requests=arms.failed, unusable=arms.unusable,
        power_note=_power_note(d, p, len(hits), len(misses), alpha), inconclusive_reason=reason,
    )  # fmt: skip
