"""The wheel carries the data folders, and an installed assess finds them from anywhere."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(REPO),
        ],
        check=True,
    )
    (found,) = out.glob("assess-*.whl")
    return found


def test_wheel_contains_the_data_folders(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "assess/_data/advisories/glm-5.3-kv-leak.yaml" in names
    for folder in ("questionnaires", "templates", "samples"):
        assert any(n.startswith(f"assess/_data/{folder}/") for n in names), folder
    # NIST's OSCAL schema ships as package data (the OSCAL export is checked against it)
    assert "assess/report/schemas/oscal_assessment-results_schema.json" in names


def test_installed_wheel_finds_its_data_from_an_unrelated_folder(
    wheel: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    env = {**os.environ, "PYTHONPATH": str(site)}
    code = (
        "import assess.kernel.resources as r, assess; "
        "print(assess.__file__); print(r.data_dir('advisories')); print(r.data_dir('templates'))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd="/", env=env, capture_output=True, text=True, check=True
    )
    lines = proc.stdout.split()
    assert all(line.startswith(str(site)) for line in lines), lines
    listing = subprocess.run(
        [sys.executable, "-m", "assess", "advisories", "list", "--json"],
        cwd="/",
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert '"glm-5.3-kv-leak"' in listing.stdout


def test_installed_wheel_writes_the_portfolio_page_and_checks_oscal(
    wheel: Path, tmp_path: Path
) -> None:
    """The portfolio template and NIST's schema are found inside the installed package."""
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    env = {**os.environ, "PYTHONPATH": str(site)}
    answers = site / "assess" / "_data" / "samples" / "vendors" / "well-run.yaml"
    out = tmp_path / "portfolio"
    subprocess.run(
        [sys.executable, "-m", "assess", "portfolio", str(answers), "--out", str(out)],
        cwd="/",
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "Careful Compute GmbH" in (out / "portfolio.html").read_text(encoding="utf-8")
    code = (
        "import assess.report.oscal_schema as s; print(s.SCHEMA_FILE); "
        "print(len(s.schema_errors({'assessment-results': {}})))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd="/", env=env, capture_output=True, text=True, check=True
    )
    schema_file, errors = proc.stdout.split()
    assert schema_file.startswith(str(site)) and int(errors) > 0
