"""Write docs/reference.md from the CLI itself: every command's and subcommand's ``--help``.

Each help is rendered in this process as ``assess ... --help`` prints it on a terminal of
:data:`COLUMNS` columns (or piped), with no colour codes: click wraps help at
``min(columns, max_content_width) - 2`` (``click.formatting.HelpFormatter``; ``max_content_width``
defaults to 80), so 78 at 80 columns or wider and when piped (``shutil.get_terminal_size`` then
falls back to 80). Click's test runner forces 80 instead (``formatting.FORCED_WIDTH``), which is
why the width is asked of click's own formatter and handed to the command's context.
``tests/test_cli_reference.py`` fails when the checked-in page differs from what the CLI prints;
after changing a command's options or help, rewrite the page with::

    python -m tests.cli_reference          # writes docs/reference.md
    python -m tests.cli_reference --check  # exit 1 when the page is stale
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: the terminal the page shows the help for (80 columns, or any wider one, or piped)
COLUMNS = 80
PAGE = Path(__file__).resolve().parent.parent / "docs" / "reference.md"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

HEADER = """\
# Command reference

Every command's `--help`, as `assess` prints it on a terminal of {columns} columns or wider, or
piped (click wraps help at {width}). This page is generated from
the CLI (`python -m tests.cli_reference`) and `tests/test_cli_reference.py` fails when it differs
from what the commands print, so it cannot drift. Hidden options (old spellings kept for a release,
see [Old spellings](#old-spellings)) are not listed.

"""


def command_paths() -> list[tuple[str, ...]]:
    """Return every command path of the CLI, groups and their subcommands, in help order."""
    import typer.main

    from assess.cli import app

    return list(_walk(typer.main.get_command(app), ()))


def _walk(command: Any, path: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    if getattr(command, "hidden", False):
        return
    yield path
    for name, sub in getattr(command, "commands", {}).items():
        yield from _walk(sub, (*path, name))


def help_width(columns: int = COLUMNS) -> int:
    """Return the width click wraps help at on a terminal of ``columns``, by click's own rule."""
    from click import formatting

    saved = os.environ.get("COLUMNS"), formatting.FORCED_WIDTH
    os.environ["COLUMNS"], formatting.FORCED_WIDTH = str(columns), None
    try:
        return formatting.HelpFormatter().width
    finally:
        formatting.FORCED_WIDTH = saved[1]
        if saved[0] is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved[0]


def render_help(path: tuple[str, ...]) -> str:
    """Return ``assess PATH --help`` as a terminal of :data:`COLUMNS` shows it, without colour
    codes."""
    from typer.testing import CliRunner

    from assess.cli import app

    env = {"COLUMNS": str(COLUMNS), "LINES": "50", "TERM": "dumb", "NO_COLOR": "1"}
    result = CliRunner(env=env).invoke(
        app, [*path, "--help"], prog_name="assess", terminal_width=help_width()
    )
    if result.exit_code != 0:
        raise RuntimeError(f"assess {' '.join(path)} --help: exit {result.exit_code}")
    lines = [line.rstrip() for line in _ANSI.sub("", result.output).splitlines()]
    return "\n".join(lines).strip("\n") + "\n"


def render_page() -> str:
    """Return the whole reference page."""
    parts = [HEADER.format(columns=COLUMNS, width=help_width())]
    for path in command_paths():
        title = " ".join(("assess", *path))
        parts.append(f"## `{title}`\n\n```text\n{render_help(path)}```\n\n")
    parts.append(_old_spellings())
    return "".join(parts).rstrip("\n") + "\n"


def _old_spellings() -> str:
    from assess.cli.options import DEPRECATED

    rows = "".join(f"| `{old}` | `{new}` | {where} |\n" for old, (new, where) in DEPRECATED.items())
    return (
        "## Old spellings\n\n"
        "One name per meaning across commands: these old spellings still work for this release,\n"
        "print a deprecation note on stderr, and are hidden from `--help`.\n\n"
        "| old spelling | use instead | command (meaning) |\n|---|---|---|\n" + rows
    )


def main(argv: list[str]) -> int:
    """Write the page, or with ``--check`` say whether it is current (exit 1 when stale)."""
    page = render_page()
    if "--check" in argv:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        if current != page:
            print(f"{PAGE}: stale; run python -m tests.cli_reference", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(page, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
