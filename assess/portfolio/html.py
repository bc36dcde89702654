"""Render a :class:`~assess.portfolio.models.Portfolio` to one self-contained HTML page
(``templates/portfolio/portfolio.html.j2``: jinja2, autoescaped, the stylesheet inline)."""

from __future__ import annotations

from functools import cache

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from assess.kernel.resources import data_dir
from assess.portfolio.models import Portfolio

#: How a trend reads in the table.
TREND_TEXT = {"new": "new", "riskier": "▲ riskier", "better": "▼ better", "same": "= same"}


@cache
def _environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(str(data_dir("templates") / "portfolio")),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def signed(value: int | None) -> str:
    """Return ``+3``, ``-2``, ``0``, or an empty string for None."""
    return "" if value is None else f"{value:+d}" if value else "0"


def render_html(portfolio: Portfolio) -> str:
    """Return the portfolio page."""
    template = _environment().get_template("portfolio.html.j2")
    return template.render(p=portfolio, trend_text=TREND_TEXT, signed=signed)
