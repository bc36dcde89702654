"""`assess score` end to end: table, versioned JSON, --fail-on exit codes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import ASSETS, REPO

Run = Callable[..., Any]
INCIDENT = str(REPO / "samples" / "vendors" / "incident-like.yaml")
WELL_RUN = str(REPO / "samples" / "vendors" / "well-run.yaml")


def test_table_shows_findings_score_and_formula(run_cli: Run) -> None:
    result = run_cli("score", INCIDENT)
    assert result.exit_code == 0
    assert "advisory.glm-5.3-kv-leak" in result.stdout
    assert "Score: 100/100   Tier: critical" in result.stdout
    assert "Formula: score = min(100," in result.stdout


def test_json_document_is_versioned(run_cli: Run) -> None:
    result = run_cli("score", WELL_RUN, "--json", "-")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["schema_version"] == 1 and doc["kind"] == "assess.score"
    assert {
        "questionnaire",
        "vendor",
        "answered_on",
        "score",
        "tier",
        "formula",
        "findings",
    } <= set(doc)
    assert {"answers", "inputs"} <= set(doc)
    assert doc["score"] == 1 and doc["tier"] == "low"
    finding = doc["findings"][0]
    assert {
        "id",
        "severity",
        "title",
        "detail",
        "remediation",
        "rests_on",
        "evidence_level",
    } <= set(finding)
    assert finding["contradiction"] is False
    assert doc["answers"]["engine.version"] == {
        "value": "0.5.22",
        "evidence": "verified",
        "note": "",
        "ref": "deploy-check 2026-11-01",
    }
    assert doc["inputs"][0]["path"] == WELL_RUN and len(doc["inputs"][0]["sha256"]) == 64


def test_json_to_a_file_also_prints_the_table(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "score.json"
    probe = str(ASSETS / "score" / "probe-leak.json")
    result = run_cli("score", WELL_RUN, "--probe", probe, "--json", str(out))
    assert result.exit_code == 0
    assert "(contradicted)" in result.stdout
    doc = json.loads(out.read_text())
    assert [i["path"] for i in doc["inputs"]] == [WELL_RUN, probe]


def test_fail_on(run_cli: Run) -> None:
    assert run_cli("score", INCIDENT, "--fail-on", "high").exit_code == 1
    assert run_cli("score", WELL_RUN, "--fail-on", "medium").exit_code == 0
    assert run_cli("score", WELL_RUN, "--fail-on", "low").exit_code == 1
    bad = run_cli("score", WELL_RUN, "--fail-on", "severe")
    assert bad.exit_code == 2
    assert "--fail-on: 'severe' is not a severity" in bad.stderr


def test_bad_answers_exit_2_naming_the_line(run_cli: Run) -> None:
    result = run_cli("score", str(ASSETS / "questionnaire" / "bad-version.yaml"))
    assert result.exit_code == 2
    assert "bad-version.yaml:5: engine.version" in result.stderr
    assert "Traceback" not in result.stderr


def test_help_has_an_example(run_cli: Run) -> None:
    for args in (("score",), ("questionnaire", "new"), ("questionnaire", "diff")):
        result = run_cli(*args, "--help")
        assert result.exit_code == 0
        assert "Example: assess " in result.stdout


def _deploy_json(run_cli: Run, tmp_path: Path, *logs: str) -> str:
    out = tmp_path / "deploy.json"
    run_cli("deploy-check", *logs, "--json", str(out))
    return str(out)


def test_real_deploy_check_output_contradicts_claimed_pool(run_cli: Run, tmp_path: Path) -> None:
    """The log (2026-08-26) is within the stated period, so it scores against the answers."""
    log = str(REPO / "samples" / "serverlogs" / "sglang-prefill.log")
    deploy = _deploy_json(run_cli, tmp_path, log)
    period = ["--period", "2026-08-01..2026-11-30"]
    result = run_cli("score", WELL_RUN, "--deploy-check", deploy, *period, "--json", "-")
    assert result.exit_code == 0
    pool = next(
        f
        for f in json.loads(result.stdout)["findings"]
        if f["id"] == "attestation-contradicted.kv-pool.sglang-prefill"
    )
    assert pool["severity"] == "critical" and pool["contradiction"] is True
    assert "681,280 tokens for a 1,048,576-token context: 35%" in pool["detail"]
    doc = json.loads(result.stdout)
    assert doc["tier"] == "critical"  # an otherwise excellent vendor: the contradiction decides
    assert doc["evidence"][0]["about_vendor"] and doc["evidence"][0]["freshness"] == "current"
    # without the period the same logs (August) are stale for answers of 2026-11-02
    stale = json.loads(run_cli("score", WELL_RUN, "--deploy-check", deploy, "--json", "-").stdout)
    assert (stale["tier"], stale["evidence"][0]["freshness"]) == ("low", "stale")


def test_unreadable_logs_contradict_nothing(run_cli: Run, tmp_path: Path) -> None:
    """A log where deploy-check found no engine is missing evidence, not a contradiction."""
    empty = tmp_path / "empty.log"
    empty.write_text("")
    junk = ASSETS / "deploy" / "junk.bin"
    deploy = _deploy_json(run_cli, tmp_path, str(empty), str(junk))
    result = run_cli("score", WELL_RUN, "--deploy-check", deploy, "--json", "-")
    doc = json.loads(result.stdout)
    assert [f["id"] for f in doc["findings"] if f["contradiction"]] == []
    assert doc["score"] == 1
