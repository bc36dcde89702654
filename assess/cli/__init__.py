"""The ``assess`` command line: a thin shell over the core.

Each subcommand lives in its own module with a ``register(app)`` function; :func:`main` imports only
the module of the command being run (the probe's openai SDK alone takes 0.4 s to import, which a
scope run over a small log should not pay). The root group catches
:class:`~assess.kernel.errors.AssessError` once, prints it as one paragraph and exits 2;
``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import importlib
import sys
import traceback
from typing import Any

import typer
from typer.core import TyperGroup

from assess import __version__
from assess.cli import _runtime
from assess.kernel.errors import AssessError


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


def _new_app() -> typer.Typer:
    return typer.Typer(
        rich_markup_mode=None,  # plain help: typer.rich_utils costs a third of --help CPU
        name="assess",
        cls=AssessGroup,
        help=(
            "Judge hosted-LLM vendors and scope your exposure when one has an incident.\n\n"
            "Is this vendor safe? (questionnaire, score)  Were we exposed? (scope)  "
            "Does isolation hold now? (probe, lab, deploy-check)  All together: report, demo.  "
            "Many vendors: portfolio."
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


def root(
    ctx: typer.Context,
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Judge hosted-LLM vendors and scope your exposure when one has an incident."""
    ctx.obj = {"debug": debug}


# command name -> module whose register() adds it (probe also adds lab; report also adds demo)
COMMAND_MODULES: dict[str, str] = {
    "questionnaire": "assess.cli.questionnaire",
    "score": "assess.cli.score",
    "scope": "assess.cli.scope",
    "advisories": "assess.cli.advisories",
    "probe": "assess.cli.probe",
    "lab": "assess.cli.probe",
    "deploy-check": "assess.cli.deploy_check",
    "report": "assess.cli.report",
    "demo": "assess.cli.report",
    "verify": "assess.cli.verify",
    "keys": "assess.cli.keys",
    "review": "assess.cli.review",
    "portfolio": "assess.cli.portfolio",
    "samples": "assess.cli.samples",
}


def build_app(only: str | None = None) -> typer.Typer:
    """Return the CLI with every command, or with just the command ``only`` when it is known."""
    application = _new_app()
    application.callback()(root)
    wanted = [COMMAND_MODULES[only]] if only in COMMAND_MODULES else COMMAND_MODULES.values()
    for module_name in dict.fromkeys(wanted):
        importlib.import_module(module_name).register(application)
    return application


def __getattr__(name: str) -> Any:
    """Build the full ``app`` on first use (``from assess.cli import app`` in tests)."""
    if name == "app":
        application = build_app()
        globals()["app"] = application
        return application
    raise AttributeError(name)


def _command_in(argv: list[str]) -> str | None:
    """Return the first word of ``argv`` that is not an option (the command), if any."""
    return next((word for word in argv if not word.startswith("-")), None)


def main() -> None:
    """Console-script entry point (process tuning: :mod:`assess.cli._runtime`)."""
    command = _command_in(sys.argv[1:])
    asks_help = bool({"--help", "-h"} & set(sys.argv[1:]))
    _runtime.before_imports(None if asks_help else command)  # help reads no logs: no pyarrow
    application = build_app(command)
    _runtime.after_imports()
    try:
        application()
    except AssessError as exc:  # raised outside a command (e.g. while building options)
        typer.echo(f"error: {exc.render()}", err=True)
        _runtime.leave(exc.exit_code)
    except SystemExit as exc:  # typer ends every run with one
        _runtime.leave(exc.code)
    _runtime.leave(0)
