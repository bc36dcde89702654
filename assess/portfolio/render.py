"""Terminal output of `assess portfolio` (a rich table)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from assess.portfolio.html import TREND_TEXT, signed
from assess.portfolio.models import Portfolio

_TIER_STYLE = {"critical": "bold red", "high": "red", "medium": "yellow", "low": "green"}
_TREND_STYLE = {"riskier": "red", "better": "green"}


def print_portfolio(portfolio: Portfolio, console: Console) -> None:
    """Print the vendors, riskiest first, one row each (the points per section under the vendor,
    largest first, so the table fits a terminal; the HTML page has a column per section)."""
    table = Table()
    table.add_column("#", no_wrap=True)
    table.add_column("vendor (points by section)", ratio=1, min_width=16)
    for name in ("tier", "score", "points", "crit", "assessed", "trend"):
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
            f"[{_TIER_STYLE.get(v.tier, '')}]{v.tier}[/]",
            str(v.score),
            str(v.points_total),
            str(v.open_critical)
            + (f" (+{v.critical_settled} settled)" if v.critical_settled else ""),
            v.last_assessed,
            f"[{style}]{trend}[/]" if style else trend,
        )
    console.print(table)
