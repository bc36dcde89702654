"""The examples of the docs page "Use from Python" (docs/python.md) run, in a fresh interpreter
each, and print what the page shows under them."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.conftest import REPO

PAGE = (REPO / "docs" / "python.md").read_text(encoding="utf-8")
_BLOCK = re.compile(r"```python\n(.*?)```\n\n```text\n(.*?)```", re.DOTALL)


def examples() -> list[tuple[str, str]]:
    """Return (code, printed output) of every python block with a text block right after it."""
    return _BLOCK.findall(PAGE)


def test_every_function_has_an_example() -> None:
    code = "\n".join(c for c, _ in examples())
    names = ("scope_logs", "score_answers", "run_probe", "check_deployment", "build_report")
    for name in (*names, "build_portfolio"):
        assert "from assess import" in code and f"{name}(" in code, name
    assert len(examples()) == 6


@pytest.mark.parametrize(("code", "printed"), examples(), ids=lambda v: v.split("\n")[0][:40])
def test_example_prints_what_the_page_shows(code: str, printed: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("ASSESS_API_KEY", "SOURCE_DATE_EPOCH")}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == printed
