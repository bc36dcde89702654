"""A compliance team adds a question and a rule as data: no Python, same commands."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import REPO

Run = Callable[..., Any]

EXTRA = """
  - id: data.region_pinning
    text: Can processing be pinned to one region?
    type: enum
    values: [eu, us, none, unknown]
    remediation: Ask for regional pinning.
"""
RULE = """
  - id: no-region-pinning
    severity: medium
    title: Processing cannot be pinned to a region
    why: Data residency commitments need it.
    remediation: Ask for regional pinning.
    when:
      all:
        - {question: data.region_pinning, is: none}
"""


def test_added_question_and_rule_are_scored(run_cli: Run, tmp_path: Path) -> None:
    text = (REPO / "questionnaires" / "llm-inference-isolation.yaml").read_text()
    text = text.replace("id: llm-inference-isolation", "id: acme-inference")
    text = text.replace("\nrules:\n", EXTRA + "\nrules:\n" + RULE.lstrip("\n"))
    bank = tmp_path / "acme.yaml"
    bank.write_text(text)
    answers = tmp_path / "answers.yaml"
    answers.write_text(
        "questionnaire: acme-inference\nvendor: V\ndate: 2026-11-01\nanswers:\n"
        "  data.region_pinning: {value: none, evidence: documented}\n"
    )
    result = run_cli("score", str(answers), "--questionnaire", str(bank), "--json", "-")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["questionnaire"] == {"id": "acme-inference", "version": 4}  # copied: v4
    assert any(f["id"] == "no-region-pinning" for f in doc["findings"])
    schema = json.loads(run_cli("questionnaire", "schema", "--questionnaire", str(bank)).stdout)
    assert "data.region_pinning" in schema["properties"]["answers"]["properties"]


def test_spreadsheet_answers_score_like_yaml(run_cli: Run, tmp_path: Path) -> None:
    sample = str(REPO / "samples" / "vendors" / "incident-like.yaml")
    sheet = tmp_path / "filled.xlsx"
    run_cli("questionnaire", "export", "--out", str(sheet), "--answers", sample)
    from_sheet = json.loads(run_cli("score", str(sheet), "--json", "-").stdout)
    from_yaml = json.loads(run_cli("score", sample, "--json", "-").stdout)
    assert from_sheet["findings"] == from_yaml["findings"]
    assert from_sheet["score"] == from_yaml["score"] == 100


def test_answers_given_as_the_questionnaire_is_one_clear_problem(run_cli: Any) -> None:
    sample = str(REPO / "samples" / "vendors" / "evasive.yaml")
    result = run_cli("score", sample, "--questionnaire", sample)
    assert result.exit_code == 2
    assert "evasive.yaml:4: this is an assess.answers document, not a questionnaire" in (
        result.stderr
    )
    assert "Extra inputs" not in result.stderr
