"""The ``assess`` command line: a thin shell over the core.

Each subcommand lives in its own module with a ``register(app)`` function; :func:`main` imports only
the module of the command being run (the probe's openai SDK alone takes 0.4 s to import, which a
scope run over a small log should not pay). The root group catches
:class:`~assess.kernel.errors.AssessError` once, prints it as one paragraph and exits 2;
``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
import traceback
from typing import Any, NoReturn

import typer
from typer.core import TyperGroup

from assess import __version__
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
    """Console-script entry point."""
    # numpy (imported by pyarrow) starts OpenBLAS worker threads that spin on a 2-core machine;
    # assess does no linear algebra. Only a default: the user's own setting wins.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # the imports below make objects that live for the whole run, not garbage: collecting while
    # they are made only slows start-up (~5% of a command's imports)
    gc.disable()
    command = _command_in(sys.argv[1:])
    if command in _READ_LOGS:
        reuse_freed_blocks()
        _pyarrow_without_pandas()
    application = build_app(command)
    # the objects made by imports live for the whole run: keep them out of every collection
    gc.freeze()
    gc.enable()
    try:
        application()
    except AssessError as exc:  # raised outside a command (e.g. while building options)
        typer.echo(f"error: {exc.render()}", err=True)
        _leave(exc.exit_code)
    except SystemExit as exc:  # typer ends every run with one
        _leave(exc.code)
    _leave(0)


#: Commands that read request logs through pyarrow.
_READ_LOGS = frozenset({"scope", "report"})


#: glibc ``mallopt`` options (malloc.h) and the values :func:`reuse_freed_blocks` sets.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_ALLOCATOR = ((_M_MMAP_THRESHOLD, 64 << 20), (_M_TRIM_THRESHOLD, 1 << 30))


def reuse_freed_blocks() -> bool:
    """Let glibc reuse the memory of freed 16 MB log blocks instead of mapping fresh pages.

    The NDJSON reader assembles one 16 MB block after another. By default glibc serves requests
    that size with fresh mappings (its mmap threshold follows the last block freed) or from
    per-thread heaps that it trims, and every page of fresh memory faults on first touch: 189,000
    page faults and 1.2 s of kernel time over 5M rows. A fixed 64 MB mmap threshold and trimming
    only above 1 GB keep freed blocks for the next ones. glibc's per-thread arenas are left as
    they are: limiting them to one (as an earlier version did) cost 60-100 MB more peak RSS (one
    run reached 489 MB of the 512 MB target) for no steady gain in three interleaved A/Bs at 5M
    rows (docs/PERFORMANCE.md). glibc only; returns whether the settings were applied.
    """
    try:
        if not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"):
            return False
    except (AttributeError, ValueError, OSError):  # not glibc, or no confstr on this system
        return False
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    return all(libc.mallopt(option, value) == 1 for option, value in _ALLOCATOR)


def _pyarrow_without_pandas() -> None:
    """Let pyarrow find no pandas in this process.

    pyarrow imports pandas the first time ``pa.array`` or ``pa.table`` checks whether it was
    handed a pandas object: 0.2 s, holding the GIL that the log reader's threads need at the
    start of a run. assess never hands it one. pyarrow tries that import once and keeps the
    answer, so the try is made to fail here; ``import pandas`` itself works again afterwards.
    """
    if "pandas" in sys.modules:
        return
    import pyarrow as pa

    blocker = _NoPandas()
    sys.meta_path.insert(0, blocker)
    try:
        pa.array([0])
    finally:
        sys.meta_path.remove(blocker)


class _NoPandas:
    """An import finder (``sys.meta_path`` entry) that says pandas is not installed."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if fullname == "pandas":
            raise ModuleNotFoundError("pandas is kept out of this run", name=fullname)
        return None


def _leave(code: object) -> NoReturn:
    """Exit with ``code`` (as ``sys.exit`` reads it) without tearing the interpreter down.

    Every output is written, closed and renamed into place before a command returns, so the
    teardown would only free memory the system takes back anyway, and it is not free: after a
    scope run it collects every object the imports made (about 0.2 s).
    """
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (assess ... | head): nothing left to say
            pass
    os._exit(status)
