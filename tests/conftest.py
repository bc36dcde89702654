"""Shared fixtures."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assess.cli import app

REPO = Path(__file__).resolve().parent.parent
ASSETS = Path(__file__).resolve().parent / "assets"


@pytest.fixture
def run_cli() -> Callable[..., object]:
    """Invoke the assess CLI in-process; returns typer's Result (exit_code, stdout, stderr)."""
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None) -> object:
        return runner.invoke(app, list(args), input=input, catch_exceptions=False)

    return invoke
