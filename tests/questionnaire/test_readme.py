"""The questionnaire page of the docs (docs/vendor.md) quotes real commands, options and output."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.conftest import REPO


def section() -> str:
    return (REPO / "docs" / "vendor.md").read_text(encoding="utf-8")


def console_block(command: str) -> list[str]:
    """Return the output lines the page shows after ``$ command``, up to the next prompt."""
    lines = section().splitlines()
    index = lines.index(f"$ {command}")
    out: list[str] = []
    for line in lines[index + 1 :]:
        if line.startswith("$ ") or line.startswith("```"):
            break
        out.append(line)
    return out


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "80", "TERM": "dumb"}
    return subprocess.run(
        [sys.executable, "-m", "assess", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_quoted_score_output_is_real() -> None:
    proc = run("score", "samples/vendors/well-run.yaml")
    assert proc.returncode == 0
    quoted = [line.rstrip() for line in console_block("assess score samples/vendors/well-run.yaml")]
    assert [line.rstrip() for line in proc.stdout.splitlines()] == quoted


@pytest.mark.parametrize(
    ("command", "options"),
    [
        (("score",), ["--probe", "--deploy-check", "--json", "--fail-on", "--questionnaire"]),
        (("questionnaire", "new"), ["--out", "--vendor", "--date", "--questionnaire"]),
        (("questionnaire", "export"), ["--out", "--format", "--answers", "--questionnaire"]),
        (("questionnaire", "import"), ["--out", "--questionnaire"]),
        (("questionnaire", "diff"), ["--json", "--questionnaire"]),
        (("questionnaire", "schema"), ["--questionnaire"]),
    ],
)
def test_documented_options_exist(command: tuple[str, ...], options: list[str]) -> None:
    help_text = run(*command, "--help").stdout
    text = section()
    for option in options:
        assert option in help_text, option
        assert re.search(rf"`[^`]*{re.escape(option)}[^`]*`", text), option
