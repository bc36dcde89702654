"""The ``assess`` command line: a thin shell over the core.

Each subcommand lives in its own module with a ``register(app)`` function. The root group catches
:class:`~assess.errors.AssessError` once, prints it as one paragraph and exits 2; ``--debug`` shows
the traceback instead.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any

import typer
from typer.core import TyperGroup

from assess import __version__
from assess.cli import (
    advisories,
    deploy_check,
    probe,
    questionnaire,
    report,
    scope,
    score,
)
from assess.errors import AssessError


class AssessGroup(TyperGroup):
    """Root group: prints an AssessError as one paragraph and exits with its code (2)."""

    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except AssessError as exc:
            if (ctx.obj or {}).get("debug"):
                traceback.print_exc()
            typer.echo(f"error: {exc.render()}", err=True)
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            typer.echo("interrupted", err=True)
            raise typer.Exit(130) from None


app = typer.Typer(
    name="assess",
    cls=AssessGroup,
    help=(
        "Judge hosted-LLM vendors and scope your exposure when one has an incident.\n\n"
        "Is this vendor safe? (questionnaire, score)  Were we exposed? (scope)  "
        "Does isolation hold now? (probe, lab, deploy-check)  All together: report, demo."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"assess {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Judge hosted-LLM vendors and scope your exposure when one has an incident."""
    ctx.obj = {"debug": debug}


for _module in (questionnaire, score, scope, advisories, probe, deploy_check, report):
    _module.register(app)


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except AssessError as exc:  # raised outside a command (e.g. while building options)
        typer.echo(f"error: {exc.render()}", err=True)
        sys.exit(exc.exit_code)
