"""An Azure APIM log without its gateway side table: the review says accounts are not
assessable (report.json, HTML, OSCAL, plan, stderr) as `assess scope` does, never "0 accounts"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assess.report.oscal_schema import schema_errors
from tests.report.conftest import invoke

ROOT = Path(__file__).resolve().parents[2]
AZURE = ROOT / "samples" / "logs" / "azure-apim.csv"
ANSWERS = ROOT / "samples" / "vendors" / "well-run.yaml"


@pytest.fixture(params=["scope-json", "raw-logs"])
def review(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Any, Path]:
    """The review of the log, given as `assess scope`'s JSON or as the log itself."""
    logs = AZURE
    if request.param == "scope-json":
        logs = tmp_path / "scope.json"
        scoped = invoke("scope", str(AZURE), "--served-by", "workers-ai", "--json", str(logs))
        assert json.loads(logs.read_text())["affected"]["requests"] == 5, scoped.output
    out = tmp_path / "r"
    args = ("-a", str(ANSWERS), "--logs", str(logs), "--format", "json,html,oscal")
    result = invoke("report", *args, "--out", str(out))
    assert result.exit_code == 0, result.output
    return result, out


def test_report_carries_accounts_not_assessable(review: tuple[Any, Path]) -> None:
    result, out = review
    assert "accounts: NOT ASSESSABLE: preset azure-apim" in result.stderr
    exposure = json.loads((out / "report.json").read_text())["exposure"]
    assert exposure["accounts_assessment"]["verdict"] == "not_assessable"
    assert "ApiManagementGatewayLogs" in exposure["accounts_assessment"]["reason"]
    html = (out / "report.html").read_text()
    assert "0 accounts" not in html
    assert "0 affected account" not in html
    if exposure["received"]:  # the scope with --served-by: 5 requests over the trigger
        assert "accounts not assessable from these logs" in html


def test_oscal_observation_says_accounts_not_assessable(review: tuple[Any, Path]) -> None:
    """The exposure observation once said "0 accounts and 0 without an account"."""
    _, out = review
    oscal = json.loads((out / "report.oscal.json").read_text())
    assert schema_errors(oscal) == []
    reason = json.loads((out / "report.json").read_text())["exposure"]["accounts_assessment"][
        "reason"
    ]
    [observation] = [
        o
        for result in oscal["assessment-results"]["results"]
        for o in result.get("observations", [])
        if o["title"].startswith("Request logs scoped")
    ]
    text = observation["description"]
    assert f"accounts not assessable: {reason.rstrip('.')}; " in text
    assert " accounts and " not in text and "without an account" not in text
