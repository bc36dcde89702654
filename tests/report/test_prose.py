"""Finding texts cite questions by their text, not by bare ids: in the HTML/PDF findings, the
contradictions and the register; report.json and the evidence appendix keep the ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openpyxl import load_workbook

from assess.report.prose import cite_questions, prose
from tests.report.conftest import invoke
from tests.report.test_oscal import demo_args

QUESTIONS = {"engine.name": "Which engine?", "isolation.checksums": "Checksummed?"}


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "Only attested: engine.name (sglang).",
            "Only attested: \u201cWhich engine?\u201d (sglang).",
        ),
        ("ends with isolation.checksums.", "ends with \u201cChecksummed?\u201d."),
        # part of a longer id, or another id: left alone
        ("control-absent.isolation.checksums", "control-absent.isolation.checksums"),
        ("engine.names and x.engine.name", "engine.names and x.engine.name"),
        ("evidence:engine.name", "evidence:engine.name"),
    ],
)
def test_a_cited_question_id_becomes_its_question(text: str, shown: str) -> None:
    assert cite_questions(text, QUESTIONS) == shown


def test_prose_drops_merged_ids_then_cites_questions() -> None:
    text = "A. Also (control-absent.isolation.checksums, medium): isolation.checksums no.."
    assert prose(text, QUESTIONS) == "A. Also (medium): \u201cChecksummed?\u201d no."
    assert prose("engine.name", {}) == "engine.name"


@pytest.fixture(scope="module")
def demo(module_tmp: Path) -> Path:
    out = module_tmp / "prose"
    assert invoke(*demo_args(out, "json,html,xlsx")).exit_code == 0
    return out


def test_the_findings_show_the_questions_the_report_json_keeps_the_ids(demo: Path) -> None:
    report = json.loads((demo / "report.json").read_text())
    attested = next(f for f in report["findings"] if f["id"].startswith("attested-only"))
    assert "engine.version (0.5.21)" in attested["detail"]  # the machine twin keeps the id
    html = (demo / "report.html").read_text()
    findings = html[
        html.index('<section id="findings">') : html.index(
            "</section>", html.index('<section id="findings">')
        )
    ]
    question = next(a["question"] for a in report["answers"] if a["id"] == "engine.version")
    assert f"\u201c{question}\u201d (0.5.21)" in findings
    assert "engine.version (0.5.21)" not in findings
    appendix = html[html.index('<section id="detail">') :]
    assert "engine.version" in appendix  # the ids stay in the evidence appendix


def test_the_register_describes_findings_with_the_questions(demo: Path) -> None:
    report = json.loads((demo / "report.json").read_text())
    texts = {a["id"]: a["question"] for a in report["answers"]}
    sheet = load_workbook(demo / "findings-register.xlsx").worksheets[0]
    rows = [list(r) for r in sheet.iter_rows(values_only=True)]
    body = {r[0]: dict(zip(rows[0], r, strict=True)) for r in rows[1:]}
    for f in report["findings"]:
        answered = [q for q in f["rests_on"] if q in texts]
        row = body[f["ref"]]
        if answered:
            assert row["observation"].startswith("Answers to: ")
            for qid in answered:
                assert texts[qid] in row["observation"] and qid not in row["observation"]
        assert not any(f"{qid} (" in (row["description"] or "") for qid in texts)
