"""The README's deploy-check examples are the command's real output."""

from __future__ import annotations

import re
import shlex
from typing import Any

import pytest

from tests.conftest import REPO

_SECTION = re.search(
    r"<!-- section:deploy-check -->(.*?)<!-- /section:deploy-check -->",
    (REPO / "README.md").read_text(),
    re.S,
)
_BLOCKS = re.findall(r"```console\n(.*?)\n```", _SECTION.group(1) if _SECTION else "", re.S)
# examples that need nothing but the shipped samples (no pipes, no files made first)
_EXAMPLES = [
    b for b in _BLOCKS if re.match(r"\$ assess deploy-check samples/[^|\n]*; echo \$\?\n", b)
]


def test_the_section_has_runnable_examples() -> None:
    assert len(_EXAMPLES) >= 3


@pytest.mark.parametrize("block", _EXAMPLES, ids=lambda b: b.splitlines()[0][:70])
def test_readme_example_matches_the_real_output(run_cli: Any, block: str) -> None:
    command, *output = block.splitlines()
    args = shlex.split(command.removeprefix("$ assess ").removesuffix("; echo $?"))
    result = run_cli(*args)
    assert result.stdout.rstrip("\n").splitlines() == output[:-1]
    assert str(result.exit_code) == output[-1]
