"""Read a questionnaire spreadsheet a vendor filled in (xlsx or csv) back into checked answers.

The sheet has one row per question (columns ``id``, ``value``, ``evidence`` required; ``note``,
``ref``, ``date``, ``per`` and ``conflicts`` read when present, the last two as JSON; others
ignored) and two rows for the answers' metadata with ids
``@vendor`` and ``@date``. Problems name the file and the row.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import itertools
import json
import zipfile
from pathlib import Path
from typing import Any

from assess.kernel.csvfile import restore
from assess.kernel.errors import InputError
from assess.kernel.structured import Loc, read_text
from assess.vendor.answers import AnswerSet
from assess.vendor.answers_check import Problem, check_answers
from assess.vendor.questionnaire import Questionnaire

SPREADSHEET_SUFFIXES = (".xlsx", ".csv")
#: Columns the import needs; the others are optional.
REQUIRED_COLUMNS = ("id", "value", "evidence")
OPTIONAL_COLUMNS = ("note", "ref", "date", "per", "conflicts")
#: Optional columns written as JSON (their shape: what the import expects to find).
JSON_COLUMNS = {
    "per": (dict, 'a JSON object such as {"gpt-4o": "organization"}'),
    "conflicts": (list, 'a JSON list such as [{"ref": "https://...", "note": "..."}]'),
}
VENDOR_ROW, DATE_ROW = "@vendor", "@date"
SHEET = "answers"
#: How many rows from the top may hold the header (vendors add title rows above it).
_HEADER_SEARCH = 10

Row = tuple[int, dict[str, Any]]


def _cell(value: Any) -> Any:
    # Text is kept as written (a note's spaces, CRs and LFs included): the checks strip the
    # values that are tokens (ids, evidence, yes/no, numbers), never a note or a ref.
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def _xlsx_rows(path: Path) -> tuple[list[str], list[Row]]:
    from openpyxl import load_workbook  # imported here: only needed for xlsx

    try:
        # not read_only: that mode trusts the sheet's <dimension> (a stale one dropped 21 of 30
        # answers) and knows no hidden columns; a questionnaire is a few hundred rows
        book = load_workbook(path, data_only=False)
    except FileNotFoundError as exc:
        raise InputError(f"{path}: no such file", "Check the path and try again.") from exc
    except (zipfile.BadZipFile, OSError, KeyError, ValueError) as exc:
        raise InputError(
            f"{path}: not an xlsx workbook ({exc})", "Give the .xlsx file, or save it as CSV."
        ) from exc
    sheet = _answers_sheet(path, book)
    rows = [list(row) for row in sheet.iter_rows()]
    hidden = _hidden_columns(sheet)
    hidden_rows = {n for n, dim in sheet.row_dimensions.items() if dim.hidden}
    book.close()
    if not rows:
        raise InputError(f"{path}: the sheet is empty", "Export a fresh sheet and fill it in.")
    header, body = _split_header(
        [(number, [cell.value for cell in row]) for number, row in enumerate(rows, start=1)]
    )
    _refuse_hidden_columns(path, header, hidden)
    _refuse_hidden_rows(path, body, hidden_rows)
    _refuse_formulas(path, header, rows)
    return header, body


def _answers_sheet(path: Path, book: Any) -> Any:
    """Return the sheet a person sees: a visible one named ``answers``, else the active one if
    visible, else the first visible one.

    Raises:
        InputError: when a hidden sheet holds answers too (an ``id`` and a ``value`` column):
            which one the vendor meant cannot be told, and a hidden one must not win.
    """
    visible = [ws for ws in book.worksheets if ws.sheet_state == "visible"]
    hidden = [ws.title for ws in book.worksheets if ws.sheet_state != "visible" and _has_header(ws)]
    if hidden:
        raise InputError(
            f"{path}: hidden sheet{'s' if len(hidden) > 1 else ''} "
            + ", ".join(f"'{t}'" for t in hidden)
            + " hold answers too (an id and a value column); only visible sheets are read",
            "Delete the sheet that is not the vendor's answers, or unhide it and delete the "
            "other, so one visible sheet holds the answers.",
        )
    if not visible:
        raise InputError(f"{path}: no visible sheet", "Unhide the answers sheet.")
    named = [ws for ws in visible if ws.title == SHEET]
    return named[0] if named else book.active if book.active in visible else visible[0]


def _has_header(sheet: Any) -> bool:
    rows = sheet.iter_rows(max_row=_HEADER_SEARCH, values_only=True)
    return any({"id", "value"} <= {str(c).strip().lower() for c in row if c} for row in rows)


def _hidden_columns(sheet: Any) -> set[int]:
    """Return the 1-based indexes of the sheet's hidden columns."""
    return {
        index
        for dim in sheet.column_dimensions.values()
        if dim.hidden
        for index in range(dim.min or 0, (dim.max or 0) + 1)
    }


def _refuse_hidden_columns(path: Path, header: list[str], hidden: set[int]) -> None:
    """Refuse a hidden column the import would read: nobody reviewing the sheet sees it.

    Raises:
        InputError: naming each such column.
    """
    read = set(REQUIRED_COLUMNS) | set(OPTIONAL_COLUMNS)
    found = [f"'{name}' (column {index})" for index, name in enumerate(header, 1)
             if index in hidden and name in read]  # fmt: skip
    if found:
        raise InputError(
            f"{path}: hidden column{'s' if len(found) > 1 else ''} "
            + ", ".join(found)
            + " would be read as answers; hidden cells are not answers anyone reviewed",
            "Unhide the column and delete the one that is not meant, or delete it.",
        )


def _refuse_hidden_rows(path: Path, body: list[Row], hidden: set[int]) -> None:
    """Refuse a hidden row holding anything the import would read, as a hidden sheet or
    column is: nobody reviewing the sheet sees it (a blank hidden row is ignored).

    Raises:
        InputError: naming each such row (its number and id).
    """
    found = [f"{number} ({row.get('id') or 'no id'})" for number, row in body
             if number in hidden and not all(_blank(v) for v in row.values())]  # fmt: skip
    if found:
        shown = ", ".join(found[:10]) + (f" and {len(found) - 10} more" if len(found) > 10 else "")
        raise InputError(
            f"{path}: hidden row{'s' if len(found) > 1 else ''} {shown} would be read as "
            "answers; hidden cells are not answers anyone reviewed",
            "Unhide the rows and delete the ones that are not meant, or delete them.",
        )


def _refuse_formulas(path: Path, header: list[str], rows: list[list[Any]]) -> None:
    """Refuse formula cells in the columns the import reads.

    The workbook is opened with formulas, not cached values: a formula's cached value is absent
    when the file was written by a program that does not compute (openpyxl, some exports), and
    read as blank it became a silent 'unknown'. An answer must be the text the vendor typed.

    Raises:
        InputError: listing every formula cell (row, column, formula).
    """
    read = set(REQUIRED_COLUMNS) | set(OPTIONAL_COLUMNS)
    found = [
        f"row {number} column '{name}': {cell.value}"
        for number, row in enumerate(rows, start=1)
        for name, cell in zip(header, row, strict=False)
        if name in read and getattr(cell, "data_type", None) == "f"
    ]
    if found:
        raise InputError(
            f"{path}: {len(found)} answer cell{'s' if len(found) > 1 else ''} hold a formula, "
            "not an answer: " + "; ".join(found[:20]) + (" ..." if len(found) > 20 else ""),
            "Type the answers as values (in Excel: copy the cells, Paste Special > Values).",
        )


def _split_header(rows: list[tuple[int, list[Any]]]) -> tuple[list[str], list[Row]]:
    """Return the header and the data rows below it.

    The header is the first row naming the ``id`` and ``value`` columns (a vendor may add a title
    row or two above it), else the first row.
    """

    def names(row: list[Any]) -> list[str]:
        return [str(c).strip().lower() if c is not None else "" for c in row]

    at = next(
        (
            i
            for i, (_, row) in enumerate(rows[:_HEADER_SEARCH])
            if {"id", "value"} <= set(names(row))
        ),
        0,
    )
    header = names(rows[at][1])
    body = [
        (number, {h: _cell(v) for h, v in zip(header, row, strict=False) if h})
        for number, row in rows[at + 1 :]
    ]
    return header, body


def _csv_text(path: Path) -> str:
    """Return the CSV's text: Excel saves it as UTF-8, UTF-16 ("Unicode text") or Windows-1252."""
    try:
        return read_text(path)
    except InputError as exc:
        if not isinstance(exc.__cause__, UnicodeDecodeError):
            raise
        raw = path.read_bytes()
    try:
        if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
            return raw.decode("utf-16")
        return raw.decode("cp1252")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path}: is not text in UTF-8, UTF-16 or Windows-1252 (byte {exc.start})",
            "Save the sheet as xlsx or as 'CSV UTF-8'.",
        ) from exc


def _csv_rows(path: Path) -> tuple[list[str], list[Row]]:
    text = _csv_text(path)
    if not text.strip():
        raise InputError(f"{path}: the file is empty", "Export a fresh sheet and fill it in.")
    delimiter = _delimiter(text)
    # newline="": CR, LF and CRLF inside a quoted cell reach the reader as written.
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows: list[tuple[int, list[Any]]] = []
    try:
        rows.extend((reader.line_num, [restore(cell) for cell in row]) for row in reader)
    except csv.Error as exc:
        raise InputError(f"{path}:{reader.line_num}: not valid CSV ({exc})") from exc
    return _split_header(rows)


def _delimiter(text: str) -> str:
    """Return the delimiter: Excel writes ';' (continental locales) or tabs ("Unicode text")
    instead of commas. The one whose parse of the top rows finds the header (``id`` and
    ``value`` columns) wins; else the most frequent in the top rows. Answers never decide it: a
    vendor name full of semicolons made the old count pick ';'."""
    top = "\n".join(text.split("\n", _HEADER_SEARCH)[:_HEADER_SEARCH])
    for delimiter in (",", ";", "\t"):
        try:
            for row in itertools.islice(csv.reader(io.StringIO(top), delimiter=delimiter), 3):
                if {"id", "value"} <= {c.strip().lower() for c in row}:
                    return delimiter
        except csv.Error:
            continue
    return max((",", ";", "\t"), key=top.count)


def sheet_rows(path: Path | str) -> list[Row]:
    """Return the data rows of a spreadsheet as (row number, {column: cell}).

    Raises:
        InputError: when the file is unreadable or a required column is missing.
    """
    p = Path(path)
    header, body = _xlsx_rows(p) if p.suffix.lower() == ".xlsx" else _csv_rows(p)
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise InputError(
            f"{p}: missing column{'s' if len(missing) > 1 else ''} "
            + ", ".join(f"'{c}'" for c in missing),
            f"The header row needs {', '.join(REQUIRED_COLUMNS)} (and optionally "
            f"{', '.join(OPTIONAL_COLUMNS)}); `assess questionnaire export` writes a fresh sheet.",
        )
    return body


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _json_cell(key: str, cell: Any, number: int, qid: str, problems: list[Problem]) -> Any:
    """Return a ``per`` or ``conflicts`` cell parsed from JSON (other cells as they are); a cell
    that is not JSON of the right shape is added to ``problems`` (and read as absent)."""
    if key not in JSON_COLUMNS or (isinstance(cell, str) and not cell.strip()):
        return cell if key not in JSON_COLUMNS else None
    shape, example = JSON_COLUMNS[key]
    try:
        parsed = json.loads(cell) if isinstance(cell, str) else None
    except ValueError:
        parsed = None
    if not isinstance(parsed, shape):
        problems.append((("@row", number), qid, f"{key}: expected {example}, got {cell!r}"))
        return None
    return parsed


def read_spreadsheet(path: Path | str, bank: Questionnaire) -> AnswerSet:
    """Read a filled-in questionnaire spreadsheet and check every answer.

    Raises:
        InputError: naming the file and the row (and question id) of every problem.
    """
    p = Path(path)
    where_row: dict[str, int] = {}
    answers: dict[str, dict[str, Any]] = {}
    meta: dict[str, Any] = {}
    extra: list[Problem] = []
    for number, cells in sheet_rows(p):
        qid = str(cells.get("id") or "").strip()
        if not qid:
            continue
        if qid in where_row:
            extra.append((("answers", qid), qid, f"given twice (first on row {where_row[qid]})"))
            continue
        where_row[qid] = number
        if qid in (VENDOR_ROW, DATE_ROW):
            given = cells.get("value")
            meta[qid] = given.strip() if isinstance(given, str) else given
            continue
        if all(_blank(cells.get(k)) for k in ("value", "evidence", *OPTIONAL_COLUMNS)):
            continue  # not answered: unknown (a row with only per/conflicts/date is read)
        entry = {"value": cells.get("value")}
        if not _blank(cells.get("evidence")):
            entry["evidence"] = str(cells["evidence"]).strip().lower()
        for key in OPTIONAL_COLUMNS:
            if cells.get(key) not in (None, ""):  # a note of spaces is kept as written
                value = _json_cell(key, cells[key], number, qid, extra)
                if value is not None:
                    entry[key] = value
        answers[qid] = entry
    vendor_answer = answers.get("vendor.name", {}).get("value")
    data: dict[str, Any] = {
        "questionnaire": bank.id,
        "vendor": meta.get(VENDOR_ROW) or vendor_answer,
        "date": meta.get(DATE_ROW),
        "answers": answers,
    }
    data = {k: v for k, v in data.items() if not _blank(v)}

    def where(loc: Loc) -> str:
        if loc and loc[0] == "@row":
            return f"{p}: row {loc[1]}"
        key = str(loc[1]) if len(loc) > 1 and loc[0] == "answers" else f"@{loc[0]}" if loc else ""
        row = where_row.get(key)
        return f"{p}: row {row}" if row else str(p)

    return check_answers(data, where, bank, source=str(p), extra=extra)
