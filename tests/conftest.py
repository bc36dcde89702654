"""Shared fixtures."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings
from typer.testing import CliRunner

from assess.cli import app

REPO = Path(__file__).resolve().parent.parent
ASSETS = Path(__file__).resolve().parent / "assets"
#: The environment of every in-process CLI run in the tests: a fixed, wide console.
CLI_ENV = {"COLUMNS": "1000", "LINES": "50", "TERM": "dumb"}
# Subprocesses the tests start inherit the environment: give them rich's own default for a
# console that is not a terminal (80 columns), whatever the width of the terminal pytest runs in.
os.environ["COLUMNS"] = "80"
os.environ["LINES"] = "50"

# CI runs the same examples every time: a property failure is found on a laptop, not by chance
# in a landing run. Locally hypothesis explores new examples on each run.
# No example has a time limit: how long one takes depends on the machine's load, not on the code
# (hypothesis' 200 ms deadline failed a first example under two busy cores).
settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
settings.register_profile("local", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "local")


@pytest.fixture
def run_cli() -> Callable[..., object]:
    """Invoke the assess CLI in-process; returns typer's Result (exit_code, stdout, stderr).

    The console width is fixed (rich reads ``COLUMNS``) and wide, so no message wraps whatever the
    terminal the tests run in and however long pytest's temporary paths are.
    """
    runner = CliRunner(env=CLI_ENV)

    def invoke(*args: str, input: str | None = None) -> object:
        return runner.invoke(app, list(args), input=input, catch_exceptions=False)

    return invoke
