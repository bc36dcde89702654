"""docs/reference.md is what the CLI prints: every command's ``--help`` on a terminal of 80
columns (tests/cli_reference.py writes it; this test fails when the page and the CLI differ)."""

from __future__ import annotations

import difflib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import cli_reference
from tests.conftest import REPO


def test_the_reference_page_is_what_the_cli_prints() -> None:
    printed = cli_reference.render_page()
    page = cli_reference.PAGE.read_text(encoding="utf-8")
    diff = "".join(difflib.unified_diff(page.splitlines(True), printed.splitlines(True), n=1))
    assert page == printed, f"docs/reference.md is stale: python -m tests.cli_reference\n{diff}"


def test_every_command_and_subcommand_has_its_section() -> None:
    paths = cli_reference.command_paths()
    assert ("scope",) in paths and ("questionnaire", "diff") in paths and () in paths
    page = cli_reference.PAGE.read_text(encoding="utf-8")
    for path in paths:
        assert f"## `{' '.join(('assess', *path))}`\n" in page
    assert "--incident" in page  # the helps were rendered, not empty blocks


def test_the_help_is_plain_text_at_the_fixed_width() -> None:
    text = cli_reference.render_help(("scope",))
    assert "\x1b[" not in text
    assert text.startswith("Usage: assess scope ")
    assert cli_reference.help_width() == 78  # click: min(columns, 80) - 2
    assert 60 < max(len(line) for line in text.splitlines()) <= 78


@pytest.mark.parametrize(
    ("path", "columns"),
    [(("scope",), "80"), (("questionnaire", "diff"), "80"), (("scope",), "200")],
)
def test_the_page_is_what_a_user_terminal_prints(path: tuple[str, ...], columns: str) -> None:
    """`assess X --help` in a real process (a terminal of 80 columns, a wider one: click wraps
    help at 78 in both) prints exactly the page's section (the page once wrapped at 80)."""
    env = {**os.environ, "COLUMNS": columns, "NO_COLOR": "1", "PYTHONPATH": str(REPO)}
    script = Path(sys.executable).parent / "assess"  # the console script a user runs
    done = subprocess.run(
        [str(script), *path, "--help"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    printed = "\n".join(line.rstrip() for line in done.stdout.splitlines()).strip("\n") + "\n"
    page = cli_reference.PAGE.read_text(encoding="utf-8")
    assert f"```text\n{printed}```" in page


def test_a_changed_help_makes_the_page_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    """Positive control: the comparison sees a help that moved."""
    real = cli_reference.render_help

    def moved(path: tuple[str, ...]) -> str:
        return real(path).replace("Advisory id.", "Advisory identifier.")

    monkeypatch.setattr(cli_reference, "render_help", moved)
    assert cli_reference.render_page() != cli_reference.PAGE.read_text(encoding="utf-8")


def test_the_reference_is_in_the_docs_nav() -> None:
    assert "reference.md" in (REPO / "mkdocs.yml").read_text(encoding="utf-8")
