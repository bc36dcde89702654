"""Tolerant views of the technical evidence `assess score` reads: probe (canary and cache audit)
and deploy-check JSON.

Only the keys docs/CONTRACTS.md promises are read; anything else in those documents is ignored
(the commands that write them may add keys), so these models allow extra keys, unlike the rest.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Tolerant(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class ProbeStats(_Tolerant):
    """`stats` of a probe run."""

    probes: int = 0
    hits: int = 0
    leak_rate_upper_95: float | None = None
    method: str = ""


class ProbeEvidence(_Tolerant):
    """An `assess probe --json` document (kind ``assess.probe``)."""

    schema_version: int = Field(ge=1)
    kind: Literal["assess.probe"]
    run_id: str = ""
    endpoint: str = ""
    model: str = ""
    started_at: str = ""
    finished_at: str = ""
    complete: bool = True
    leak_found: bool
    verdict: str = ""  # leak | no-leak | inconclusive; absent before issue 36
    hits: list[Any] = Field(default_factory=list)
    stats: ProbeStats = ProbeStats()


class DeployNode(_Tolerant):
    """One node of a deploy-check."""

    name: str = ""
    source: str = ""
    engine: str | None = None
    version: str | None = None
    role: str = "unknown"
    pool_tokens: int | None = None
    context_tokens: int | None = None
    verdict: str = "inconclusive"
    models: list[str] = Field(default_factory=list)
    cache_settings: dict[str, Any] = Field(default_factory=dict)  # absent before issue 41


class LogPeriodView(_Tolerant):
    """`about.period` of a deploy-check: first and last timestamp, dated when the year shows."""

    start: str = ""
    end: str = ""
    dated: bool = False


class DeployAboutView(_Tolerant):
    """`about` of a deploy-check: what its logs are evidence of."""

    service: str = ""
    model: str = ""
    models_seen: list[str] = Field(default_factory=list)
    nodes: list[str] = Field(default_factory=list)
    period: LogPeriodView | None = None


class DeployEvidence(_Tolerant):
    """An `assess deploy-check --json` document (kind ``assess.deploy-check``)."""

    schema_version: int = Field(ge=1)
    kind: Literal["assess.deploy-check"]
    nodes: list[DeployNode] = Field(default_factory=list)
    findings: list[dict[str, Any]] = Field(default_factory=list)
    verdict: str = "inconclusive"
    about: DeployAboutView = DeployAboutView()


class CacheLevelView(_Tolerant):
    """One level of the audit: who primed, who measured, and whether caching was visible."""

    level: str
    victim: str = ""
    attacker: str = ""
    caching_visible: bool
    p_value: float | None = None
    ttft_p_value: float | None = None
    ks_statistic: float | None = None
    median_hit_ms: float | None = None
    median_miss_ms: float | None = None
    cached_tokens_seen: bool = False


class CacheProbeEvidence(_Tolerant):
    """An `assess probe --mode cache --json` document (kind ``assess.cache-probe``)."""

    schema_version: int = Field(ge=1)
    kind: Literal["assess.cache-probe"]
    run_id: str = ""
    endpoint: str = ""
    model: str = ""
    started_at: str = ""
    finished_at: str = ""
    complete: bool = True
    verdict: Literal[
        "shared-across-organisations", "shared-within-organisation", "not-shared", "inconclusive"
    ]
    levels: list[CacheLevelView] = Field(default_factory=list)
    summary: str = ""

    def level(self, name: str) -> CacheLevelView | None:
        """Return the level called ``name``, if the run had it."""
        return next((lv for lv in self.levels if lv.level == name), None)
