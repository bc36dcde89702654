"""Every CSV assess writes guards formula cells, and the questionnaire sheet survives a round trip.

Measured before the change: `questionnaire export --format csv` and `scope --ids-csv` wrote cells
starting `=`, `+`, `-`, `@` raw; a note holding a bare CR was written unquoted (LF row ends) and
did not import back; an xlsx formula cell imported silently as 'unknown'.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assess.kernel.csvfile import csv_text, inert, restore
from assess.kernel.errors import InputError
from assess.vendor.answers import AnswerSet, CheckedAnswer
from assess.vendor.answers_check import is_not_applicable, is_unknown
from assess.vendor.bank import shipped_questionnaire
from assess.vendor.sheet_read import read_spreadsheet
from assess.vendor.sheet_write import to_csv, to_xlsx
from tests.conftest import ASSETS

HOSTILE = ['=HYPERLINK("http://x")', "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx"]
BANK = shipped_questionnaire()
TEXT_IDS = [q.id for q in BANK.questions if q.type.value == "text"][:2]

# Any text but lone surrogates (not encodable as UTF-8, so no file could hold them).
text = st.text(st.characters(blacklist_categories=["Cs"]), max_size=40)
# Answers that are tokens (unknown, not_applicable / n/a) mean the token on every path, YAML and
# sheet alike, so a text answer is one that is not a token, checked in its stripped form.
answer_text = text.map(str.strip).filter(
    lambda t: t and not is_unknown(t) and not is_not_applicable(t)
)


@pytest.mark.parametrize("value", [*HOSTILE, "'=x", "'", "''", "plain", ""])
def test_inert_then_restore_gives_the_value_back(value: str) -> None:
    guarded = inert(value)
    assert guarded[:1] not in set("=+-@\t\r")
    assert restore(guarded) == value


def _rows(text_out: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text_out, newline="")))


def test_csv_text_ends_rows_with_crlf_so_a_bare_cr_is_quoted() -> None:
    out = csv_text([["a", "b"], ["x\ry", "z"]])
    assert out == 'a,b\r\n"x\ry",z\r\n'
    assert _rows(out) == [["a", "b"], ["x\ry", "z"]]


def _answers(notes: dict[str, str], values: dict[str, str] | None = None) -> AnswerSet:
    answers = {
        qid: CheckedAnswer(value=(values or {}).get(qid, "Example"), note=note, ref=note)
        for qid, note in notes.items()
    }
    return AnswerSet(
        questionnaire=BANK.id, vendor="Example AI", date=dt.date(2026, 12, 1), answers=answers
    )


@pytest.mark.parametrize("hostile", HOSTILE)
def test_questionnaire_csv_export_guards_formula_cells(hostile: str) -> None:
    exported = to_csv(BANK, _answers({TEXT_IDS[0]: hostile}, {TEXT_IDS[0]: "=1+1"}))
    row = next(r for r in _rows(exported) if r[0] == TEXT_IDS[0])
    assert row[7] == "'=1+1"
    assert row[9] == "'" + hostile
    assert not any(cell[:1] in set("=+-@\t\r") for r in _rows(exported) for cell in r)


def _round_trip(tmp_path: Path, answers: AnswerSet) -> AnswerSet:
    path = tmp_path / "sheet.csv"
    path.write_bytes(to_csv(BANK, answers).encode("utf-8"))
    return read_spreadsheet(path, BANK)


def test_a_note_with_a_bare_cr_imports_back(tmp_path: Path) -> None:
    answers = _answers({TEXT_IDS[0]: "first\rsecond", TEXT_IDS[1]: "a\r\nb\nc "})
    assert _round_trip(tmp_path, answers).answers == answers.answers


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(note=text, other=text, value=answer_text, vendor=answer_text)
def test_export_then_import_gives_the_same_answers(
    tmp_path: Path, note: str, other: str, value: str, vendor: str
) -> None:
    answers = _answers({TEXT_IDS[0]: note, TEXT_IDS[1]: other}, {TEXT_IDS[0]: value})
    answers = answers.model_copy(update={"vendor": vendor})
    back = _round_trip(tmp_path, answers)
    assert back.answers == answers.answers
    assert back.vendor == vendor


def test_scope_ids_csv_guards_formula_cells(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "gw.ndjson"
    # Cloudflare AI Gateway lines as in samples/logs/cloudflare-ai-gateway.ndjson, ids made hostile.
    source = (ASSETS / "damaged" / "hostile-ids.ndjson").read_text()
    log.write_text(source)
    out = tmp_path / "ids.csv"
    result = run_cli(
        "scope", str(log), "--incident", "glm-5.3-kv-leak", "--ids-csv", str(out), "--json", "-"
    )
    assert result.exit_code == 1, result.output
    rows = _rows(out.read_bytes().decode("utf-8"))
    ids = {r[1] for r in rows[1:]}
    assert '\'=HYPERLINK("http://x")' in ids
    assert "'@SUM(A1)" in ids
    assert not any(cell[:1] in set("=+-@\t\r") for r in rows for cell in r)


def test_xlsx_formula_cells_are_refused_not_unknown(tmp_path: Path) -> None:
    from openpyxl import load_workbook

    path = tmp_path / "sheet.xlsx"
    path.write_bytes(to_xlsx(BANK))
    book = load_workbook(path)
    sheet = book.active
    row = next(r for r in sheet.iter_rows() if r[0].value == TEXT_IDS[0])
    row[7].value = "=1+1"  # openpyxl stores this as a formula, with no cached value
    row[8].value = "attested"
    book.save(path)
    with pytest.raises(InputError, match=r"formula.*row \d+ column 'value': =1\+1"):
        read_spreadsheet(path, BANK)
