"""The stable output of `assess score` (``kind: assess.score``, see docs/CONTRACTS.md)."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Literal

from pydantic import Field

from assess.controls.models import ControlRef
from assess.kernel.common import EvidenceLevel, Finding, InputFile, Severity
from assess.kernel.model import Model
from assess.vendor.answers import CheckedAnswer, Value
from assess.vendor.scoring.binding import EvidenceBinding


class Tier(StrEnum):
    """Risk tier, ordered low < medium < high < critical."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        """Return 0 (low) .. 3 (critical)."""
        return [Tier.LOW, Tier.MEDIUM, Tier.HIGH, Tier.CRITICAL].index(self)


class ScoreFinding(Finding):
    """A scoring finding, with the points it adds and whether evidence contradicts a claim."""

    points: int = Field(default=0, ge=0, description="What this finding adds to the score")
    contradiction: bool = Field(
        default=False, description="True when technical evidence contradicts a vendor's claim"
    )
    ref: str = Field(default="", description="F-01, F-02 ... in the order of the findings")
    advisories: list[str] = Field(
        default_factory=list, description="Ids of the advisories (advisories/) it rests on"
    )
    merged: list[ScoreFinding] = Field(
        default_factory=list,
        description="Findings with the same root cause (same answers) folded into this one",
    )
    controls: list[ControlRef] = Field(
        default_factory=list,
        description="Framework controls it shows not satisfied (controls/crosswalk.yaml)",
    )


class QuestionnaireRef(Model):
    """Which questionnaire the answers follow."""

    id: str
    version: int


class VendorRef(Model):
    """Who was assessed."""

    name: str
    service: str = ""


class Decision(Model):
    """A decisive rule of the questionnaire that a finding matched (the tier is at least its)."""

    rule: str = Field(description="The id of the rule in the questionnaire's scoring.decisive")
    finding: str = Field(description="The id of the finding it matched")
    tier: Tier = Field(description="The tier the rule makes the least, whatever the points")


class Mitigation(Model):
    """A rule or absent control that would hold, offset by a compensating control in place."""

    offsets: str = Field(description="The rule id, or control-absent.<question>, offset")
    severity: Severity = Field(description="What it would have weighed")
    title: str
    by: list[str] = Field(description="The questions whose answers compensate")


class ControlInPlace(Model):
    """A documented (or attested, or verified) fact in the vendor's favour."""

    question: str
    text: str
    value: Value
    evidence: EvidenceLevel
    ref: str = ""
    note: str = ""
    only_for: list[str] = Field(
        default_factory=list, description="Models or deployments it holds for ([]: as answered)"
    )
    not_for: list[str] = Field(
        default_factory=list,
        description="Models or deployments whose own value is not in place (or not known)",
    )
    date: dt.date | None = Field(default=None, description="The answer's own date, if given")
    stale: bool = Field(
        default=False,
        description="Dated more than coverage.answer_max_age_days before the answers' date (or "
        "before the start of --period): shown, but not a current fact",
    )


EvidenceVerdict = Literal["sufficient", "insufficient-evidence"]


class CoverageResult(Model):
    """The evidence axis: the share of the questionnaire's weight answered, by evidence level."""

    share: float = Field(ge=0, le=1, description="answered_weight / applicable_weight")
    answered_weight: int = Field(ge=0)
    applicable_weight: int = Field(ge=0, description="Weight of the questions that apply")
    by_evidence: dict[EvidenceLevel, float] = Field(
        description="Share of the applicable weight answered at each evidence level"
    )
    sufficient_at: float = Field(description="The questionnaire's scoring.coverage.sufficient_at")
    questions: int = Field(description="Questions that apply")
    answered: int = Field(description="Of them, answered with a current answer")
    not_applicable: list[str] = Field(
        default_factory=list,
        description="Answered not_applicable, documented or verified: out of the weight",
    )
    not_applicable_undocumented: list[str] = Field(
        default_factory=list,
        description="Answered not_applicable on attestation only: out of the risk, but kept in "
        "the weight as unanswered (and asked again)",
    )
    ruled_out: list[str] = Field(
        default_factory=list,
        description="Not applicable by other answers (not_applicable_when): covered by them",
    )
    stale: list[str] = Field(
        default_factory=list, description="Answered, but dated past answer_max_age_days"
    )


class QuestionToSend(Model):
    """An unknown (or stale) answer: a question to send the vendor, most weighty first."""

    id: str
    text: str
    priority: Severity = Field(description="The question's weight (critical questions: high+)")
    weight: int = Field(description="Its share of the coverage weight")
    reason: Literal["unknown", "stale", "not-applicable-undocumented"]


class ScoreResult(Model):
    """The score document: findings, score, tier and the formula that links them."""

    schema_version: Literal[1] = 1
    kind: Literal["assess.score"] = "assess.score"
    questionnaire: QuestionnaireRef
    vendor: VendorRef
    answered_on: dt.date
    score: int = Field(ge=0, le=100, description="0-100, higher is riskier")
    tier: Tier
    formula: str = Field(description="How score and tier follow from the findings' severities")
    counts: dict[Severity, int] = Field(description="Findings per severity")
    findings: list[ScoreFinding]
    answers: dict[str, CheckedAnswer]
    inputs: list[InputFile] = Field(default_factory=list)
    points_total: int = Field(
        default=0, ge=0, description="The sum of the findings' points before the cap"
    )
    section_points: dict[str, int] = Field(
        default_factory=dict,
        description="Points per questionnaire section (the first question a finding rests on)",
    )
    evidence: list[EvidenceBinding] = Field(
        default_factory=list, description="What each evidence item is about; whether it scored"
    )
    decided_by: list[Decision] = Field(
        default_factory=list,
        description="Decisive rules that set the tier: without them it would be lower",
    )
    floors_met: list[Decision] = Field(
        default_factory=list,
        description="Decisive rules matched whose floor (at least their tier) the tier already met",
    )
    coverage: CoverageResult
    evidence_verdict: EvidenceVerdict = Field(
        description="insufficient-evidence when coverage.share < coverage.sufficient_at"
    )
    questions_to_send: list[QuestionToSend] = Field(default_factory=list)
    controls_in_place: list[ControlInPlace] = Field(default_factory=list)
    mitigations: list[Mitigation] = Field(default_factory=list)
    advisories_not_checked: dict[str, str] = Field(
        default_factory=dict,
        description="Advisories score cannot check (no question covers them): id -> why",
    )
