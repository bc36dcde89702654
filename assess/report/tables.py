"""Rows of the review's tables that must add up, computed once (pure).

A committee reads totals first and checks that the rows under them add up; a table that sums to
4 of 5 affected requests is read as an error in the review. Each function here returns rows
whose counts sum to the total it is shown under, with a labelled row for whatever is not a
named item (requests with no account, accounts past the shown ones).
"""

from __future__ import annotations

from dataclasses import dataclass

from assess.report.models import Exposure, Report

#: How many accounts the per-account table names; the rest are one "other accounts" row.
ACCOUNTS_SHOWN = 25


@dataclass(frozen=True)
class CountRow:
    """One row of a table that adds up: a label, its count, and how to show it."""

    label: str
    count: int
    kind: str = "item"  # item | rest | none | total | unreconciled


def account_rows(exposure: Exposure, shown: int = ACCOUNTS_SHOWN) -> list[CountRow]:
    """Return the per-account rows of the received requests, then one row for the accounts not
    shown, one for the requests with no account, one for any difference the scope document does
    not explain, and the total: the rows before the total always sum to ``exposure.received``."""
    named = [CountRow(a.account_id, a.requests) for a in exposure.accounts[:shown]]
    rest = exposure.accounts[shown:]
    rows = list(named)
    if rest:
        rows.append(
            CountRow(f"{len(rest):,} other accounts", sum(a.requests for a in rest), "rest")
        )
    if exposure.unattributed:
        rows.append(CountRow("(no account in the log)", exposure.unattributed, "none"))
    gap = exposure.received - sum(r.count for r in rows)
    if gap:
        # a hand-edited or older scope document whose parts do not add up: say so, do not hide it
        rows.append(CountRow("not attributed by the scope document", gap, "unreconciled"))
    rows.append(CountRow("Total received", exposure.received, "total"))
    return rows


@dataclass(frozen=True)
class SheetRow:
    """One question of the answers appendix: asked, and answered or not."""

    id: str
    question: str
    answer: str
    evidence: str
    note: str
    ref: str
    answered: bool
    critical: bool = False


def answer_sheet(report: Report) -> list[SheetRow]:
    """Return every question of the questionnaire, answered or not, in its order (questions it
    does not know after, by id)."""
    rows = [
        (
            a.order,
            SheetRow(a.id, a.question, a.value, a.evidence or "-", a.note, a.ref, True, a.critical),
        )  # fmt: skip
        for a in report.answers
    ]
    rows += [
        (q.order, SheetRow(q.id, q.question, "not answered", "-", "", "", False, q.critical))
        for q in report.unanswered
    ]
    return [row for _, row in sorted(rows, key=lambda r: (r[0] or 1 << 30, r[1].id))]
