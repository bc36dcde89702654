"""CLI for `assess portfolio`: many vendors scored and ranked in one table and one HTML page."""

from __future__ import annotations

from pathlib import Path

import typer

PORTFOLIO_JSON = "portfolio.json"
PORTFOLIO_HTML = "portfolio.html"

HELP = (
    "Score many vendors' answers and rank them, riskiest first: tier, score, points before the "
    "cap, points per section, open critical findings, date of the answers, and the trend against "
    "--previous assessments. A file that cannot be scored is named and left out; the others are "
    "still ranked (exit 2 only when none can be scored).\n\n"
    "Example: assess portfolio answers/*.yaml --previous last-quarter/ --out portfolio"
)


def register(app: typer.Typer) -> None:
    """Add the `portfolio` command to ``app``."""

    @app.command("portfolio", help=HELP)
    def portfolio_cmd(
        answers: list[str] = typer.Argument(
            ..., metavar="ANSWERS...", help="Answers files (YAML, JSON, xlsx, csv; globs allowed)."
        ),
        previous: list[Path] = typer.Option(
            [],
            "--previous",
            metavar="DIR_OR_JSON",
            help="An earlier portfolio (folder or portfolio.json), `assess score --json` file or "
            "review (folder or report.json); repeat. Gives each vendor's trend.",
        ),
        out: Path | None = typer.Option(
            None, "--out", "-o", metavar="DIR", help="Write portfolio.html and portfolio.json here."
        ),
        json_out: str | None = typer.Option(
            None,
            "--json",
            metavar="FILE",
            help="Write the portfolio document here ('-': stdout only).",
        ),
    ) -> None:
        """Rank many vendors (see HELP)."""
        from assess.kernel.atomic import write_text, write_text_or_stdout
        from assess.kernel.output import stdout_console, to_json
        from assess.portfolio.api import build_portfolio
        from assess.portfolio.html import render_html
        from assess.portfolio.render import print_portfolio

        portfolio = build_portfolio(answers, previous=previous)
        for item in portfolio.skipped:  # one line each, never wrapped
            typer.echo(f"skipped {item.file}: {' '.join(item.error.split())}", err=True)
        document = to_json(portfolio)
        if out is not None:  # the folder is made by the first write; a file there is exit 2
            write_text(out / PORTFOLIO_HTML, render_html(portfolio))
            write_text(out / PORTFOLIO_JSON, document)
        if json_out is not None:
            write_text_or_stdout(json_out, document)
        if json_out != "-":
            print_portfolio(portfolio, stdout_console())
            if out is not None:
                typer.echo(f"Wrote:\n  {out / PORTFOLIO_HTML}\n  {out / PORTFOLIO_JSON}")
