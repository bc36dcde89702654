"""The PDF: PDF/A metadata, report.json attached, and the numbers a reader looks for."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pypdf
import pytest

from assess.kernel.resources import data_dir
from assess.report.models import Report
from assess.report.pdf import render_pdf
from tests.report.conftest import REPORT_ASSETS, copy_assets, full_args, invoke


@pytest.fixture(scope="module")
def review(module_tmp: Path) -> Path:
    src = copy_assets(module_tmp / "in")
    out = module_tmp / "out"
    result = invoke(*full_args(src, out))
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def pdf(review: Path) -> pypdf.PdfReader:
    return pypdf.PdfReader(io.BytesIO((review / "report.pdf").read_bytes()))


@pytest.fixture(scope="module")
def text(pdf: pypdf.PdfReader) -> str:
    return "\n".join(page.extract_text() for page in pdf.pages)


def test_tier_score_and_finding_titles_are_in_the_text(text: str) -> None:
    assert "CRITICAL RISK" in text
    assert "score 86 / 100" in text
    for title in (
        "Attestation contradicted: KV canaries",
        "Engine version named by advisory glm-5.3-kv-leak",
        "KV pool smaller than the advertised context",
        "No checksums on KV transfers",
        "Unknown answer to a critical question: deferred KV release",
    ):
        # table cells wrap anywhere, so compare without whitespace
        assert "".join(title.split()) in "".join(text.split()), title


def test_exposure_counts_are_in_the_text(text: str) -> None:
    flat = " ".join(text.split())
    assert "Received: requests over the trigger in the window 7" in flat
    assert "accounts affected / records with no account 2 / 1" in flat
    assert "Records read / not requests / skipped as malformed 1,240 / 12 / 3" in flat
    assert "acct-finance 4" in flat
    assert "LEAK FOUND" in flat
    assert "prefill-0 prefill sglang 0.5.21 681,280 1,048,576 35% flag" in flat


def test_running_header_and_page_numbers(pdf: pypdf.PdfReader) -> None:
    pages = len(pdf.pages)
    assert pages >= 4
    second = pdf.pages[1].extract_text()
    assert "Vendor review: Nimbus Inference" in second
    assert f"Page 2 of {pages}" in second
    assert "Vendor review: Nimbus" not in pdf.pages[0].extract_text()  # no header on the cover


def test_pdfa_metadata(pdf: pypdf.PdfReader) -> None:
    xmp = pdf.xmp_metadata
    assert xmp is not None
    assert xmp.pdfaid_part == "3"
    assert xmp.pdfaid_conformance == "B"
    info = pdf.metadata
    assert info is not None
    assert info.title == "Vendor review: Nimbus Inference, Nimbus Serverless GLM"
    assert info.author is not None and info.author.startswith("assess ")
    assert info["/CreationDate"].startswith("D:20260921141320")
    assert info["/ModDate"].startswith("D:20260921141320")


def test_report_json_is_attached_byte_for_byte(pdf: pypdf.PdfReader, review: Path) -> None:
    attached = pdf.attachments["report.json"]
    assert attached == [(review / "report.json").read_bytes()]
    assert json.loads(attached[0])["kind"] == "assess.report"


def test_report_json_renders_back_to_the_same_pdf(review: Path) -> None:
    """report.json holds everything the PDF shows, and rendering is deterministic."""
    json_bytes = (review / "report.json").read_bytes()
    report = Report.model_validate_json(json_bytes)
    assert render_pdf(report, json_bytes) == (review / "report.pdf").read_bytes()


def test_a_section_heading_stays_on_the_page_of_its_table(tmp_path: Path) -> None:
    """Only the answers reviewed: the appendix heading and intro used to end page 6, alone."""
    out = tmp_path / "out"
    vendor = data_dir("samples") / "vendors" / "incident-like.yaml"
    result = invoke("report", "--answers", str(vendor), "--out", str(out), "--format", "pdf")
    assert result.exit_code == 0, result.output
    pages = [p.extract_text() for p in pypdf.PdfReader(out / "report.pdf").pages]
    [page] = [p for p in pages if "Appendix: inputs" in p]
    after = "".join(page.split("Appendix: inputs", 1)[1].split())
    assert "RoleFileBytesSHA-256" in after  # the table's header row follows
    assert "samples/vendors/incident-like.yaml" in after  # and its first row


# --- the committee's document: governance, index, plan, appendix; tagged PDF/A-3 ------------


@pytest.fixture(scope="module")
def signed_pdf(module_tmp: Path) -> tuple[Path, list[str]]:
    src = copy_assets(module_tmp / "signed-in")
    out = module_tmp / "signed"
    review_file = REPORT_ASSETS / "review.yaml"
    result = invoke(*full_args(src, out, "--format", "pdf,json", "--review", str(review_file)))
    assert result.exit_code == 0, result.output
    pages = [" ".join(p.extract_text().split()) for p in pypdf.PdfReader(out / "report.pdf").pages]
    return out, pages


def test_a_draft_says_so_on_every_page(text: str, pdf: pypdf.PdfReader) -> None:
    for number, page in enumerate(pdf.pages, 1):
        flat = " ".join(page.extract_text().split())
        assert "DRAFT, NOT APPROVED" in flat.upper(), number
        assert "UNCLASSIFIED DRAFT" in flat, number


def test_a_signed_review_carries_status_id_and_classification_on_every_page(
    signed_pdf: tuple[Path, list[str]],
) -> None:
    _, pages = signed_pdf
    for number, page in enumerate(pages, 1):
        assert "APPROVED WITH CONDITIONS, TPRM-2026-099 v2.1" in page, number
        assert "STRICTLY CONFIDENTIAL" in page, number
        assert "DRAFT" not in page.upper(), number


def test_page_two_indexes_every_finding(signed_pdf: tuple[Path, list[str]]) -> None:
    _, pages = signed_pdf
    second = pages[1]
    assert "Findings at a glance" in second
    for ref in ("F-01", "F-02", "F-03", "F-04", "F-05"):
        assert ref in second, ref
    assert "F-01 CRITICAL Attestation contradicted: KV canaries contradicted in progress" in second


def test_signoff_plan_and_appendix_blocks_are_in_the_pdf(
    signed_pdf: tuple[Path, list[str]],
) -> None:
    _, pages = signed_pdf
    flat = " ".join(pages)
    for block in (
        "Scope, sign-off and decision",
        "Report TPRM-2026-099, version 2.1",
        "Assessment period 2026-08-01 to 2026-09-20",
        "Assessor Ada Assessor Risk analyst 2026-09-18",
        "Approver Cleo Chair Committee chair 2026-09-21",
        "Decision: Approved with conditions",
        "on these conditions: Vendor upgrades to sglang 0.5.22 by 2026-10-31",
        "Residual risk Accepted by Cleo Chair on 2026-09-21, to be reviewed by 2026-10-31",
        "Remediation plan",
        "F-04 HIGH No checksums on KV transfers Platform team 2026-09-01 overdue open",
        "E-01 HIGH Purge the 7 received",
        "Security operations 2026-09-25 done",
        "Received requests per account",
        "acct-finance 4 acct-legal 2 (no account in the log) 1 Total received 7",
        "Appendix: what the findings and counts rest on",
        "The questionnaire, question by question",
        "not answered",
    ):
        assert block in flat, block


def test_question_text_replaces_ids_and_every_question_is_listed(
    signed_pdf: tuple[Path, list[str]],
) -> None:
    out, pages = signed_pdf
    doc = json.loads((out / "report.json").read_text())
    flat = "".join("".join(pages).split())
    questions = [a["question"] for a in doc["answers"]] + [q["question"] for q in doc["unanswered"]]
    assert len(questions) == 54  # the shipped questionnaire: 10 answered in the fixture, 44 not
    for question in questions:
        assert question and "".join(question.split()) in flat, question


def test_machine_ids_are_in_the_appendix_not_in_the_findings_table(tmp_path: Path) -> None:
    src = copy_assets(tmp_path / "in")
    assert invoke(*full_args(src, tmp_path / "out", "--format", "html")).exit_code == 0
    page = (tmp_path / "out" / "report.html").read_text()
    findings = page.split('<section id="findings">')[1].split("</section>")[0]
    detail = page.split('<section id="detail">')[1].split("</section>")[0]
    doc = json.loads((REPORT_ASSETS / "score.json").read_text())
    # ids the finding's own sentences do not quote
    ids = {
        item
        for f in doc["findings"]
        for item in f["rests_on"]
        if item not in f["detail"] + f["remediation"]
    }
    assert len(ids) >= 3
    for item in ids:
        assert item not in findings, item
        assert item in detail, item


def test_the_pdf_is_tagged_and_stays_pdfa3_with_report_json(
    signed_pdf: tuple[Path, list[str]],
) -> None:
    out, _ = signed_pdf
    reader = pypdf.PdfReader(out / "report.pdf")
    root = reader.trailer["/Root"]
    assert bool(root["/MarkInfo"]["/Marked"])
    assert root["/Lang"] == "en"
    tree = root["/StructTreeRoot"].get_object()
    roles = set()
    todo = [tree]
    while todo:
        node = todo.pop()
        kids = node.get("/K")
        if kids is None:
            continue
        kids = kids if isinstance(kids, list) else [kids]
        for kid in kids:
            obj = kid.get_object() if hasattr(kid, "get_object") else kid
            if isinstance(obj, dict):
                if "/S" in obj:
                    roles.add(str(obj["/S"]))
                todo.append(obj)
    assert {"/Table", "/TH", "/TD", "/H2", "/P"} <= roles, roles
    xmp = reader.xmp_metadata
    assert xmp is not None and (xmp.pdfaid_part, xmp.pdfaid_conformance) == ("3", "B")
    info = reader.metadata
    assert info is not None and info.subject is not None
    assert "Approved with conditions: report TPRM-2026-099 version 2.1" in info.subject
    assert reader.attachments["report.json"] == [(out / "report.json").read_bytes()]
