"""Totals that add up: per-account rows sum to the received count; nothing reads "0 of 0"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from assess.report.models import ScopeView
from assess.report.sections import exposure_section
from assess.report.tables import account_rows
from assess.report.text import exposure_sentence
from tests.report.conftest import copy_assets, full_args, invoke

accounts = st.lists(
    st.tuples(st.text(min_size=1, max_size=8), st.integers(min_value=1, max_value=10_000)),
    max_size=60,
    unique_by=lambda a: a[0],
)


def scope_doc(rows: list[tuple[str, int]], unattributed: int, requests: int | None) -> ScopeView:
    affected: dict[str, Any] = {
        "accounts": [{"account_id": a, "requests": n} for a, n in rows],
        "unattributed": unattributed,
    }
    if requests is not None:
        affected["requests"] = requests
    counts = {"in_window": 10, "over_threshold": sum(n for _, n in rows) + unattributed}
    return ScopeView.model_validate({"counts": counts, "affected": affected})


@given(rows=accounts, unattributed=st.integers(min_value=0, max_value=1_000))
def test_account_rows_sum_to_the_received_count(
    rows: list[tuple[str, int]], unattributed: int
) -> None:
    total = sum(n for _, n in rows) + unattributed
    exposure = exposure_section(scope_doc(rows, unattributed, total), None, False, None)
    table = account_rows(exposure)
    body, last = table[:-1], table[-1]
    assert last.kind == "total" and last.count == exposure.received == total
    assert sum(r.count for r in body) == total
    assert not [r for r in body if r.kind == "unreconciled"]  # a consistent document
    assert len([r for r in body if r.kind == "item"]) == min(len(rows), 25)
    assert [r.count for r in body if r.kind == "none"] == ([unattributed] if unattributed else [])


@given(
    rows=accounts,
    unattributed=st.integers(min_value=0, max_value=1_000),
    stated=st.integers(min_value=0, max_value=100_000),
)
def test_a_document_that_does_not_add_up_says_so(
    rows: list[tuple[str, int]], unattributed: int, stated: int
) -> None:
    exposure = exposure_section(scope_doc(rows, unattributed, stated), None, False, None)
    body = account_rows(exposure)[:-1]
    assert sum(r.count for r in body) == stated
    gap = stated - sum(n for _, n in rows) - unattributed
    assert [r.count for r in body if r.kind == "unreconciled"] == ([gap] if gap else [])


def test_the_no_account_row_completes_the_demo_like_table() -> None:
    """The case the committee saw: 4 requests with accounts, 1 without, 5 received."""
    scope = scope_doc([("acct-a", 2), ("acct-b", 1), ("acct-c", 1)], 1, 5)
    labels = [(r.label, r.count) for r in account_rows(exposure_section(scope, None, False, None))]
    assert labels == [
        ("acct-a", 2),
        ("acct-b", 1),
        ("acct-c", 1),
        ("(no account in the log)", 1),
        ("Total received", 5),
    ]


def test_accounts_past_the_shown_ones_are_one_row() -> None:
    scope = scope_doc([(f"a{i:02d}", 1) for i in range(30)], 0, 30)
    table = account_rows(exposure_section(scope, None, False, None), shown=25)
    assert [(r.label, r.count, r.kind) for r in table[-2:]] == [
        ("5 other accounts", 5, "rest"),
        ("Total received", 30, "total"),
    ]


def test_nothing_to_count_is_not_assessable_not_zero_of_zero() -> None:
    empty = ScopeView.model_validate({"counts": {"in_window": 0}, "affected": {"requests": 0}})
    sentence = exposure_sentence(exposure_section(empty, None, False, None))
    assert sentence.startswith("Not assessable from these logs: none of our requests was in")
    assert "0 requests" not in sentence


def test_no_logged_response_text_is_not_assessable_in_the_review(tmp_path: Path) -> None:
    def no_text(name: str, doc: dict[str, Any]) -> None:
        if name == "scope.json":
            doc["candidate_foreign_data"] = {"responses_checked": 0, "responses_flagged": 0}

    src = copy_assets(tmp_path / "in", no_text)
    assert invoke(*full_args(src, tmp_path / "out", "--format", "html")).exit_code == 0
    html = (tmp_path / "out" / "report.html").read_text()
    assert "<strong>Not assessable:</strong> none of the affected" in html
    assert "0 of the 0" not in html
