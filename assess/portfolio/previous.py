"""Read the earlier assessments ``--previous`` names, to show each vendor's trend.

A previous assessment is any of: a portfolio (``portfolio.json`` of an earlier `assess portfolio
--out`), a score (`assess score --json`) or a review (``report.json`` of `assess report`). A folder
stands for the portfolio or review in it, else for every portfolio, score or review JSON file in it
(other documents there, a manifest say, are passed over). Only the contract keys
are read (vendor name and service, score, tier, points before the cap, date of the answers).

A review also brings its remediation plan (``remediation`` of ``report.json``): each finding's
status (open, in progress, accepted, done). The portfolio counts a critical finding as open
unless the latest review of that vendor planned it done or accepted (:class:`Plan`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field

from assess.kernel.errors import InputError
from assess.kernel.model import Model
from assess.kernel.structured import load_document
from assess.portfolio.models import Previous

#: (vendor name, service), case-folded
VendorKey = tuple[str, str]
FOLDER_FILES = ("portfolio.json", "report.json")


class _View(Model):
    model_config = ConfigDict(frozen=True, extra="ignore")


class _Vendor(_View):
    name: str
    service: str = ""
    answered_on: str | None = None


class _Score(_View):
    kind: Literal["assess.score"]
    vendor: _Vendor
    answered_on: str | None = None
    score: int
    tier: str
    points_total: int | None = None


class _Scoring(_View):
    points_total: int | None = None


class _PlanItem(_View):
    id: str
    kind: str = "finding"
    status: str = "open"
    change: str = ""


class _Report(_View):
    kind: Literal["assess.report"]
    vendor: _Vendor
    generated_at: str = ""
    score: int
    tier: str
    scoring: _Scoring = _Scoring()
    remediation: list[_PlanItem] = Field(default_factory=list)


#: Plan statuses that settle a finding: it no longer counts as open.
SETTLED = frozenset({"done", "accepted"})


@dataclass(frozen=True)
class Plan:
    """A review's remediation plan, as the portfolio reads it."""

    source: str  # the review's file, by name
    generated_at: str
    settled: frozenset[str] = frozenset()  # finding ids planned done or accepted


@dataclass
class Earlier:
    """What ``--previous`` held: each vendor's assessments and review plans, the files read."""

    assessments: dict[VendorKey, list[Previous]] = field(default_factory=dict)
    plans: dict[VendorKey, list[Plan]] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)


class _Row(_View):
    vendor: str
    file: str | None = None
    service: str = ""
    score: int
    tier: str
    points_total: int | None = None
    last_assessed: str | None = None


class _Portfolio(_View):
    kind: Literal["assess.portfolio"]
    vendors: list[_Row]


def vendor_key(name: str, service: str = "") -> VendorKey:
    """Return the key two assessments of one vendor share."""
    return (name.strip().casefold(), service.strip().casefold())


class OtherKind(InputError):
    """A JSON document that is not a portfolio, a score or a review."""


def previous_files(paths: Iterable[Path]) -> list[tuple[Path, bool]]:
    """Return the files ``paths`` stand for (a folder: its portfolio or review, else its JSON),
    each with whether it was only found in a folder (then a document of another kind, such as a
    manifest, is passed over rather than refused).

    Raises:
        InputError: a path that does not exist, or a folder holding no JSON file.
    """
    files: list[tuple[Path, bool]] = []
    for path in paths:
        if path.is_dir():
            named = [path / n for n in FOLDER_FILES if (path / n).is_file()]
            found = sorted(path.glob("*.json"))
            if not named and not found:
                raise InputError(
                    f"{path}: --previous folder holds no portfolio.json, report.json or JSON file",
                    "Give the folder of an earlier `assess portfolio --out` or `assess report`.",
                )
            files += [(named[0], False)] if named else [(f, True) for f in found]
        elif path.is_file():
            files.append((path, False))
        else:
            raise InputError(f"{path}: --previous: no such file or folder")
    return files


def load_previous(paths: Iterable[Path]) -> Earlier:
    """Return every previous assessment of each vendor, in the order read, the remediation plans
    of the reviews among them, and the names of the files read (:func:`pick` chooses the
    assessment a vendor is compared with, :func:`latest_plan` the plan).

    Raises:
        InputError: a file that is missing, unparsable or not a portfolio, score or review.
    """
    earlier = Earlier()
    for file, in_folder in previous_files(paths):
        try:
            read, plan = _read(file)
        except OtherKind:
            if in_folder:
                continue
            raise
        earlier.names.append(file.name)
        for key, prev in read:
            earlier.assessments.setdefault(key, []).append(prev)
            if plan is not None:
                earlier.plans.setdefault(key, []).append(plan)
    return earlier


def latest_plan(plans: Iterable[Plan]) -> Plan | None:
    """Return the plan of the latest review (by its generation time; the last read on a tie)."""
    best: Plan | None = None
    for plan in plans:
        if best is None or plan.generated_at >= best.generated_at:
            best = plan
    return best


def pick(candidates: Iterable[Previous], answers_file: str) -> Previous | None:
    """Return the assessment to compare with: one of the same answers file (a previous portfolio
    says which), else the one with the latest answers (the last read on a tie)."""
    listed = list(candidates)
    same = [p for p in listed if p.file == answers_file]
    best: Previous | None = None
    for prev in same or listed:
        if best is None or (prev.answered_on or "") >= (best.answered_on or ""):
            best = prev
    return best


def _read(file: Path) -> tuple[list[tuple[VendorKey, Previous]], Plan | None]:
    doc = load_document(file)
    kind = doc.data.get("kind") if isinstance(doc.data, dict) else None
    src = file.name
    if kind == "assess.portfolio":
        rows = _Portfolio.from_located(doc).vendors
        return [
            (
                vendor_key(r.vendor, r.service),
                _prev(r.score, r.tier, r.points_total, r.last_assessed, src, r.file),
            )
            for r in rows
        ], None
    if kind == "assess.score":
        s = _Score.from_located(doc)
        when = s.answered_on or s.vendor.answered_on
        return [
            (
                vendor_key(s.vendor.name, s.vendor.service),
                _prev(s.score, s.tier, s.points_total, when, src),
            )
        ], None
    if kind == "assess.report":
        r = _Report.from_located(doc)
        prev = _prev(r.score, r.tier, r.scoring.points_total, r.vendor.answered_on, src)
        settled = {i.id for i in r.remediation if i.status in SETTLED and i.change != "closed"}
        plan = Plan(source=src, generated_at=r.generated_at, settled=frozenset(settled))
        has_plan = "remediation" in r.model_fields_set
        return [(vendor_key(r.vendor.name, r.vendor.service), prev)], plan if has_plan else None
    raise OtherKind(
        f"{file}: --previous: kind {kind!r} is not assess.portfolio, assess.score or assess.report",
        "Give an earlier portfolio.json, an `assess score --json` file or a review's report.json.",
    )


def _prev(
    score: int, tier: str, points: int | None, when: Any, source: str, file: str | None = None
) -> Previous:
    return Previous(
        score=score,
        tier=tier,
        points_total=points,
        answered_on=str(when) if when else None,
        source=source,
        file=file,
    )
