"""The remediation plan: one row per finding and per exposure action, carried across reviews.

Owners, due dates and statuses are a person's decisions: they come from ``review.yaml`` and, for
the items it does not mention, from the previous review's ``report.json`` (``--previous DIR``), so a
re-assessment shows what moved. Items are matched across reviews by finding id (refs F-01 ... are
positions and shift when findings come and go).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import Field

from assess.kernel.errors import InputError
from assess.kernel.model import View
from assess.kernel.structured import parse_json
from assess.report.governance import (
    Change,
    ItemStatus,
    LoadedReview,
    PlanEntry,
    PreviousReview,
    RemediationItem,
    plan_key_error,
)
from assess.report.models import Exposure, ReportFinding

_View = View  # a tolerant view of another command's document (assess/kernel/model.py)


class _PrevItem(_View):
    id: str
    ref: str = ""
    title: str = ""
    severity: str = "info"
    owner: str | None = None
    due: str | None = None
    status: ItemStatus = "open"
    note: str = ""
    change: str = ""


class _PrevGovernance(_View):
    report_id: str | None = None
    version: str | None = None
    classification: str | None = None
    scope_statement: str | None = None


class PreviousView(_View):
    """What the plan reads of an earlier review's report.json (older ones have no plan: their
    findings count as open and unowned)."""

    kind: str
    generated_at: str
    tier: str
    score: int
    findings: list[_PrevItem] = Field(default_factory=list)
    remediation: list[_PrevItem] = Field(default_factory=list)
    governance: _PrevGovernance = _PrevGovernance()

    def items(self) -> dict[str, _PrevItem]:
        """Return the previous plan's items by id (closed ones dropped: they were settled)."""
        if "remediation" in self.model_fields_set:
            return {i.id: i for i in self.remediation if i.change != "closed"}
        return {f.id: f for f in self.findings}


@dataclass(frozen=True)
class Previous:
    """The previous review, loaded: the view and its summary for report.json."""

    view: PreviousView
    summary: PreviousReview
    path: Path


def load_previous(path: Path, option: str = "--previous") -> Previous:
    """Load the previous review from a review folder (its report.json) or a report.json file.

    Raises:
        InputError: when there is no report.json, or it is not an assess.report document.
    """
    file = path / "report.json" if path.is_dir() else path
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise InputError(
            f"{file}: cannot read the earlier review ({exc.strerror or exc})",
            f"{option} takes the folder of an earlier `assess report` run, or its report.json.",
        ) from exc
    doc = parse_json(data.decode("utf-8", errors="replace"), str(file))
    if not isinstance(doc.data, dict) or doc.data.get("kind") != "assess.report":
        raise InputError(
            f"{file}: not an assess.report document",
            f"{option} takes the folder of an earlier `assess report` run, or its report.json.",
        )
    view = PreviousView.from_located(doc)
    summary = PreviousReview(
        report_id=view.governance.report_id,
        version=view.governance.version,
        generated_at=view.generated_at,
        tier=view.tier,
        score=view.score,
        sha256=hashlib.sha256(data).hexdigest(),
    )
    return Previous(view=view, summary=summary, path=file)


def due_from_review_date(loaded: LoadedReview, review_date: str) -> LoadedReview:
    """Return the review file with its due dates counted from ``review_date`` (the review's
    ``generated_at``): each falls as many days after it as the file puts it after its last
    signature (the approver's date, else the reviewer's, else the assessor's). The demo plans
    this way, so its dates are never overdue whenever it is run, and never read the clock."""
    people = loaded.review.people
    signed = (people.approver or people.reviewer or people.assessor).date
    day = dt.date.fromisoformat(review_date[:10])
    plan = {
        key: entry.model_copy(update={"due": day + (entry.due - signed)})
        if entry.due is not None
        else entry
        for key, entry in loaded.review.remediation.items()
    }
    return replace(loaded, review=loaded.review.model_copy(update={"remediation": plan}))


@dataclass(frozen=True)
class _Item:
    ref: str
    id: str
    kind: str
    title: str
    severity: str


#: The exposure actions a review file may plan, whether or not this run scoped logs.
EXPOSURE_ACTION_IDS = frozenset({"exposure.purge", "exposure.notify", "exposure.disclosed"})


def exposure_actions(exposure: Exposure) -> list[_Item]:
    """Return what the exposure asks us to do: purge the affected ids, notify the accounts,
    weigh the prompts that may have been disclosed. Empty when nothing was exposed."""
    if not exposure.assessed:
        return []
    possible = exposure.possibly_affected.get("requests", 0)
    possible = possible if isinstance(possible, int) else 0
    actions: list[tuple[str, str, str]] = []
    if exposure.received or possible:
        where = (
            f" (listed in {exposure.affected_requests_file})"
            if exposure.affected_requests_file
            else ""
        )
        also = f" and the {possible:,} possibly affected" if possible else ""
        actions.append(
            (
                "exposure.purge",
                f"Purge the {exposure.received:,} received{also} request ids{where} from "
                "caches, logs and every downstream store",
                "high" if exposure.received else "medium",
            )
        )
    if exposure.received and exposure.accounts_unknown:
        actions.append(
            (
                "exposure.notify",
                "Tell the affected accounts once they are known: these logs cannot tell them "
                f"({exposure.accounts_unknown})",
                "high",
            )
        )
    elif exposure.received:
        accounts = len(exposure.accounts)
        none = (
            f"; trace the {exposure.unattributed:,} with no account"
            if exposure.unattributed
            else ""
        )
        actions.append(
            (
                "exposure.notify",
                f"Notify the owners of the {accounts:,} affected account(s){none}",
                "high",
            )
        )
    disclosed = exposure.disclosed.get("requests")
    if isinstance(disclosed, int) and disclosed:
        actions.append(
            (
                "exposure.disclosed",
                f"Assess the {disclosed:,} prompts that sat in the shared pool for data "
                "that others may have received (data-protection review)",
                "medium",
            )
        )
    return [
        _Item(ref=f"E-{n:02d}", id=aid, kind="exposure", title=title, severity=sev)
        for n, (aid, title, sev) in enumerate(actions, 1)
    ]


def build_plan(
    findings: Sequence[ReportFinding],
    exposure: Exposure,
    review: LoadedReview | None,
    previous: PreviousView | None,
    review_date: str,
) -> list[RemediationItem]:
    """Return the remediation plan: findings (not the informational ones), then exposure
    actions, then (with a previous
    review) the items it had that this review no longer raises: findings marked closed, exposure
    actions not yet done carried on (logs not given again do not purge anything).

    Raises:
        InputError: when ``review.yaml`` plans an item this review does not have.
    """
    items = [
        _Item(ref=f.ref, id=f.id, kind="finding", title=f.title, severity=f.severity.value)
        for f in findings
        if f.severity.value != "info"  # informational: nothing to remediate, never "open"
    ] + exposure_actions(exposure)
    before = previous.items() if previous is not None else None
    gone = [p for pid, p in (before or {}).items() if pid not in {i.id for i in items}]
    actions = sum(1 for i in items if i.kind == "exposure")
    carried = [p for p in gone if p.id.startswith("exposure.") and p.status != "done"]
    items += [
        _Item(
            ref=f"E-{actions + n:02d}", id=p.id, kind="exposure", title=p.title, severity=p.severity
        )
        for n, p in enumerate(carried, 1)
    ]
    entries = _entries(review, items)
    rows = [_row(item, entries.get(item.id), before, review_date) for item in items]
    rows += [_closed(p) for p in gone if p not in carried]
    return rows


def _entries(review: LoadedReview | None, items: Sequence[_Item]) -> dict[str, PlanEntry]:
    """Return review.yaml's plan entries by item id (keys may be refs or ids)."""
    if review is None:
        return {}
    by_key = {i.ref: i.id for i in items} | {i.id: i.id for i in items}
    out: dict[str, PlanEntry] = {}
    for key, entry in review.review.remediation.items():
        if key in EXPOSURE_ACTION_IDS and key not in by_key:
            continue  # a known action this run has no exposure for (no logs given): not a typo
        if key not in by_key:
            raise plan_key_error(review, key, [f"{i.ref} ({i.id})" for i in items])
        out[by_key[key]] = entry
    return out


def _row(
    item: _Item,
    entry: PlanEntry | None,
    before: Mapping[str, Any] | None,
    review_date: str,
) -> RemediationItem:
    prev = before.get(item.id) if before is not None else None
    if entry is not None:
        owner, due, status, note = (
            entry.owner,
            entry.due.isoformat() if entry.due else None,
            entry.status,
            entry.note,
        )
    elif prev is not None:
        owner, due, status, note = prev.owner, prev.due, prev.status, prev.note
    else:
        owner, due, status, note = None, None, "open", ""
    change: Change
    if before is None:
        change = ""
    elif prev is None:
        change = "new"
    elif prev.status != status:
        change = "status changed"
    else:
        change = "still open" if status in ("open", "in progress") else "unchanged"
    return RemediationItem(
        ref=item.ref,
        id=item.id,
        kind="finding" if item.kind == "finding" else "exposure",
        title=item.title,
        severity=item.severity,
        owner=owner,
        due=due,
        status=status,
        note=note,
        overdue=bool(due and due < review_date[:10] and status in ("open", "in progress")),
        change=change,
        previous_status=prev.status if prev is not None else None,
    )


def _closed(prev: Any) -> RemediationItem:
    action = prev.id.startswith("exposure.")
    return RemediationItem(
        ref="-",
        id=prev.id,
        kind="exposure" if action else "finding",
        title=prev.title or prev.id,
        severity=prev.severity,
        owner=prev.owner,
        due=prev.due,
        status="done",
        note="Done by the previous review." if action else "Not raised by this assessment.",
        change="closed",
        previous_status=prev.status,
    )
