"""The evidence document of `assess probe --mode cache` (kind ``assess.cache-probe``).

It never holds an API key: accounts are labels and the environment variables their keys came
from. Each level holds every attacker latency, so the two distributions can be redrawn.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from assess.kernel.model import Model
from assess.probe.models import RunHeader

CACHE_PROBE_KIND = "assess.cache-probe"
CACHE_PROBE_SCHEMA_VERSION = 1

LevelName = Literal["same-account", "same-organisation", "other-organisation"]
CacheVerdict = Literal[
    "shared-across-organisations", "shared-within-organisation", "not-shared", "inconclusive"
]


class CacheAccount(Model):
    """One key of the run: its label and where it came from (never the key)."""

    label: Literal["A", "A2", "B"]
    key_env: str
    role: str


class CacheSettings(Model):
    """The options of the run, as given."""

    samples: int = Field(description="Hit trials and miss trials per level (each)")
    prompt_tokens: int
    shared_fraction: float
    primes: int
    seed: int
    alpha: float = Field(description="KS p-value below which a level shows caching")
    stream: bool
    timeout_s: float
    max_retries: int
    max_errors: int
    transport: str


class LevelResult(Model):
    """One level (who primes, who measures): both arms, the statistic, the verdict."""

    level: LevelName
    victim: str
    attacker: str
    hit_ms: list[float] = Field(description="Attacker latency of each completed hit trial")
    miss_ms: list[float]
    signal: Literal["whole-latency"] = "whole-latency"
    ks_statistic: float | None = Field(description="One-sided D+ (hits faster); null if no data")
    p_value: float | None
    p_method: str | None
    median_hit_ms: float | None
    median_miss_ms: float | None
    effect_ms: float | None = Field(description="median miss - median hit")
    hits_faster_than_fastest_miss: float | None = Field(description="share of hits, 0..1")
    hit_ttft_ms: list[float] = Field(
        default_factory=list, description="Time to the first token of each hit, when streamed"
    )
    miss_ttft_ms: list[float] = Field(default_factory=list)
    ttft_ks_statistic: float | None = Field(
        default=None, description="KS on time to first token; null unless every answer streamed"
    )
    ttft_p_value: float | None = None
    cached_tokens_hits: list[int | None]
    cached_tokens_misses: list[int | None]
    cached_tokens_seen: bool = Field(description="some hit reported cached_tokens > 0")
    hit_retries: list[int] = Field(
        default_factory=list,
        description="429/503 retries before each hit sample (its latency is the last attempt's)",
    )
    miss_retries: list[int] = Field(default_factory=list)
    retries: int = Field(
        default=0, description="every retry of this level's requests, primes and failures included"
    )
    caching_visible: bool = Field(
        description="the level shows caching and its comparison is valid (false beside an "
        "inconclusive_reason: an invalid comparison shows nothing)"
    )
    contaminated: bool = Field(
        default=False,
        description="more than a tenth of the misses (fresh prompts) reported cached tokens: "
        "already cached (a repeated --seed?), so hits and misses cannot be compared",
    )
    failed_requests: int = Field(
        default=0, description="requests of this level that gave no timing sample (see errors[])"
    )
    unusable: int = Field(
        default=0,
        description="of failed_requests, HTTP 2xx answers that served nothing (empty stream, "
        "only error events, no choices): not timing samples",
    )
    power_note: str
    inconclusive_reason: str | None = Field(
        default=None,
        description="why this level's comparison is invalid (too few valid samples, or its "
        "misses show caching); null when valid",
    )


class CacheErrorRecord(Model):
    """A request that failed (the message is already redacted)."""

    level: LevelName
    arm: str
    kind: str
    status: int | None = Field(default=None, description="HTTP status, when one came back")
    message: str


class CacheProbeResult(RunHeader):
    """The whole cache-isolation audit."""

    schema_version: int = CACHE_PROBE_SCHEMA_VERSION
    kind: str = CACHE_PROBE_KIND
    accounts: list[CacheAccount]
    settings: CacheSettings
    requests: int
    levels: list[LevelResult]
    errors: list[CacheErrorRecord]
    verdict: CacheVerdict
    summary: str


def cannot_compare(contaminated: bool, inconclusive_reason: str | None) -> str | None:
    """Return how a level whose hits and misses cannot be compared reads (the console, the
    review, OSCAL), or None when they can: never "caching not visible" for such a level."""
    if contaminated:
        return "contaminated (misses already cached): cannot compare"
    return "cannot compare" if inconclusive_reason else None
