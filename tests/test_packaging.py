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
    (found,) = out.glob("assess_llm-*.whl")
    return found


def test_the_distribution_is_assess_llm_with_the_command_assess(wheel: Path) -> None:
    """The distribution name is free on PyPI ("assess" is another project's); the import package
    and the console command keep the name assess."""
    archive = zipfile.ZipFile(wheel)
    info = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
    metadata = archive.read(info).decode("utf-8")
    assert "\nName: assess-llm\n" in metadata
    entry_points = archive.read(info.replace("METADATA", "entry_points.txt")).decode("utf-8")
    assert "assess = assess.cli:main" in entry_points
    assert any(n.startswith("assess/cli/") for n in archive.namelist())


def test_wheel_contains_the_data_folders(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "assess/_data/advisories/glm-5.3-kv-leak.yaml" in names
    assert "assess/_data/controls/crosswalk.yaml" in names
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


def test_installed_wheel_writes_the_samples_and_the_readme_examples_run(
    wheel: Path, tmp_path: Path
) -> None:
    """After an install, `assess samples --out samples` makes the README's examples work as
    written, in a folder that is not the repository, with the exit codes they show."""
    from tests.docs_examples import examples, run_block

    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    work = tmp_path / "work"
    work.mkdir()
    env = {"PYTHONPATH": str(site)}
    done = subprocess.run(
        [sys.executable, "-m", "assess", "samples", "--out", "samples"],
        cwd=work,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    blocks = examples(REPO / "README.md")
    assert len(blocks) >= 3
    for block in blocks:
        assert run_block(block, work, env) == []
