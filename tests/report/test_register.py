"""`assess report --format xlsx`: findings-register.xlsx read back with openpyxl, in the column
layout of CISO Assistant's findings import, cells never formulas, timestamps from the review."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from openpyxl import load_workbook

from assess.kernel.common import Severity
from assess.report.api import build_report
from assess.report.models import Report
from assess.report.register import COLUMNS, cell_column, register_bytes
from tests.report.conftest import invoke
from tests.report.test_oscal import SAMPLES, demo_args, signed  # noqa: F401 (a fixture)

#: The header of CISO Assistant's own template, in its order
#: (intuitem/ciso-assistant-community, backend/data_wizard/import_templates/
#: findings_assessment_template.xlsx, first sheet).
CISO_TEMPLATE_HEADER = [
    "ref_id",
    "name",
    "description",
    "severity",
    "status",
    "filtering_labels",
    "asset",
]
#: Values its importer accepts (FindingsAssessmentRecordConsumer.SEVERITY_MAP, Finding.Status).
CISO_SEVERITIES = {"info", "low", "medium", "high", "critical"}
CISO_STATUSES = {"--", "identified", "confirmed", "dismissed", "assigned", "in_progress"}
CISO_STATUSES |= {"mitigated", "resolved", "closed", "deprecated"}


@pytest.fixture(scope="module")
def register(module_tmp: Path) -> tuple[list[list[object]], Path]:
    out = module_tmp / "register"
    assert invoke(*demo_args(out, "json,xlsx")).exit_code == 0
    book = load_workbook(out / "findings-register.xlsx")
    assert book.sheetnames[0] == "findings"
    rows = [list(r) for r in book.worksheets[0].iter_rows(values_only=True)]
    return rows, out


def test_the_header_starts_with_ciso_assistants_template(
    register: tuple[list[list[object]], Path],
) -> None:
    rows, _ = register
    assert rows[0][: len(CISO_TEMPLATE_HEADER)] == CISO_TEMPLATE_HEADER
    assert rows[0] == list(COLUMNS)
    for column in ("priority", "due_date", "eta", "observation"):  # also read by the importer
        assert column in rows[0]


def test_one_row_per_finding_in_the_reviews_order(
    register: tuple[list[list[object]], Path],
) -> None:
    import json

    rows, out = register
    report = json.loads((out / "report.json").read_text())
    body = [dict(zip(rows[0], r, strict=True)) for r in rows[1:]]
    assert [r["ref_id"] for r in body] == [f["ref"] for f in report["findings"]]
    assert sorted(r["ref_id"] for r in body) == [f"F-{n:02d}" for n in range(1, len(body) + 1)]
    assert [r["name"] for r in body] == [f["title"] for f in report["findings"]]
    assert {r["severity"] for r in body} <= CISO_SEVERITIES
    assert {r["status"] for r in body} <= CISO_STATUSES
    first = body[0]
    assert first["severity"] == "critical" and first["priority"] == 1
    assert first["status"] == "confirmed"  # verified by the startup logs
    assert first["section"] == "engine" and first["evidence"] == "verified"
    assert first["remediation"].startswith("Upgrade sglang")
    assert first["asset"].startswith("Example Edge AI Inc.")
    assert "line 10" not in (first["observation"] or "")  # log snippets stay in the review


def test_the_manifest_lists_the_register(register: tuple[list[list[object]], Path]) -> None:
    import hashlib
    import json

    _, out = register
    listed = {
        e["path"]: e["sha256"] for e in json.loads((out / "manifest.json").read_text())["outputs"]
    }
    data = (out / "findings-register.xlsx").read_bytes()
    assert listed["findings-register.xlsx"] == hashlib.sha256(data).hexdigest()


@pytest.fixture(scope="module")
def small_report() -> Report:
    return build_report(SAMPLES / "vendors/well-run.yaml", generated_at="2026-09-01T12:30:00Z")


def test_cells_are_text_never_formulas(small_report: Report) -> None:
    finding = small_report.findings[0].model_copy(
        update={
            "title": '=HYPERLINK("http://evil.example","x")',
            "detail": "+1+1\x07bell",
            "remediation": "@SUM(A1)",
        }
    )
    report = small_report.model_copy(update={"findings": [finding]})
    sheet = load_workbook(io.BytesIO(register_bytes(report))).worksheets[0]
    header = [c.value for c in sheet[1]]
    cells = {name: sheet.cell(row=2, column=i + 1) for i, name in enumerate(header)}
    assert cells["name"].value == '=HYPERLINK("http://evil.example","x")'
    assert cells["name"].data_type == "s"
    assert cells["description"].value == "+1+1bell"  # the control character is dropped
    assert all(c.data_type != "f" for row in sheet.iter_rows() for c in row)
    assert cells["severity"].value == Severity(small_report.findings[0].severity).value


def test_every_timestamp_is_the_reviews(small_report: Report) -> None:
    data = register_bytes(small_report)
    archive = zipfile.ZipFile(io.BytesIO(data))
    assert {i.date_time for i in archive.infolist()} == {(2026, 9, 1, 12, 30, 0)}
    core = archive.read("docProps/core.xml").decode()
    assert "2026-09-01T12:30:00Z</dcterms:modified>" in core
    assert "2026-09-01T12:30:00Z</dcterms:created>" in core
    assert register_bytes(small_report) == data


def test_a_review_before_1980_still_writes_a_zip(small_report: Report) -> None:
    early = small_report.model_copy(update={"generated_at": "1970-01-01T00:00:00Z"})
    archive = zipfile.ZipFile(io.BytesIO(register_bytes(early)))
    assert {i.date_time for i in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}


@pytest.mark.parametrize(("index", "letters"), [(0, "A"), (16, "Q"), (25, "Z"), (26, "AA")])
def test_column_letters(index: int, letters: str) -> None:
    assert cell_column(index) == letters


def test_read_as_ciso_assistants_importer_reads_it(
    register: tuple[list[list[object]], Path],
) -> None:
    """What the importer does (backend/data_wizard/views.py): ``pd.read_excel`` of the first
    sheet, blanks filled with "", headers stripped and lower-cased, one record per row; then
    each record's severity, status and priority are looked up as FindingsAssessmentRecordConsumer
    looks them up (no case folding of severity, priority an integer 1-4)."""
    import pandas as pd

    _, out = register
    frame = pd.read_excel(out / "findings-register.xlsx").astype(object).fillna("")
    frame.columns = [str(c).strip().lower() for c in frame.columns]
    records = frame.to_dict(orient="records")
    severity_map = {"info": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}
    assert records and all(r["name"] for r in records)  # name is the one mandatory field
    assert all(severity_map.get(r["severity"], -1) >= 0 for r in records)
    assert {r["status"] for r in records} <= CISO_STATUSES
    # a column with blanks comes back as floats; the importer takes int(float) for numbers
    priorities = {int(r["priority"]) for r in records if isinstance(r["priority"], int | float)}
    assert priorities == {1, 2, 3, 4}
    assert all(r["priority"] == "" for r in records if r["severity"] == "info")
    assert {r["ref_id"] for r in records} == {f"F-{n:02d}" for n in range(1, len(records) + 1)}


def test_owner_due_date_and_status_come_from_the_remediation_plan(signed: Path) -> None:  # noqa: F811
    import json

    book = load_workbook(signed / "findings-register.xlsx")
    rows = [list(r) for r in book.worksheets[0].iter_rows(values_only=True)]
    body = {r[0]: dict(zip(rows[0], r, strict=True)) for r in rows[1:]}
    plan = json.loads((signed / "report.json").read_text())["remediation"]
    findings = [i for i in plan if i["kind"] == "finding"]
    report = json.loads((signed / "report.json").read_text())
    info = {f["ref"] for f in report["findings"] if f["severity"] == "info"}
    assert info and set(body) == {i["ref"] for i in findings} | info
    assert {body[ref]["plan_status"] for ref in info} == {"for the record"}
    for item in findings:
        row = body[item["ref"]]
        assert row["owner"] == item["owner"] and row["due_date"] == item["due"]
        assert row["plan_status"] == item["status"]
        assert row["overdue"] == ("yes" if item["overdue"] else "no")
    moving = next(i for i in findings if i["status"] == "in progress")
    assert body[moving["ref"]]["status"] == "in_progress"
    assert body[moving["ref"]]["owner"] == "Vendor management"
    assert {r["status"] for r in body.values()} <= CISO_STATUSES


def test_done_is_resolved_and_accepted_keeps_the_evidence_status(small_report: Report) -> None:
    from assess.report.governance import RemediationItem
    from assess.report.register import register_rows

    first, *_ = small_report.findings
    for status, shown in (("done", "resolved"), ("accepted", "identified"), ("open", "identified")):
        item = RemediationItem(
            ref=first.ref, id=first.id, kind="finding", title=first.title,
            severity=first.severity.value, owner="Ops", due="2026-10-01", status=status,
        )  # fmt: skip
        report = small_report.model_copy(update={"remediation": [item]})
        row = register_rows(report)[0]
        assert (row["status"], row["plan_status"]) == (shown, status)
        assert (row["owner"], row["due_date"]) == ("Ops", "2026-10-01")


def test_a_re_assessment_carries_the_plan_into_the_register(
    signed: Path,  # noqa: F811
    module_tmp: Path,
) -> None:
    out = module_tmp / "register-again"
    assert invoke(*demo_args(out, "json,xlsx"), "--previous", str(signed)).exit_code == 0
    sheet = load_workbook(out / "findings-register.xlsx").worksheets[0]
    rows = [list(r) for r in sheet.iter_rows(values_only=True)]
    body = [dict(zip(rows[0], r, strict=True)) for r in rows[1:]]
    carried = [r for r in body if r["owner"] == "Vendor management"]
    assert carried and {r["plan_status"] for r in carried} == {"in progress", "open"}
    assert all(r["due_date"] == "2026-10-15" for r in carried)
