"""The examples of README.md and of every docs page agree with the CLI: every option an example
uses is in its help."""

from __future__ import annotations

import re
import shlex

import pytest
from typer.testing import CliRunner

from assess.cli import app
from tests.conftest import CLI_ENV, REPO

#: README.md and every page of the docs site
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def _examples() -> list[list[str]]:
    """Return the argv of every `$ assess ...` line in the code blocks of README.md and docs/."""
    found: list[list[str]] = []
    lines = [line for page in PAGES for line in page.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        match = re.match(r"^\$ (?:\S+=\S+ )*assess (.*)$", line.strip())
        if match:
            command = match.group(1).split(" | ")[0].split(" > ")[0].split(";")[0]
            command = command.replace("\\", "")
            found.append(shlex.split(command, comments=True))
    return found


def _command_path(argv: list[str]) -> list[str]:
    """Return the leading words of argv that name (sub)commands."""
    path: list[str] = []
    group = app
    runner = CliRunner(env=CLI_ENV)
    for word in argv:
        if word.startswith("-"):
            break
        trial = [*path, word, "--help"]
        result = runner.invoke(group, trial)
        if result.exit_code != 0:
            break
        path.append(word)
    return path


def test_readme_has_examples() -> None:
    assert len(_examples()) >= 2


def test_every_docs_page_is_read() -> None:
    names = {page.name for page in PAGES}
    assert {"README.md", "index.md", "scope.md", "vendor.md", "probe.md"} <= names


@pytest.mark.parametrize("argv", _examples(), ids=lambda a: " ".join(a)[:60])
def test_every_readme_option_is_in_help(argv: list[str]) -> None:
    path = _command_path(argv)
    assert path, f"README example names no command: {argv}"
    result = CliRunner(env=CLI_ENV).invoke(app, [*path, "--help"], terminal_width=200)
    assert result.exit_code == 0
    help_text = result.output
    for word in argv[len(path) :]:
        if word.startswith("--"):
            option = word.split("=", 1)[0]
            assert option in help_text, f"`assess {' '.join(path)}` has no option {option}"


def test_the_readme_documentation_table_lists_every_page_of_the_site() -> None:
    """A wheel user reads the README, not the site's navigation (acc41 m8: controls.md missing)."""
    nav = re.findall(r"^\s+- [^:]+: ([\w.-]+\.md)$", (REPO / "mkdocs.yml").read_text(), re.M)
    assert "controls.md" in nav  # the control: the navigation was read
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("## Documentation") :]
    missing = [page for page in nav if page != "index.md" and f"](docs/{page})" not in table]
    assert missing == []
