"""Every console example of the README and of the docs runs and prints what the page shows
(tests/docs_examples.py says how an example is read and run)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.docs_examples import Block, examples, lab_command, run_block

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
BLOCKS = [block for page in PAGES for block in examples(page)]


def test_the_pages_have_examples_to_run() -> None:
    assert len(BLOCKS) >= 30
    assert {b.page for b in BLOCKS} >= {"README.md", "vendor.md", "scope.md", "deploy-check.md"}


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.name)
def test_example_prints_what_the_page_shows(block: Block, tmp_path: Path) -> None:
    labs = [lab_command(c.text) for c in block.commands if lab_command(c.text) is not None]
    background = [c.text for c in block.commands if c.text.rstrip().endswith("&")]
    assert len(background) == len(labs) <= 1, (
        f"{block.name}: a background job ({background[0]}) would outlive the test: put "
        "<!-- example: not run (why) --> on the line before the block (the one job the test "
        "runs itself is one `assess lab serve ... --quiet &`)"
    )
    assert all("--quiet" in lab for lab in labs), f"{block.name}: the lab needs --quiet"
    shutil.copytree(REPO / "samples", tmp_path / "samples")
    problems = run_block(block, tmp_path)
    assert not problems, "\n\n".join(problems)
