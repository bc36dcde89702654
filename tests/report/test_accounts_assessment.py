"""An Azure APIM log without its gateway side table: the review says accounts are not
assessable (report.json, HTML, plan, stderr) as `assess scope` does, never "0 accounts"."""

from __future__ import annotations

import json
from pathlib import Path

from tests.report.conftest import invoke

ROOT = Path(__file__).resolve().parents[2]
AZURE = ROOT / "samples" / "logs" / "azure-apim.csv"
ANSWERS = ROOT / "samples" / "vendors" / "well-run.yaml"


def test_report_carries_accounts_not_assessable(tmp_path: Path) -> None:
    scope_json = tmp_path / "scope.json"
    scoped = invoke("scope", str(AZURE), "--served-by", "workers-ai", "--json", str(scope_json))
    assert json.loads(scope_json.read_text())["affected"]["requests"] == 5, scoped.output
    out = tmp_path / "r"
    args = ("-a", str(ANSWERS), "--logs", str(scope_json), "--format", "json,html")
    result = invoke("report", *args, "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "accounts: NOT ASSESSABLE: preset azure-apim" in result.stderr
    exposure = json.loads((out / "report.json").read_text())["exposure"]
    assert exposure["accounts_assessment"]["verdict"] == "not_assessable"
    assert "ApiManagementGatewayLogs" in exposure["accounts_assessment"]["reason"]
    html = (out / "report.html").read_text()
    assert "0 accounts" not in html
    assert "0 affected account" not in html
    assert "accounts not assessable from these logs" in html
    assert "these logs cannot tell them" in html


def test_report_on_the_logs_themselves_says_it_too(tmp_path: Path) -> None:
    out = tmp_path / "r"
    args = ("-a", str(ANSWERS), "--logs", str(AZURE), "--format", "json")
    result = invoke("report", *args, "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "accounts: NOT ASSESSABLE" in result.stderr
    exposure = json.loads((out / "report.json").read_text())["exposure"]
    assert exposure["accounts_assessment"]["verdict"] == "not_assessable"
