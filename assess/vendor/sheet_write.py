"""Write the questionnaire as a spreadsheet to send to a vendor (xlsx with drop-downs, or csv).

The columns are those :mod:`assess.vendor.sheet_read` reads back: ``id``, ``value``,
``evidence`` (required), ``note``, ``ref``, ``date`` (YYYY-MM-DD), ``per`` (a JSON object:
model, deployment or Region -> value) and ``conflicts`` (a JSON list of ``{ref, note}``); the
others explain the question. Every field of an answer has a column: export then import gives the
same answers.
"""

from __future__ import annotations

import io
import json
from typing import Any

from assess.kernel.common import EvidenceLevel
from assess.kernel.csvfile import csv_text
from assess.vendor.answers import AnswerSet, CheckedAnswer
from assess.vendor.questionnaire import UNKNOWN, AnswerType, Question, Questionnaire
from assess.vendor.sheet_read import DATE_ROW, SHEET, VENDOR_ROW

COLUMNS = ("id", "section", "question", "help", "type", "allowed", "critical") + (
    "value",
    "evidence",
    "note",
    "ref",
    "date",
    "per",
    "conflicts",
)
#: Columns after ``value`` (blank on the metadata rows).
_AFTER_VALUE = len(COLUMNS) - COLUMNS.index("value") - 1
EVIDENCE = ",".join(e.value for e in EvidenceLevel)


def allowed_text(q: Question) -> str:
    """Return what a cell for ``q`` may hold, for the ``allowed`` column."""
    match q.type:
        case AnswerType.ENUM:
            values = list(q.values) + ([] if UNKNOWN in q.values else [UNKNOWN])
            return ", ".join(values)
        case AnswerType.BOOL:
            return "yes, no, unknown"
        case AnswerType.INT:
            low = f"whole number >= {q.min}" if q.min is not None else "whole number"
            return f"{low}, or unknown"
        case AnswerType.VERSION:
            return "version such as 0.5.22, or unknown"
        case AnswerType.LIST:
            return "comma-separated list, or unknown"
        case AnswerType.PER_ROLE:
            return f"role=number; ... (roles: {', '.join(q.roles)}), or unknown"
        case _:
            return "text, or unknown"


def cell_text(value: Any) -> Any:
    """Return an answer value as a spreadsheet cell (the import reads it back)."""
    if value is True or value is False:
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(value)
    if isinstance(value, dict):
        return "; ".join(f"{k}={v}" for k, v in value.items())
    return value


def sheet_rows(bank: Questionnaire, answers: AnswerSet | None = None) -> list[list[Any]]:
    """Return the header and one row per question (pre-filled from ``answers`` when given)."""
    rows: list[list[Any]] = [list(COLUMNS)]
    vendor = answers.vendor if answers else ""
    date = answers.date.isoformat() if answers else ""
    rows.append(
        [VENDOR_ROW, "", "Your company name", "", "text", "text", "", vendor] + [""] * _AFTER_VALUE
    )
    rows.append(
        [DATE_ROW, "", "Date of these answers", "", "date", "YYYY-MM-DD", "", date]
        + [""] * _AFTER_VALUE
    )
    for q in bank.questions:
        given = answers.answers.get(q.id) if answers else None
        value = cell_text(given.value) if given else ""
        rows.append(
            [
                q.id,
                q.section,
                q.text,
                q.help,
                q.type.value,
                allowed_text(q),
                "yes" if q.critical else "",
                value,
                given.evidence.value if given else "",
                given.note if given else "",
                given.ref if given else "",
                *_extra_cells(given),
            ]
        )
    return rows


def _extra_cells(given: CheckedAnswer | None) -> list[str]:
    """Return the ``date``, ``per`` and ``conflicts`` cells of an answer (blank when absent).

    ``per`` and ``conflicts`` are JSON: a value per model keeps its type (yes/no, a list, numbers
    per role) and a label may hold any character, so the import reads back exactly what was
    written.
    """
    if given is None:
        return [""] * 3
    per = json.dumps(given.per, ensure_ascii=False) if given.per else ""
    conflicts = [c.model_dump(mode="json") for c in given.conflicts]
    return [
        given.date.isoformat() if given.date else "",
        per,
        json.dumps(conflicts, ensure_ascii=False) if conflicts else "",
    ]


def to_csv(bank: Questionnaire, answers: AnswerSet | None = None) -> str:
    """Return the questionnaire as CSV text (CRLF rows, formula cells inert; the import
    undoes the guard: :mod:`assess.kernel.csvfile`)."""
    return csv_text(sheet_rows(bank, answers))


def to_xlsx(bank: Questionnaire, answers: AnswerSet | None = None) -> bytes:
    """Return the questionnaire as an xlsx workbook with drop-downs for evidence and choices."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font, PatternFill
    from openpyxl.worksheet.datavalidation import DataValidation

    book = Workbook()
    sheet = book.active
    sheet.title = SHEET
    for row in sheet_rows(bank, answers):
        sheet.append(row)
        for cell in sheet[sheet.max_row]:
            if isinstance(cell.value, str) and cell.value.startswith("="):
                cell.data_type = "s"  # an answer such as "=1+1" is text, never a formula
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    sheet.freeze_panes = "C2"
    widths = {"A": 44, "B": 12, "C": 60, "D": 40, "E": 12, "F": 30, "G": 9, "H": 28, "I": 12}
    more = {"J": 30, "K": 30, "L": 12, "M": 30, "N": 30}
    for column, width in {**widths, **more}.items():
        sheet.column_dimensions[column].width = width
    fill = PatternFill("solid", fgColor="FFF2CC")
    evidence = DataValidation(type="list", formula1=f'"{EVIDENCE}"', allow_blank=True)
    sheet.add_data_validation(evidence)
    choices: dict[str, DataValidation] = {}
    for index in range(2, sheet.max_row + 1):
        sheet[f"C{index}"].alignment = Alignment(wrap_text=True, vertical="top")
        sheet[f"H{index}"].fill = fill
        sheet[f"I{index}"].fill = fill
        if index > 3:
            evidence.add(f"I{index}")
        options = _choices(bank.questions[index - 4]) if index > 3 else None
        if options:
            if options not in choices:
                choices[options] = DataValidation(
                    type="list", formula1=f'"{options}"', allow_blank=True
                )
                sheet.add_data_validation(choices[options])
            choices[options].add(f"H{index}")
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _choices(q: Question) -> str | None:
    if q.type is AnswerType.BOOL:
        return "yes,no,unknown"
    if q.type is AnswerType.ENUM:
        return ",".join(q.values + ([] if UNKNOWN in q.values else [UNKNOWN]))
    return None
