"""Read the earlier assessments ``--previous`` names, to show each vendor's trend.

A previous assessment is any of: a portfolio (``portfolio.json`` of an earlier `assess portfolio
--out`), a score (`assess score --json`) or a review (``report.json`` of `assess report`). A folder
stands for the portfolio or review in it, else for every portfolio, score or review JSON file in it
(other documents there, a manifest say, are passed over). Only the contract keys
are read (vendor name and service, score, tier, points before the cap, date of the answers).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict

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


class _Report(_View):
    kind: Literal["assess.report"]
    vendor: _Vendor
    score: int
    tier: str
    scoring: _Scoring = _Scoring()


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


def load_previous(paths: Iterable[Path]) -> tuple[dict[VendorKey, list[Previous]], list[str]]:
    """Return every previous assessment of each vendor, in the order read, and the names of the
    files read (:func:`pick` chooses the one a vendor is compared with).

    Raises:
        InputError: a file that is missing, unparsable or not a portfolio, score or review.
    """
    found: dict[VendorKey, list[Previous]] = {}
    names: list[str] = []
    for file, in_folder in previous_files(paths):
        try:
            read = _read(file)
        except OtherKind:
            if in_folder:
                continue
            raise
        names.append(file.name)
        for key, prev in read:
            found.setdefault(key, []).append(prev)
    return found, names


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


def _read(file: Path) -> list[tuple[VendorKey, Previous]]:
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
        ]
    if kind == "assess.score":
        s = _Score.from_located(doc)
        when = s.answered_on or s.vendor.answered_on
        return [
            (
                vendor_key(s.vendor.name, s.vendor.service),
                _prev(s.score, s.tier, s.points_total, when, src),
            )
        ]
    if kind == "assess.report":
        r = _Report.from_located(doc)
        prev = _prev(r.score, r.tier, r.scoring.points_total, r.vendor.answered_on, src)
        return [(vendor_key(r.vendor.name, r.vendor.service), prev)]
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
