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
from tests.report.conftest import copy_assets, full_args, invoke


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
    result = invoke("report", "--questionnaire", str(vendor), "--out", str(out), "--format", "pdf")
    assert result.exit_code == 0, result.output
    pages = [p.extract_text() for p in pypdf.PdfReader(out / "report.pdf").pages]
    [page] = [p for p in pages if "Appendix: inputs" in p]
    after = "".join(page.split("Appendix: inputs", 1)[1].split())
    assert "RoleFileBytesSHA-256" in after  # the table's header row follows
    assert "samples/vendors/incident-like.yaml" in after  # and its first row
