"""The documentation site builds with warnings as errors, and every page in docs/ is in its nav."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import REPO


def _nav_files(nav: list[object]) -> list[str]:
    """Return the page files a mkdocs nav lists, sections included."""
    files: list[str] = []
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        if isinstance(value, list):
            files += _nav_files(value)
        elif isinstance(value, str):
            files.append(value)
    return files


def test_mkdocs_build_strict(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert (tmp_path / "site" / "scope.html").is_file()
    assert (tmp_path / "site" / "img" / "portfolio.png").is_file()


def test_every_page_is_in_the_nav() -> None:
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = set(_nav_files(config["nav"]))
    pages = {p.name for p in (REPO / "docs").glob("*.md")}
    assert pages - listed == set(), "add these pages to the nav in mkdocs.yml"
    assert listed - pages == set(), "the nav lists pages that do not exist"
