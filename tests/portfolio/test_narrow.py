"""The portfolio in a narrow terminal or a pipe: every vendor, tier, date and trend whole."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

VENDORS = sorted(str(p) for p in (REPO / "samples" / "vendors").glob("*.yaml"))
INCIDENT_LIKE = str(REPO / "samples" / "vendors" / "incident-like.yaml")


@pytest.fixture(scope="module")
def previous(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("last-quarter")
    subprocess.run(
        [sys.executable, "-m", "assess", "score", INCIDENT_LIKE, "--json", str(folder / "x.json")],
        cwd=REPO,
        capture_output=True,
        check=True,
    )
    return folder


@pytest.mark.parametrize("columns", ["60", "80", "100", "200"])
def test_nothing_is_cut(previous: Path, columns: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "assess", "portfolio", *VENDORS, "--previous", str(previous)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": columns},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= int(columns)
    flat = " ".join(line.strip(" │┃") for line in lines)
    flat = " ".join(flat.replace("\u00a0", " ").split())
    for whole in ("Example Edge AI Inc.", "Careful Compute GmbH", "Opaque Models Ltd"):
        assert whole in flat, (columns, whole)
    for whole in ("2026-11-05", "critical", "tenancy 5"):
        assert whole in flat, (columns, whole)
    assert re.search(r"▼ better \(-\d+\)", flat), columns  # the trend column, whole
