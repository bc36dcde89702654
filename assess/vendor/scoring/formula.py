"""The score formula: points per severity, capped; tier from thresholds; its text for readers."""

from __future__ import annotations

from collections.abc import Iterable

from assess.kernel.common import Severity
from assess.vendor.questionnaire import Scoring
from assess.vendor.scoring.models import ScoreFinding, Tier


def formula_text(scoring: Scoring) -> str:
    """Return the formula as text a reader can recompute the score and tier from."""
    terms = " + ".join(
        f"{scoring.points[s]} x {s.value}" for s in sorted(Severity, key=lambda s: -s.rank)
    )
    t = scoring.tiers
    return (
        f"score = min({scoring.cap}, {terms}) where each severity name is the number of findings "
        f"of that severity; tier = critical if score >= {t.critical}, high if score >= {t.high}, "
        f"medium if score >= {t.medium}, else low; any critical finding makes the tier at least "
        "high."
    )


def score_of(findings: Iterable[ScoreFinding], scoring: Scoring) -> int:
    """Return min(cap, sum of the findings' severity points)."""
    return min(scoring.cap, sum(scoring.points[f.severity] for f in findings))


def tier_of(score: int, findings: Iterable[ScoreFinding], scoring: Scoring) -> Tier:
    """Return the tier of ``score``, raised to at least high by any critical finding."""
    t = scoring.tiers
    tier = Tier.LOW
    for threshold, name in (
        (t.medium, Tier.MEDIUM),
        (t.high, Tier.HIGH),
        (t.critical, Tier.CRITICAL),
    ):
        if score >= threshold:
            tier = name
    if any(f.severity is Severity.CRITICAL for f in findings) and tier.rank < Tier.HIGH.rank:
        tier = Tier.HIGH
    return tier
