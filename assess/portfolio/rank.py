"""Rank scored vendors, riskiest first, and compare each with its previous assessment (pure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from assess.kernel.common import Severity
from assess.portfolio.models import Previous, Trend, VendorRow
from assess.portfolio.previous import Earlier, VendorKey, latest_plan, pick, vendor_key
from assess.vendor.scoring.models import ScoreResult, Tier

T = TypeVar("T")
_TIER_RANK = {t.value: t.rank for t in Tier}


@dataclass(frozen=True)
class Scored:
    """One answers file and its score."""

    file: str
    result: ScoreResult


def risk_key(tier: str, score: int, points_total: int | None) -> tuple[int, int, int]:
    """Return what ranks two assessments: tier, then score, then the points before the cap
    (two vendors at the cap of 100 are told apart by how far past it they are)."""
    return (_TIER_RANK.get(tier, -1), score, points_total if points_total is not None else score)


def trend(row_key: tuple[int, int, int], previous: Previous | None) -> Trend:
    """Return ``riskier``, ``better`` or ``same`` against ``previous`` (``new`` without one)."""
    if previous is None:
        return "new"
    before = risk_key(previous.tier, previous.score, previous.points_total)
    if row_key == before:
        return "same"
    return "riskier" if row_key > before else "better"


def rank(scored: Sequence[Scored], earlier: Earlier | None = None) -> list[VendorRow]:
    """Return one row per scored file, riskiest first (rank 1), ties by vendor name and file."""
    earlier = earlier or Earlier()
    rows = [_row(s, earlier) for s in scored]
    rows.sort(
        key=lambda r: (
            tuple(-k for k in risk_key(r.tier, r.score, r.points_total)),
            -r.open_critical,
            r.vendor.casefold(),
            r.file,
        )
    )
    return [r.model_copy(update={"rank": n}) for n, r in enumerate(rows, 1)]


def _of_vendor(found: Mapping[VendorKey, Sequence[T]], name: str, service: str) -> Sequence[T]:
    """Return what ``found`` holds for the vendor (an earlier one that named no service too)."""
    return found.get(vendor_key(name, service)) or found.get(vendor_key(name), [])


def _row(s: Scored, earlier: Earlier) -> VendorRow:
    result = s.result
    name, service = result.vendor.name, result.vendor.service
    prev = pick(_of_vendor(earlier.assessments, name, service), s.file)
    plan = latest_plan(_of_vendor(earlier.plans, name, service))
    settled = plan.settled if plan is not None else frozenset()
    critical = [f.id for f in result.findings if f.severity is Severity.CRITICAL]
    key = risk_key(result.tier.value, result.score, result.points_total)
    return VendorRow(
        rank=0,
        vendor=result.vendor.name,
        service=result.vendor.service,
        file=s.file,
        tier=result.tier.value,
        score=result.score,
        points_total=result.points_total,
        section_points=dict(result.section_points),
        open_critical=sum(1 for fid in critical if fid not in settled),
        critical_settled=sum(1 for fid in critical if fid in settled),
        plan_from=plan.source if plan is not None else None,
        findings=len(result.findings),
        coverage=result.coverage.share,
        evidence_verdict=result.evidence_verdict,
        questions_to_send=len(result.questions_to_send),
        controls_in_place=len(result.controls_in_place),
        last_assessed=result.answered_on.isoformat(),
        trend=trend(key, prev),
        previous=prev,
        score_change=result.score - prev.score if prev else None,
        points_change=(
            result.points_total - prev.points_total
            if prev and prev.points_total is not None
            else None
        ),
    )


def sections_of(rows: Sequence[VendorRow]) -> list[str]:
    """Return every section any row scores, in the order they first appear."""
    return list(dict.fromkeys(s for r in rows for s in r.section_points))
