"""The numbers of a questionnaire's score formula (``scoring:`` in the questionnaire), as data:
points per severity, cap, tiers, coverage and the decisive rules. The formula's text is generated
from them (:mod:`assess.vendor.scoring.formula`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from assess.kernel.common import EvidenceLevel, Severity
from assess.kernel.model import Model


class Coverage(Model):
    """The evidence axis: how much of the questionnaire's weight is answered (scoring.coverage)."""

    sufficient_at: float = Field(
        default=0.6,
        ge=0,
        le=1,
        description="Below this share of the weight answered the verdict is insufficient evidence",
    )
    answer_max_age_days: int = Field(
        default=365, ge=0, description="An answer dated this much before the answers is stale"
    )


class Tiers(Model):
    """Lowest score of each tier above ``low``."""

    medium: int = Field(ge=0, le=100)
    high: int = Field(ge=0, le=100)
    critical: int = Field(ge=0, le=100)

    @model_validator(mode="after")
    def _ordered(self) -> Tiers:
        if not self.medium <= self.high <= self.critical:
            raise ValueError("tier thresholds must rise: medium <= high <= critical")
        return self


class DecisiveRule(Model):
    """A finding that decides the tier whatever the points (``scoring.decisive``).

    A finding matches when every given test holds: ``contradiction`` (evidence contradicts a
    claim), ``evidence`` (its evidence level is at least this), ``ids`` (its id starts with one
    of these).
    """

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$")
    tier: Literal["medium", "high", "critical"]
    why: str = Field(min_length=1)
    contradiction: bool | None = None
    evidence: EvidenceLevel | None = None
    ids: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _some_test(self) -> DecisiveRule:
        if self.contradiction is None and self.evidence is None and not self.ids:
            raise ValueError("a decisive rule needs contradiction, evidence or ids")
        return self


class Scoring(Model):
    """The numbers of the score formula (the formula's text is generated from them)."""

    points: dict[Severity, int]
    cap: int = Field(default=100, ge=1, le=100)
    tiers: Tiers
    unknown_critical_severity: Severity = Severity.HIGH
    attested_only_severity: Severity = Severity.LOW
    contradiction_severity: Severity = Severity.CRITICAL
    evidence_max_age_days: int = Field(
        default=30,
        ge=0,
        description="Evidence that ended more than this many days before the answers is stale",
    )
    decisive: list[DecisiveRule] = Field(
        default_factory=list, description="Findings that set the tier whatever the points"
    )
    coverage: Coverage = Coverage()
    compensation_evidence: EvidenceLevel = Field(
        default=EvidenceLevel.DOCUMENTED,
        description="A compensating control offsets a finding only on evidence at least this",
    )
    docs_conflict_severity: Severity = Field(
        default=Severity.MEDIUM,
        description="Severity of a finding that the provider's own documents contradict each other",
    )

    @model_validator(mode="after")
    def _complete(self) -> Scoring:
        missing = [s.value for s in Severity if s not in self.points]
        if missing:
            raise ValueError(f"points missing for: {', '.join(missing)}")
        ranked = [self.points[s] for s in sorted(Severity, key=lambda s: s.rank)]
        if ranked != sorted(ranked) or min(ranked) < 0:
            raise ValueError("points must not be negative and must rise with severity")
        return self
