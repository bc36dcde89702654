"""The deploy-check examples of the docs (docs/deploy-check.md) are the command's real output."""

from __future__ import annotations

import re
import shlex

import pytest
from typer.testing import CliRunner

from assess.cli import app
from tests.conftest import CLI_ENV, REPO

_PAGE = (REPO / "docs" / "deploy-check.md").read_text(encoding="utf-8")
_BLOCKS = re.findall(r"```console\n(.*?)\n```", _PAGE, re.S)
# examples that need nothing but the shipped samples (no pipes, no files made first)
_EXAMPLES = [
    b for b in _BLOCKS if re.match(r"\$ assess deploy-check samples/[^|\n]*; echo \$\?\n", b)
]


def test_the_page_has_runnable_examples() -> None:
    assert len(_EXAMPLES) >= 3


@pytest.mark.parametrize("block", _EXAMPLES, ids=lambda b: b.splitlines()[0][:70])
def test_docs_example_matches_the_real_output(block: str) -> None:
    # the docs show what 80 columns print (tests/docs_examples.py)
    command, *output = block.splitlines()
    args = shlex.split(command.removeprefix("$ assess ").removesuffix("; echo $?"))
    result = CliRunner(env={**CLI_ENV, "COLUMNS": "80"}).invoke(app, args, catch_exceptions=False)
    printed = [line.rstrip() for line in result.stdout.rstrip("\n").splitlines()]
    assert printed == [line.rstrip() for line in output[:-1]]
    assert str(result.exit_code) == output[-1]
