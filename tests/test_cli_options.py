"""One name per meaning across commands; the old spellings still work for a release, hidden
from --help, with a deprecation note on stderr (assess/cli/options.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assess.cli import app
from assess.report.recompute import recorded_command
from tests.conftest import CLI_ENV, REPO

SAMPLES = REPO / "samples"
VENDOR = str(SAMPLES / "vendors" / "well-run.yaml")
NOTE = "is deprecated here, use"


def run(*args: str) -> Any:
    return CliRunner(env=CLI_ENV).invoke(app, list(args), catch_exceptions=False)


def _manifest_command(out: Path) -> list[str]:
    return list(json.loads((out / "manifest.json").read_text())["command"])


@pytest.mark.parametrize("spelling", ["--answers", "-a"])
def test_report_takes_the_answers_under_the_new_name(spelling: str, tmp_path: Path) -> None:
    result = run("report", spelling, VENDOR, "--format", "json", "--out", str(tmp_path / "r"))
    assert result.exit_code == 0, result.output
    assert NOTE not in result.stderr
    assert _manifest_command(tmp_path / "r")[2] == "--answers"


@pytest.mark.parametrize("spelling", ["--questionnaire", "-q"])
def test_report_old_spelling_works_and_says_it_is_deprecated(spelling: str, tmp_path: Path) -> None:
    result = run("report", spelling, VENDOR, "--format", "json", "--out", str(tmp_path / "r"))
    assert result.exit_code == 0, result.output
    assert "note: --questionnaire is deprecated here, use --answers" in result.stderr
    assert NOTE not in result.stdout
    assert _manifest_command(tmp_path / "r")[2] == "--answers"  # the canonical command: new name


def test_report_without_answers_or_with_two_different_ones_exits_2(tmp_path: Path) -> None:
    missing = run("report", "--format", "json", "--out", str(tmp_path / "r"))
    assert missing.exit_code == 2
    assert "--answers" in missing.output
    other = str(SAMPLES / "vendors" / "incident-like.yaml")
    twice = run("report", "-a", VENDOR, "-q", other, "--out", str(tmp_path / "r"))
    assert twice.exit_code == 2
    assert "--answers was given twice" in twice.output


def test_help_shows_new_names_only() -> None:
    report = run("report", "--help").stdout
    assert "--answers" in report and "--questionnaire" not in report and " -q " not in report
    review = run("review", "new", "--help").stdout
    assert "--previous" in review and "--from" not in review


def test_a_manifest_recorded_with_the_old_spelling_is_still_read() -> None:
    """verify re-scores from the recorded command: manifests written before the rename."""
    for old in ("--questionnaire", "-q"):
        assert recorded_command(["assess", "report", old, "a.yaml"]).questionnaire == "a.yaml"
    assert recorded_command(["assess", "report", "--answers", "b.yaml"]).questionnaire == "b.yaml"


def test_report_logs_default_to_the_advisory_scope_defaults_to(tmp_path: Path) -> None:
    """report --logs used to demand --incident where scope defaults it: now both default."""
    logs = str(SAMPLES / "logs" / "litellm.ndjson")
    result = run("report", "-a", VENDOR, "--logs", logs, "--format", "json", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["exposure"]["assessed"] is True
    assert report["exposure"]["advisory"] == "glm-5.3-kv-leak"
    scope = run("scope", logs, "--json", "-")
    assert json.loads(scope.stdout)["filter"]["advisory_id"] == report["exposure"]["advisory"]


@pytest.mark.parametrize(("spelling", "noted"), [("--previous", False), ("--from", True)])
def test_review_new_previous_and_its_old_spelling(
    spelling: str, noted: bool, tmp_path: Path
) -> None:
    first = tmp_path / "first"
    assert run("report", "-a", VENDOR, "--format", "json", "--out", str(first)).exit_code == 0
    path = tmp_path / "next.yaml"
    result = run("review", "new", str(path), spelling, str(first))
    assert result.exit_code == 0, result.output
    assert ("note: --from is deprecated here, use --previous" in result.stderr) is noted
    assert "Careful Compute" in path.read_text() or "  id: " in path.read_text()
