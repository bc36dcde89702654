"""Terminal output of `assess portfolio` (a rich table)."""

from __future__ import annotations

import textwrap

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from assess.kernel.tables import fits
from assess.portfolio.html import TREND_TEXT, signed
from assess.portfolio.models import Portfolio

_TIER_STYLE = {"critical": "bold red", "high": "red", "medium": "yellow", "low": "green"}
_TREND_STYLE = {"riskier": "red", "better": "green"}


def coverage_cell(share: float | None, verdict: str) -> str:
    """Return the coverage as a percentage, marked when the evidence is insufficient."""
    if share is None:
        return "-"
    return f"{share:.0%} cov" + ("" if verdict == "sufficient" else "[bold]*[/]")


def print_portfolio(portfolio: Portfolio, console: Console) -> None:
    """Print the vendors, riskiest first, one row each (the points per section under the vendor,
    largest first, so the table fits a terminal; the HTML page has a column per section)."""
    table = Table()
    table.add_column("#", no_wrap=True)
    table.add_column("vendor (points by section)", ratio=1, min_width=16)
    table.add_column("tier\ncover", no_wrap=True)
    for name in ("score", "points", "crit", "assessed", "trend"):
        table.add_column(name, no_wrap=True)
    for v in portfolio.vendors:
        change = f" ({signed(v.score_change)})" if v.previous else ""
        style = _TREND_STYLE.get(v.trend)
        trend = escape(TREND_TEXT[v.trend] + change)
        by_section = sorted(v.section_points.items(), key=lambda kv: (-kv[1], kv[0]))
        table.add_row(
            str(v.rank),
            escape(v.vendor)
            + f"\n[dim]{escape(', '.join(f'{k} {n}' for k, n in by_section if n))}[/]",
            f"[{_TIER_STYLE.get(v.tier, '')}]{v.tier}[/]\n"
            + coverage_cell(v.coverage, v.evidence_verdict),
            str(v.score),
            str(v.points_total),
            str(v.open_critical)
            + (f" (+{v.critical_settled} settled)" if v.critical_settled else ""),
            v.last_assessed,
            f"[{style}]{trend}[/]" if style else trend,
        )
    if not fits(table, console.width):
        _print_vertical(portfolio, console)  # narrower than the table: one block per vendor
    else:
        console.print(table)
    console.print(
        "Ranked by risk (tier, score, points before the cap) from what is known; coverage is "
        "the share of the questionnaire's weight answered (under the tier); * marks insufficient "
        "evidence to rate the vendor, whatever its tier (see each score's questions_to_send).",
        markup=False,
    )


def _print_vertical(portfolio: Portfolio, console: Console) -> None:
    """Print each vendor as a few wrapped lines, every value whole (a narrow terminal)."""
    for v in portfolio.vendors:
        change = f" ({signed(v.score_change)})" if v.previous else ""
        settled = f" (+{v.critical_settled} settled)" if v.critical_settled else ""
        cover = Text.from_markup(coverage_cell(v.coverage, v.evidence_verdict)).plain
        by_section = sorted(v.section_points.items(), key=lambda kv: (-kv[1], kv[0]))
        lines = [
            f"{v.rank}. {v.vendor}",
            f"   tier {v.tier} ({cover}), score {v.score}, points {v.points_total}, "
            f"critical open {v.open_critical}{settled}",
            f"   assessed {v.last_assessed}, trend {TREND_TEXT[v.trend]}{change}",
            # a no-break space keeps each section with its points when the line wraps
            "   " + (", ".join(f"{k}\u00a0{n}" for k, n in by_section if n) or "no points"),
        ]
        for line in lines:  # wrapped at spaces only: a name or a date is never split
            wrapped = textwrap.fill(
                line,
                width=max(console.width, 20),
                subsequent_indent="   ",
                break_long_words=False,
                break_on_hyphens=False,
            )
            console.print(wrapped, markup=False, highlight=False, soft_wrap=True)
