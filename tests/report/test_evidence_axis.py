"""The review states the evidence axis: coverage, its verdict, the questions to send, the controls
in place; with insufficient evidence it says so instead of rating the vendor."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import REPO
from tests.report.conftest import invoke

SAMPLES = REPO / "samples" / "vendors"


def review(answers: Path, out: Path) -> dict[str, Any]:
    result = invoke("report", "-a", str(answers), "--format", "json,html", "--out", str(out))
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = json.loads((out / "report.json").read_text())
    return doc


def test_insufficient_evidence_is_said_and_the_questions_are_listed(tmp_path: Path) -> None:
    doc = review(SAMPLES / "evasive.yaml", tmp_path / "evasive")
    summary = doc["summary"]
    assert doc["evidence_verdict"] == "insufficient-evidence"
    assert summary["tier_sentence"].startswith("From what is known (insufficient evidence")
    assert summary["coverage_sentence"].startswith("INSUFFICIENT EVIDENCE: only 2")
    asked = [q["id"] for q in doc["questions_to_send"]]
    assert asked[:2] == ["engine.version", "deployment.mode"]
    html = (tmp_path / "evasive" / "report.html").read_text()
    assert "Questions to send the vendor" in html and "INSUFFICIENT EVIDENCE" in html


def test_a_well_answered_vendor_is_rated_with_its_controls_beside_the_findings(
    tmp_path: Path,
) -> None:
    doc = review(SAMPLES / "well-run.yaml", tmp_path / "well")
    assert doc["evidence_verdict"] == "sufficient"
    assert doc["summary"]["tier_sentence"].startswith("Careful Compute GmbH")
    assert doc["summary"]["coverage_sentence"].startswith("Evidence coverage: 7")
    in_place = {c["question"] for c in doc["controls_in_place"]}
    assert "isolation.rejects_over_length_at_admission" in in_place
    html = (tmp_path / "well" / "report.html").read_text()
    assert "Questions to send the vendor" not in html and "In place (18)" in html


def test_a_control_in_place_for_some_models_says_where_it_is_not(tmp_path: Path) -> None:
    answers = tmp_path / "per.yaml"
    answers.write_text(
        "vendor: Per Model AI\ndate: 2026-11-01\nanswers:\n"
        "  isolation.kv_page_zeroing: {value: yes, evidence: documented, per: {glm-5.3: no}}\n"
    )
    doc = review(answers, tmp_path / "per")
    in_place = {c["question"]: c for c in doc["controls_in_place"]}
    zeroing = in_place["isolation.kv_page_zeroing"]
    assert (zeroing["only_for"], zeroing["not_for"]) == ([], ["glm-5.3"])
    html = " ".join((tmp_path / "per" / "report.html").read_text().split())
    assert "isolation.kv_page_zeroing</span>: yes (documented), not for glm-5.3" in html


def test_a_stale_attestation_is_listed_with_its_value_and_marked(tmp_path: Path) -> None:
    """Cloudflare's sample quotes a 2019 announcement of its attestations: in the review's "In
    place" list it shows its value, its date and a stale mark, never as a current fact."""
    doc = review(SAMPLES / "public-docs" / "cloudflare-workers-ai.yaml", tmp_path / "cf")
    in_place = {c["question"]: c for c in doc["controls_in_place"]}
    attest = in_place["compliance.attestations"]
    assert (attest["value"], attest["date"], attest["stale"]) == (
        ["SOC 2 Type II", "ISO 27001", "PCI DSS"],
        "2019-06-14",
        True,
    )
    assert [q for q, c in in_place.items() if c["stale"]] == ["compliance.attestations"]
    html = " ".join((tmp_path / "cf" / "report.html").read_text().split())
    assert (
        "compliance.attestations</span>: SOC 2 Type II, ISO 27001, PCI DSS (documented, dated "
        '2019-06-14) <strong class="stale">STALE for the period assessed</strong>'
    ) in html
    assert "data.prompts_used_for_training</span>: no (documented);" in html


def test_a_decisive_rule_whose_floor_the_tier_already_meets_is_said(tmp_path: Path) -> None:
    """incident-like's points already make it critical: the leak the probe found still matched
    the decisive rule, and the review says so (it said nothing once the rule no longer decided)."""
    probe = REPO / "tests" / "assets" / "score" / "probe-leak.json"
    out = tmp_path / "floor"
    args = ["report", "-q", str(SAMPLES / "incident-like.yaml"), "--probe", str(probe)]
    result = invoke(*args, "--format", "json,html", "--out", str(out))
    assert result.exit_code == 0, result.output
    scoring = json.loads((out / "report.json").read_text())["scoring"]
    assert scoring["decided_by"] == []
    line = (
        "Finding probe-leak-found matched decisive rule leak-demonstrated, which keeps the tier "
        "at least critical; the tier is already critical."
    )
    assert line in scoring["floors_met"]
    assert line in " ".join((out / "report.html").read_text().split())


def test_oscal_and_the_register_carry_coverage_and_the_questions_to_send(tmp_path: Path) -> None:
    from openpyxl import load_workbook

    from assess.report.oscal_schema import schema_errors

    out = tmp_path / "evasive"
    args = ["report", "-q", str(SAMPLES / "evasive.yaml"), "--format", "json,oscal,xlsx"]
    result = invoke(*args, "--out", str(out))
    assert result.exit_code == 0, result.output
    doc = json.loads((out / "report.json").read_text())
    asked = [q["id"] for q in doc["questions_to_send"]]
    assert len(asked) > 10

    oscal = json.loads((out / "report.oscal.json").read_text())
    assert schema_errors(oscal) == []
    (res,) = oscal["assessment-results"]["results"]
    mine = {p["name"]: p["value"] for p in res["props"]}
    assert mine["coverage"] == f"{doc['coverage']:.3f}"
    assert mine["evidence-verdict"] == "insufficient-evidence"
    assert mine["questions-to-send"] == str(len(asked))
    (seen,) = [o for o in res["observations"] if o["title"].startswith("Evidence coverage")]
    assert [p["value"] for p in seen["props"] if p["name"] == "question-to-send"] == asked
    assert seen["description"].startswith("INSUFFICIENT EVIDENCE")

    book = load_workbook(out / "findings-register.xlsx")
    assert book.sheetnames == ["findings", "coverage", "questions to send"]
    rows = list(book["questions to send"].iter_rows(values_only=True))
    assert rows[0] == ("order", "question_id", "question", "priority", "weight", "reason")
    assert [r[1] for r in rows[1:]] == asked
    cover = dict(book["coverage"].iter_rows(values_only=True))
    assert (cover["evidence_verdict"], cover["questions_to_send"]) == (
        "insufficient-evidence",
        len(asked),
    )


def test_a_score_document_of_an_older_questionnaire_is_not_quoted_with_todays_texts(
    tmp_path: Path,
) -> None:
    """The fixture's score document says version 4 (the shipped one): every question by its text.
    The same document saying version 1 gets no text from today's questionnaire (ids only)."""
    from tests.report.conftest import copy_assets, full_args

    def older(name: str, doc: dict[str, Any]) -> None:
        if name == "score.json":
            doc["questionnaire"]["version"] = "1"

    texts = {}
    for label, edit in (("now", None), ("older", older)):
        src = copy_assets(tmp_path / f"{label}-in", edit)
        result = invoke(*full_args(src, tmp_path / label, "--format", "json"))
        assert result.exit_code == 0, result.output
        doc = json.loads((tmp_path / label / "report.json").read_text())
        assert doc["scoring"]["questionnaire_version"] == ("1" if edit else "4")
        texts[label] = [a["question"] for a in doc["answers"]] + [
            q["question"] for q in doc["unanswered"]
        ]
    assert len(texts["now"]) == 54 and all(texts["now"])
    assert texts["older"] and not any(texts["older"])
