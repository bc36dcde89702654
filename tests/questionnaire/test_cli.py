"""`assess questionnaire new|export|import|validate|schema|diff` end to end."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assess.readers.answers import load_answers
from assess.readers.questionnaire import shipped_questionnaire
from tests.conftest import ASSETS, REPO

Run = Callable[..., Any]
SAMPLES = REPO / "samples" / "vendors"


def test_new_writes_a_blank_file_that_validates(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "answers.yaml"
    result = run_cli(
        "questionnaire", "new", "--out", str(out), "--vendor", "Ex", "--date", "2026-12-01"
    )
    assert result.exit_code == 0
    text = out.read_text()
    assert "# Which inference engine serves the model?" in text
    assert "allowed: sglang, vllm, tensorrt-llm, tgi, proprietary, other, unknown" in text
    assert 'vendor: "Ex"\ndate: 2026-12-01\n' in text
    answers = load_answers(out, shipped_questionnaire())
    assert {a.value for a in answers.answers.values()} == {"unknown"}
    assert len(answers.answers) == len(shipped_questionnaire().questions)
    check = run_cli("questionnaire", "validate", str(out))
    assert check.exit_code == 0
    assert "valid (llm-inference-isolation v1): 0 of 30 questions answered" in check.stdout


def test_new_refuses_a_bad_date(run_cli: Run, tmp_path: Path) -> None:
    result = run_cli("questionnaire", "new", "--out", str(tmp_path / "a.yaml"), "--date", "soon")
    assert result.exit_code == 2
    assert "--date: 'soon' is not a date" in result.stderr


@pytest.mark.parametrize("fmt", ["xlsx", "csv"])
def test_export_import_round_trip(run_cli: Run, tmp_path: Path, fmt: str) -> None:
    sheet = tmp_path / f"q.{fmt}"
    sample = SAMPLES / "incident-like.yaml"
    exported = run_cli(
        "questionnaire", "export", "--format", fmt, "--out", str(sheet), "--answers", str(sample)
    )
    assert exported.exit_code == 0
    back = tmp_path / "back.yaml"
    imported = run_cli("questionnaire", "import", str(sheet), "--out", str(back))
    assert imported.exit_code == 0
    bank = shipped_questionnaire()
    original, again = load_answers(sample, bank), load_answers(back, bank)
    assert again.answers == original.answers
    assert (again.vendor, again.date) == (original.vendor, original.date)


def test_blank_export_imports_as_all_unknown(run_cli: Run, tmp_path: Path) -> None:
    sheet = tmp_path / "q.csv"
    assert run_cli("questionnaire", "export", "--format", "csv", "--out", str(sheet)).exit_code == 0
    header = sheet.read_text().splitlines()[0]
    assert header == "id,section,question,help,type,allowed,critical,value,evidence,note,ref"
    result = run_cli("questionnaire", "import", str(sheet))
    assert result.exit_code == 2  # no vendor, no date: named, not a traceback
    assert "q.csv: row 2: vendor: Field required" in result.stderr
    assert "q.csv: row 3: date: Field required" in result.stderr


def test_import_reports_rows(run_cli: Run) -> None:
    result = run_cli("questionnaire", "import", str(ASSETS / "questionnaire" / "bad-cell.csv"))
    assert result.exit_code == 2
    assert "bad-cell.csv: row 5: engine.version" in result.stderr
    assert "bad-cell.csv: row 6: isolation.kv_canaries" in result.stderr


def test_validate_exits_2_listing_all_problems(run_cli: Run) -> None:
    result = run_cli(
        "questionnaire", "validate", str(ASSETS / "questionnaire" / "many-problems.yaml")
    )
    assert result.exit_code == 2
    assert "(6 problem(s))" in result.stderr
    assert "Traceback" not in result.stderr


def test_schema_describes_every_question(run_cli: Run) -> None:
    result = run_cli("questionnaire", "schema")
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    answers = schema["properties"]["answers"]
    bank = shipped_questionnaire()
    assert list(answers["properties"]) == [q.id for q in bank.questions]
    assert answers["additionalProperties"] is False
    engine = answers["properties"]["engine.name"]["anyOf"][1]
    assert "sglang" in engine["enum"] and "unknown" in engine["enum"]
    assert schema["$defs"]["EvidenceLevel"]["enum"] == ["attested", "documented", "verified"]
    assert set(schema["required"]) == {"vendor", "date"}


def test_diff_shows_upgrades_and_dropped_controls(run_cli: Run, tmp_path: Path) -> None:
    old = tmp_path / "old.yaml"
    new = tmp_path / "new.yaml"
    old.write_text(
        "vendor: V\ndate: 2026-09-01\nanswers:\n  engine.name: sglang\n"
        "  engine.version: '0.5.21'\n  isolation.kv_canaries: yes\n"
        "  verification.canary_tests_in_ci: {value: yes, evidence: verified}\n"
    )
    new.write_text(
        "vendor: V\ndate: 2026-11-01\nanswers:\n  engine.name: sglang\n"
        "  engine.version: '0.5.22'\n  isolation.kv_canaries: no\n"
        "  verification.canary_tests_in_ci: {value: yes, evidence: attested}\n"
    )
    result = run_cli("questionnaire", "diff", str(old), str(new), "--json", "-")
    assert result.exit_code == 0
    diff = json.loads(result.stdout)
    assert diff["kind"] == "assess.answers-diff"
    assert [(c["id"], c["change"], c["regression"]) for c in diff["changes"]] == [
        ("engine.version", "upgrade", False),
        ("isolation.kv_canaries", "control-dropped", True),
        ("verification.canary_tests_in_ci", "evidence-weaker", True),
    ]
    assert "control-absent.isolation.kv_canaries" in diff["findings_added"]
    table = run_cli("questionnaire", "diff", str(old), str(new))
    assert "control-dropped" in table.stdout and "upgrade" in table.stdout


def test_diff_of_the_shipped_re_attestation(run_cli: Run) -> None:
    old = str(SAMPLES / "incident-like.yaml")
    new = str(SAMPLES / "incident-like-after-fix.yaml")
    diff = json.loads(run_cli("questionnaire", "diff", old, new, "--json", "-").stdout)
    changes = {c["id"]: (c["change"], c["regression"]) for c in diff["changes"]}
    assert changes["engine.version"] == ("upgrade", False)
    assert changes["isolation.deferred_kv_release"] == ("control-dropped", True)
    assert changes["isolation.transfer_checksums"] == ("control-added", False)
    assert [c for c, (_, regression) in changes.items() if regression] == [
        "isolation.deferred_kv_release"
    ]
    assert (diff["old"]["tier"], diff["new"]["tier"]) == ("critical", "medium")
    assert "advisory.glm-5.3-kv-leak" in diff["findings_resolved"]
