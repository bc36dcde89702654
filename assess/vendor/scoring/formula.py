"""The score formula: points per severity, capped; tier from thresholds; its text for readers."""

from __future__ import annotations

from collections.abc import Iterable

from assess.kernel.common import Severity
from assess.vendor.questionnaire_scoring import DecisiveRule, Scoring
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
        "high; the tier is never above the most severe finding (a tier is stated only with a "
        "finding that carries it). Unknown answers add no points: they lower the evidence "
        "coverage instead." + "".join(f" {_rule_text(r)}" for r in scoring.decisive)
    )


def _rule_text(rule: DecisiveRule) -> str:
    tests = []
    if rule.contradiction:
        tests.append("contradicts a claim")
    if rule.evidence is not None:
        tests.append(f"rests on {rule.evidence.value} evidence")
    if rule.ids:
        tests.append(f"has an id starting with {' or '.join(rule.ids)}")
    return (
        f"Decisive ({rule.id}): a finding that {' and '.join(tests)} makes the tier at least "
        f"{rule.tier} whatever the points: {rule.why}."
    )


def decisive_matches(rule: DecisiveRule, finding: ScoreFinding) -> bool:
    """Return True when ``finding`` (or a finding merged into it) passes every test of ``rule``."""
    return _passes(rule, finding) or any(decisive_matches(rule, m) for m in finding.merged)


def _passes(rule: DecisiveRule, finding: ScoreFinding) -> bool:
    if rule.contradiction is not None and finding.contradiction is not rule.contradiction:
        return False
    if rule.evidence is not None and (
        finding.evidence_level is None or finding.evidence_level.rank < rule.evidence.rank
    ):
        return False
    return not rule.ids or any(finding.id.startswith(prefix) for prefix in rule.ids)


def decided_by(
    score: int, findings: Iterable[ScoreFinding], scoring: Scoring
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Return (rule id, finding id) of the decisive matches that set the tier (it would be lower
    without them, and it is their tier), then of those that held a floor the tier already met."""
    findings = list(findings)
    base = tier_of(score, findings, scoring, decisive=False)
    final = tier_of(score, findings, scoring)
    matches = [(r, f) for f in findings for r in scoring.decisive if decisive_matches(r, f)]
    decided = [(r.id, f.id) for r, f in matches if final.rank > base.rank and Tier(r.tier) is final]
    held = [(r.id, f.id) for r, f in matches if (r.id, f.id) not in decided]
    return decided, held


def total_of(findings: Iterable[ScoreFinding], scoring: Scoring) -> int:
    """Return the uncapped sum of the findings' severity points."""
    return sum(scoring.points[f.severity] for f in findings)


def score_of(findings: Iterable[ScoreFinding], scoring: Scoring) -> int:
    """Return min(cap, sum of the findings' severity points)."""
    return min(scoring.cap, total_of(findings, scoring))


_TIER_OF_SEVERITY = {
    Severity.INFO: Tier.LOW,
    Severity.LOW: Tier.LOW,
    Severity.MEDIUM: Tier.MEDIUM,
    Severity.HIGH: Tier.HIGH,
    Severity.CRITICAL: Tier.CRITICAL,
}


def carried_by(findings: Iterable[ScoreFinding]) -> Tier:
    """Return the highest tier the findings carry: that of the most severe one (low if none)."""
    return max(
        (_TIER_OF_SEVERITY[f.severity] for f in findings), key=lambda t: t.rank, default=Tier.LOW
    )


def tier_of(
    score: int, findings: Iterable[ScoreFinding], scoring: Scoring, decisive: bool = True
) -> Tier:
    """Return the tier of ``score``, raised to at least high by any critical finding and never
    above the most severe finding (many high findings make a high tier, not a critical one).

    A finding matching a decisive rule raises the tier to at least that rule's tier (never
    lowers it); ``decisive=False`` leaves the decisive rules out.
    """
    findings = list(findings)
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
    ceiling = carried_by(findings)
    if tier.rank > ceiling.rank:
        tier = ceiling
    for rule in scoring.decisive if decisive else []:
        if Tier(rule.tier).rank > tier.rank and any(decisive_matches(rule, f) for f in findings):
            tier = Tier(rule.tier)
    return tier
