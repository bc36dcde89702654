"""Terminal output of `assess portfolio` (a rich table)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

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
    console.print(table)
    console.print(
        "Ranked by risk (tier, score, points before the cap) from what is known; coverage is "
        "the share of the questionnaire's weight answered (under the tier); * marks insufficient "
        "evidence to rate the vendor, whatever its tier (see each score's questions_to_send).",
        markup=False,
    )
