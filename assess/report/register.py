"""``findings-register.xlsx``: the review's findings, one row each, for a GRC tool to import.

The columns follow the findings import of CISO Assistant (intuitem/ciso-assistant-community): its
template ``backend/data_wizard/import_templates/findings_assessment_template.xlsx`` has the header
``ref_id, name, description, severity, status, filtering_labels, asset`` on the first sheet, and
``FindingsAssessmentRecordConsumer`` in ``backend/data_wizard/views.py`` also reads ``priority``
(1-4), ``eta``, ``due_date`` (YYYY-MM-DD) and ``observation``; headers are matched lower-cased,
other columns are ignored. Severity is one of ``info low medium high critical``, status one of the
``Finding.Status`` values (``identified``, ``confirmed``, ``in_progress``, ``resolved`` ...). The
columns after those are for people reading the register: section, evidence, remediation, owner,
the plan's own status, and the framework controls of each finding (``controls``: one cell,
``framework:id`` separated by ``; ``, from controls/crosswalk.yaml).

Owner, due date and status come from the review's remediation plan (``review.yaml``, or carried
from ``--previous``): a finding in progress is ``in_progress``, a done one ``resolved``; an open or
accepted one stays ``identified`` / ``confirmed`` (CISO Assistant has no status for an accepted
risk: ``plan_status`` says ``accepted``).

Cells are text, never formulas: openpyxl stores a string starting with ``=`` as a formula, so such
cells are forced to the string type (the guard of :mod:`assess.kernel.csvfile`, for xlsx), and
characters XML cannot hold are dropped. The workbook's timestamps (the document properties and
every zip entry) are the review's ``generated_at``, so the same review gives the same bytes.
"""

from __future__ import annotations

import io
import re
import zipfile
from datetime import datetime
from typing import Any

from assess.kernel.common import EvidenceLevel, Severity
from assess.kernel.csvfile import FORMULA_START
from assess.report.governance import ItemStatus, RemediationItem
from assess.report.models import Report, ReportFinding
from assess.report.prose import prose, question_texts

SHEET = "findings"
#: The evidence axis, after the findings (a GRC import reads the first sheet only).
ASK_SHEET = "questions to send"
ASK_COLUMNS = ("order", "question_id", "question", "priority", "weight", "reason")
COVERAGE_SHEET = "coverage"
#: CISO Assistant's import columns first (its template's order), then the reader's.
COLUMNS = (
    "ref_id",
    "name",
    "description",
    "severity",
    "status",
    "filtering_labels",
    "asset",
    "priority",
    "due_date",
    "eta",
    "observation",
    "section",
    "evidence",
    "remediation",
    "owner",
    "plan_status",
    "overdue",
    "points",
    "finding_id",
    "controls",
)
#: CISO Assistant's priority (P1 .. P4) for each severity; info findings get none.
PRIORITY = {Severity.CRITICAL: 1, Severity.HIGH: 2, Severity.MEDIUM: 3, Severity.LOW: 4}
_WIDTHS = {"ref_id": 8, "name": 50, "description": 60, "observation": 50, "remediation": 60}
#: CISO Assistant's Finding.Status for a plan status (None: identified or confirmed, by evidence).
PLAN_STATUS: dict[ItemStatus, str | None] = {
    "open": None,
    "in progress": "in_progress",
    "accepted": None,
    "done": "resolved",
}
_ZIP_EPOCH = datetime(1980, 1, 1)
_ILLEGAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def finding_section(report: Report, finding: ReportFinding) -> str:
    """Return the questionnaire section of a finding: the part before the first dot of the first
    answered question it rests on (as the score's section points count it), else ``evidence``."""
    answered = {a.id for a in report.answers}
    question = next((q for q in finding.rests_on if q in answered), None)
    return question.split(".", 1)[0] if question else "evidence"


def register_rows(report: Report) -> list[dict[str, Any]]:
    """Return one row per finding (keys :data:`COLUMNS`), in the review's order."""
    asset = report.vendor.name + (f" - {report.vendor.service}" if report.vendor.service else "")
    answered = {a.id for a in report.answers}
    questions = question_texts(report)
    plan = {i.id: i for i in report.remediation if i.kind == "finding" and i.change != "closed"}
    rows = []
    for f in report.findings:
        section = finding_section(report, f)
        verified = f.evidence_level is EvidenceLevel.VERIFIED
        item = plan.get(f.id) or RemediationItem(
            ref=f.ref, id=f.id, kind="finding", title=f.title, severity=f.severity.value
        )
        # the questions by their text (not log snippets or URLs)
        basis = "; ".join(questions.get(q, q) for q in f.rests_on if q in answered)
        observation = f"Answers to: {basis}" if basis else ""
        if f.nodes:
            observation += f" Nodes: {', '.join(f.nodes)}."
        rows.append(
            {
                "ref_id": f.ref,
                "name": f.title,
                "description": prose(f.detail, questions),
                "severity": f.severity.value,
                "status": PLAN_STATUS[item.status] or ("confirmed" if verified else "identified"),
                "filtering_labels": f"assess|{section}",
                "asset": asset,
                "priority": PRIORITY.get(f.severity),
                "due_date": item.due,
                "eta": None,
                "observation": observation.strip(),
                "section": section,
                "evidence": f.evidence_level.value if f.evidence_level else "none",
                "remediation": f.remediation,
                "owner": item.owner,
                # informational: not in the plan, nothing to remediate (never "open")
                "plan_status": "for the record"
                if f.severity.value == "info" and f.id not in plan
                else item.status,
                "overdue": "yes" if item.overdue else "no",
                "points": f.points,
                "finding_id": f.id,
                "controls": controls_cell(f),
            }
        )
    return rows


def controls_cell(finding: ReportFinding) -> str:
    """Return the finding's framework controls as one cell: ``csa-aicm:I&S-06; iso-42001:A.4.5``
    (framework key and control id, docs/controls.md; the titles are in report.json)."""
    return "; ".join(f"{c.framework}:{c.id}" for c in finding.controls)


def register_bytes(report: Report) -> bytes:
    """Return ``findings-register.xlsx`` as written (same review, same bytes)."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font

    book = Workbook()
    sheet = book.active
    sheet.title = SHEET
    sheet.append(list(COLUMNS))
    for row in register_rows(report):
        sheet.append([_text(row[c]) for c in COLUMNS])
        for cell in sheet[sheet.max_row]:
            if isinstance(cell.value, str) and cell.value[:1] in FORMULA_START:
                cell.data_type = "s"  # text, never a formula
            cell.alignment = Alignment(wrap_text=True, vertical="top")
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for index, name in enumerate(COLUMNS):
        sheet.column_dimensions[cell_column(index)].width = _WIDTHS.get(name, 14)
    sheet.freeze_panes = "C2"
    sheet.auto_filter.ref = sheet.dimensions
    _evidence_sheets(book, report)
    when = _when(report.generated_at)
    book.properties.creator = f"assess {report.tool.version}"
    book.properties.created = when
    out = io.BytesIO()
    book.save(out)
    return _fixed_times(out.getvalue(), when)


def _evidence_sheets(book: Any, report: Report) -> None:
    """Add the coverage (measure, value) and the questions still to send the vendor, weightiest
    first; a review of a score document older than the evidence axis gets neither."""
    from openpyxl.styles import Font

    if report.coverage is None:
        return
    cover = book.create_sheet(COVERAGE_SHEET)
    for row in (
        ("measure", "value"),
        ("coverage", round(report.coverage, 3)),
        ("evidence_verdict", report.evidence_verdict or ""),
        ("questions_to_send", len(report.questions_to_send)),
        ("summary", _text(report.summary.coverage_sentence)),
    ):
        cover.append(list(row))
    ask = book.create_sheet(ASK_SHEET)
    ask.append(list(ASK_COLUMNS))
    for n, q in enumerate(report.questions_to_send, start=1):
        ask.append([n, q.id, _text(q.text), q.priority.value, q.weight, q.reason])
    for sheet in (cover, ask):
        for cell in sheet[1]:
            cell.font = Font(bold=True)
        for row in sheet.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and cell.value[:1] in FORMULA_START:
                    cell.data_type = "s"  # text, never a formula
    ask.column_dimensions["B"].width, ask.column_dimensions["C"].width = 40, 70
    cover.column_dimensions["A"].width, cover.column_dimensions["B"].width = 20, 90


def cell_column(index: int) -> str:
    """Return the spreadsheet column letters of a 0-based index (0 -> A, 26 -> AA)."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def _text(value: Any) -> Any:
    return _ILLEGAL.sub("", value) if isinstance(value, str) else value


def _when(generated_at: str) -> datetime:
    return datetime.fromisoformat(generated_at.replace("Z", "+00:00")).replace(tzinfo=None)


def _fixed_times(data: bytes, when: datetime) -> bytes:
    """Rewrite the workbook with every timestamp set to ``when``: openpyxl stamps the save time
    into ``docProps/core.xml`` (modified) and into each zip entry."""
    stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    modified = re.compile(rb"(<dcterms:modified[^>]*>)[^<]*(</dcterms:modified>)")
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            body = source.read(info.filename)
            if info.filename == "docProps/core.xml":
                body = modified.sub(rb"\g<1>" + stamp.encode() + rb"\g<2>", body)
            # zip dates start in 1980 (SOURCE_DATE_EPOCH=0 is 1970)
            entry = zipfile.ZipInfo(info.filename, date_time=max(when, _ZIP_EPOCH).timetuple()[:6])
            entry.compress_type = zipfile.ZIP_DEFLATED
            target.writestr(entry, body)
    return out.getvalue()
