"""What changed between two attestations of one vendor (`assess questionnaire diff --json`)."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Literal

from pydantic import Field

from assess.kernel.model import Model
from assess.vendor.answers import CheckedAnswer
from assess.vendor.scoring.models import Tier


class Change(StrEnum):
    """How one answer changed; regressions are marked by :attr:`AnswerChange.regression`."""

    ANSWERED = "answered"
    NOW_UNKNOWN = "now-unknown"
    UPGRADE = "upgrade"
    DOWNGRADE = "downgrade"
    CONTROL_ADDED = "control-added"
    CONTROL_DROPPED = "control-dropped"
    CHANGED = "changed"
    EVIDENCE_STRONGER = "evidence-stronger"
    EVIDENCE_WEAKER = "evidence-weaker"


class AnswerChange(Model):
    """One question whose value or evidence changed."""

    id: str
    label: str = Field(
        default="",
        description="The model, deployment or Region whose own value changed ('' for the answer)",
    )
    change: Change
    regression: bool = Field(description="True when the new answer is riskier than the old")
    raises: list[str] = Field(
        default_factory=list,
        description="Findings (above info) resting on this question that the new side adds or "
        "raises in severity",
    )
    control_lost: bool = Field(
        default=False,
        description="True when the question was a control in place on the old side and is not "
        "on the new one",
    )
    old: CheckedAnswer
    new: CheckedAnswer


class Side(Model):
    """One of the two attestations compared."""

    source: str
    vendor: str
    date: dt.date
    score: int
    tier: Tier
    points_total: int = Field(default=0, description="The findings' points before the cap")
    coverage: float = Field(default=0.0, description="Evidence coverage (share of the weight)")
    evidence_verdict: str = Field(default="sufficient", description="The score's verdict")


class AnswersDiff(Model):
    """The comparison of two answer sets, with the score of each."""

    schema_version: Literal[1] = 1
    kind: Literal["assess.answers-diff"] = "assess.answers-diff"
    questionnaire: str
    old: Side
    new: Side
    changes: list[AnswerChange]
    findings_added: list[str] = Field(description="Finding ids only the new answers raise")
    findings_resolved: list[str] = Field(description="Finding ids only the old answers raised")
