"""Start-up: `assess --help` and every command's `--help` import nothing optional.

The help of a command is read from its options alone; the openai SDK (0.7 s), pandas, pyarrow,
weasyprint and the rest are imported by the command when it runs. The modules a process imported
are read from ``python -X importtime``, which lists every one of them on stderr.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import REPO

#: what `--help` must not import: optional or heavy, needed only by a command that runs
HEAVY = frozenset(
    {
        "openai",
        "pandas",
        "pyarrow",
        "polars",
        "numpy",
        "weasyprint",
        "jinja2",
        "openpyxl",
        "httpx",
        "sqlglot",
        "jsonschema",
        "pypdf",
        # typer's rich help (typer.rich_utils: rich.markdown, markdown_it, pygments) is a third of
        # a --help's CPU: the commands print plain help (rich_markup_mode=None)
        "markdown_it",
        "pygments",
    }
)


def imported(*args: str, code: int = 0) -> set[str]:
    """Return the top-level packages `python -m assess ARGS` imports (and check its exit code)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "assess", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "80"},
        check=False,
    )
    assert done.returncode == code, done.stderr[-2000:]
    names = set()
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    assert "assess" in names  # the listing was read
    return names


def _leaves(command: Any, path: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    if hasattr(command, "commands"):  # a group
        yield path
        for name, sub in command.commands.items():
            yield from _leaves(sub, (*path, name))
    else:
        yield path


def _command_paths() -> list[tuple[str, ...]]:
    import typer.main

    from assess.cli import app

    return list(_leaves(typer.main.get_command(app), ()))


def test_the_import_listing_sees_a_heavy_import() -> None:
    """Positive control: a command that runs imports what its --help must not."""
    run = imported("scope", "samples/logs/litellm.ndjson", "--json", "-", code=1)
    assert {"pyarrow", "numpy"} <= run & HEAVY
    assert not {"pyarrow", "numpy"} & imported("scope", "--help")


@pytest.mark.parametrize("path", _command_paths(), ids=lambda p: " ".join(p) or "assess")
def test_help_imports_nothing_optional(path: tuple[str, ...]) -> None:
    heavy = imported(*path, "--help") & HEAVY
    assert not heavy, f"`assess {' '.join(path)} --help` imports {sorted(heavy)}"


def test_the_cli_defaults_match_the_core() -> None:
    """The CLI names two defaults itself (so --help imports no core): they are the core's."""
    from assess.cli import probe as probe_cli
    from assess.cli import report as report_cli
    from assess.probe.api import DEFAULT_KEY_ENV
    from assess.report.files import DEFAULT_FORMATS

    assert probe_cli.DEFAULT_KEY_ENV == DEFAULT_KEY_ENV
    assert report_cli.DEFAULT_FORMATS == DEFAULT_FORMATS
