"""Terminal output of `assess score` and `assess questionnaire validate|diff` (rich tables)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from assess.kernel.common import Severity
from assess.kernel.tables import print_table
from assess.vendor.answers import AnswerSet
from assess.vendor.diff_models import AnswersDiff
from assess.vendor.questionnaire import Questionnaire
from assess.vendor.scoring.advisory_checks import engine_unsettled
from assess.vendor.scoring.models import ScoreResult

_STYLE = {
    Severity.CRITICAL: "bold red",
    Severity.HIGH: "red",
    Severity.MEDIUM: "yellow",
    Severity.LOW: "cyan",
    Severity.INFO: "dim",
}


def show_value(value: Any) -> str:
    """Return an answer value as short text."""
    if value is True or value is False:
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={v:,}" for k, v in value.items())
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def print_score(result: ScoreResult, console: Console) -> None:
    """Print the findings table, the score, the tier and the formula."""
    vendor = result.vendor.name + (f" ({result.vendor.service})" if result.vendor.service else "")
    console.print(
        f"{vendor}: answers of {result.answered_on.isoformat()}, questionnaire "
        f"{result.questionnaire.id} v{result.questionnaire.version}",
        markup=False,
    )
    table = Table("ref", "severity", "evidence", "pts")
    table.add_column("finding (id)", overflow="fold", ratio=1)
    for f in result.findings:
        title = escape(f.title) + (" [bold](contradicted)[/]" if f.contradiction else "")
        also = "".join(f"\n[dim]+ {escape(m.id)} ({m.severity.value})[/]" for m in f.merged)
        table.add_row(
            f.ref or "-",
            f"[{_STYLE[f.severity]}]{f.severity.value}[/]",
            f.evidence_level.value if f.evidence_level else "-",
            str(f.points),
            f"{title}\n[dim]{escape(f.id)}[/]{also}",
        )
    print_table(console, table)
    counts = ", ".join(
        f"{n} {s.value}" for s, n in sorted(result.counts.items(), key=lambda i: -i[0].rank) if n
    )
    console.print(f"Findings: {counts or 'none'}", markup=False)
    console.print(
        f"Score: {result.score}/100   Tier: {result.tier.value}   "
        f"Points before the cap: {result.points_total}   "
        f"Coverage: {result.coverage.share:.0%}"
        + ("" if result.evidence_verdict == "sufficient" else " (insufficient evidence)"),
        markup=False,
    )
    sections = ", ".join(f"{k} {v}" for k, v in result.section_points.items())
    if sections:
        console.print(f"Points by section: {sections}", markup=False)
    print_evidence_axis(result, console)
    for e in result.evidence:
        about = "about this vendor" if e.about_vendor else "NOT about this vendor"
        scored = "scored" if e.scored else "not scored"
        what = e.endpoint or ", ".join(e.nodes) or "-"
        when = f", {e.dates}" if e.dates else ""
        fresh = e.freshness if e.freshness == "current" else f"{e.freshness} ({e.freshness_reason})"
        console.print(
            f"Evidence ({e.kind}): {what} model {', '.join(e.models) or e.model or '?'}{when}: "
            f"{about} ({e.reason}); {fresh}; {scored}",
            markup=False,
        )
    for d in result.decided_by:
        console.print(
            f"Tier set to {d.tier.value} by decisive rule {d.rule} (finding {d.finding})",
            markup=False,
        )
    for d in result.floors_met:
        console.print(
            f"Decisive rule {d.rule} (finding {d.finding}) keeps the tier at least "
            f"{d.tier.value}; the tier is already {result.tier.value}",
            markup=False,
        )
    _not_checked(console, result)
    console.print(f"Formula: {result.formula}", markup=False)


def _not_checked(console: Console, result: ScoreResult) -> None:
    for adv, why in sorted(result.advisories_not_checked.items()):
        console.print(f"Advisory {adv}: {why}", markup=False)


def _why_insufficient(result: ScoreResult) -> str:
    c = result.coverage
    if c.share >= c.sufficient_at and engine_unsettled(result.findings):
        return "the engine is not named: no engine advisory can be ruled out"
    return f"below {c.sufficient_at:.0%}"


def coverage_line(result: ScoreResult) -> str:
    """Return the evidence axis in one line: coverage, by evidence level, and the verdict."""
    c = result.coverage
    levels = ", ".join(f"{k.value} {v:.0%}" for k, v in c.by_evidence.items() if v)
    verdict = (
        "sufficient evidence"
        if result.evidence_verdict == "sufficient"
        else f"INSUFFICIENT EVIDENCE ({_why_insufficient(result)}): the tier is the risk of "
        "what is known, not a rating of the vendor"
    )
    return (
        f"Evidence coverage: {c.share:.0%} of the weight ({c.answered_weight}/"
        f"{c.applicable_weight}; {levels or 'nothing answered'}), {c.answered} of {c.questions} "
        f"questions; {verdict}"
    )


def print_evidence_axis(result: ScoreResult, console: Console, limit: int = 10) -> None:
    """Print the coverage, the controls in place, the mitigations and the questions to send."""
    c = result.coverage
    console.print(coverage_line(result), markup=False)
    if c.not_applicable:
        console.print(f"Not applicable: {', '.join(c.not_applicable)}", markup=False)
    if c.not_applicable_undocumented:
        console.print(
            "Not applicable on attestation only (still counted unanswered, asked again): "
            + ", ".join(c.not_applicable_undocumented),
            markup=False,
        )
    if c.stale:
        console.print(f"Stale answers (asked again): {', '.join(c.stale)}", markup=False)
    if result.controls_in_place:
        listed = "; ".join(
            f"{p.question} = {show_value(p.value)}"
            + (f" (for {', '.join(p.only_for)})" if p.only_for else "")
            + (f" (not for {', '.join(p.not_for)})" if p.not_for else "")
            + f" [{p.evidence.value}]"
            + (f" STALE (dated {p.date})" if p.stale else "")
            for p in result.controls_in_place
        )
        console.print(f"In place ({len(result.controls_in_place)}): {listed}", markup=False)
    for m in result.mitigations:
        console.print(
            f"Offset: {m.offsets} ({m.severity.value}) by {', '.join(m.by)}: {m.title}",
            markup=False,
        )
    if result.questions_to_send:
        shown = result.questions_to_send[:limit]
        more = len(result.questions_to_send) - len(shown)
        console.print(
            f"Questions to send ({len(result.questions_to_send)}, weightiest first"
            + (f"; {more} more in --json" if more else "")
            + "):",
            markup=False,
        )
        for q in shown:
            stale = " (stale answer)" if q.reason == "stale" else ""
            console.print(f"  ? [{q.priority.value}] {q.id}{stale}: {q.text}", markup=False)


def print_validation(bank: Questionnaire, answers: AnswerSet, console: Console) -> None:
    """Print that ``answers`` are valid and what is still unknown."""
    known = [q for q in bank.questions if answers.get(q.id).known]
    unknown_critical = [
        q.id
        for q in bank.questions
        if q.critical and q not in known and not answers.get(q.id).not_applicable
    ]
    console.print(
        f"{answers.source}: valid ({bank.id} v{bank.version}): {len(known)} of "
        f"{len(bank.questions)} questions answered",
        markup=False,
    )
    if unknown_critical:
        console.print(
            f"unknown critical answers (each lowers the evidence coverage): "
            f"{', '.join(unknown_critical)}",
            markup=False,
        )


def print_diff(diff: AnswersDiff, console: Console) -> None:
    """Print the changed answers and the score before and after."""
    o, n = diff.old, diff.new
    console.print(
        f"{o.source} ({o.date}) -> {n.source} ({n.date}): score {o.score} -> {n.score} "
        f"(points before the cap {o.points_total} -> {n.points_total}), "
        f"tier {o.tier.value} -> {n.tier.value}, coverage {o.coverage:.0%} -> {n.coverage:.0%}"
        + (
            f" ({n.evidence_verdict})"
            if n.evidence_verdict != o.evidence_verdict or n.evidence_verdict != "sufficient"
            else ""
        ),
        markup=False,
    )
    table = Table(expand=True)
    table.add_column("id", overflow="fold", ratio=3)
    table.add_column("old", ratio=2, overflow="fold")  # a changed value is shown whole
    table.add_column("new", ratio=2, overflow="fold")
    table.add_column("change", no_wrap=True)
    for c in diff.changes:
        # Marked in words as well: piped or without colour, red alone would not show it.
        change = f"[red]{c.change.value} (regression)[/]" if c.regression else c.change.value
        table.add_row(
            f"{c.id} (for {c.label})" if c.label else c.id,
            f"{show_value(c.old.value)} ({c.old.evidence.value})",
            f"{show_value(c.new.value)} ({c.new.evidence.value})",
            change,
        )
    if diff.changes:
        print_table(console, table)
    else:
        console.print("no answer changed", markup=False)
    if diff.findings_added:
        console.print(f"new findings: {', '.join(diff.findings_added)}", markup=False)
    if diff.findings_resolved:
        console.print(f"resolved findings: {', '.join(diff.findings_resolved)}", markup=False)
