"""A sheet row whose only filled cell is ``per``, ``conflicts`` or ``date`` is read or refused.

Before, such a row (``value`` and ``evidence`` blank) was dropped without a word: the answer
given per model vanished from the import and from ``score``, and a malformed cell in it went
unreported (acceptance review of issue 43, defect 1).
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assess.vendor.answers_file import load_answers
from assess.vendor.bank import shipped_questionnaire
from tests.conftest import REPO

Run = Callable[..., Any]
QID = "isolation.kv_page_zeroing"
BLANKED = ("value", "evidence", "note", "ref", "date", "per", "conflicts")


def _sheet_with_only(run_cli: Run, tmp_path: Path, column: str, cell: str) -> tuple[Path, int]:
    """Export the well-run sample, blank every answer cell of QID but ``column``; return the
    sheet and the row number of QID."""
    sheet = tmp_path / "q.csv"
    sample = REPO / "samples" / "vendors" / "well-run.yaml"
    run_cli(
        "questionnaire", "export", "--format", "csv", "--out", str(sheet), "--answers", str(sample)
    )  # fmt: skip
    rows = list(csv.reader(sheet.read_text(encoding="utf-8").splitlines()))
    at = next(i for i, row in enumerate(rows) if row[0] == QID)
    for name in BLANKED:
        rows[at][rows[0].index(name)] = ""
    rows[at][rows[0].index(column)] = cell
    with sheet.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)
    return sheet, at + 1


def test_a_row_with_only_per_is_read_as_an_answer_per_model(run_cli: Run, tmp_path: Path) -> None:
    sheet, _ = _sheet_with_only(run_cli, tmp_path, "per", '{"glm-5.3": "no", "llama-4": "yes"}')
    back = tmp_path / "back.yaml"
    result = run_cli("questionnaire", "import", str(sheet), "--out", str(back))
    assert result.exit_code == 0
    answer = load_answers(back, shipped_questionnaire()).answers[QID]
    assert answer.per == {"glm-5.3": False, "llama-4": True}
    assert answer.value == "unknown"


def test_a_row_with_only_a_date_is_kept(run_cli: Run, tmp_path: Path) -> None:
    sheet, _ = _sheet_with_only(run_cli, tmp_path, "date", "2026-10-30")
    back = tmp_path / "back.yaml"
    assert run_cli("questionnaire", "import", str(sheet), "--out", str(back)).exit_code == 0
    answer = load_answers(back, shipped_questionnaire()).answers[QID]
    assert answer.date is not None and answer.date.isoformat() == "2026-10-30"


@pytest.mark.parametrize(
    ("column", "cell", "expected"),
    [
        ("per", "{not json", "per: expected a JSON object"),
        ("per", '{"glm-5.3": "sometimes"}', "per.glm-5.3: bool: expected yes/no"),
        ("conflicts", '{"ref": "x"}', "conflicts: expected a JSON list"),
        ("date", "last spring", "date: Input should be a valid date"),
    ],
)
def test_a_bad_cell_in_a_row_without_value_is_named(
    run_cli: Run, tmp_path: Path, column: str, cell: str, expected: str
) -> None:
    sheet, row = _sheet_with_only(run_cli, tmp_path, column, cell)
    result = run_cli("questionnaire", "import", str(sheet))
    assert result.exit_code == 2
    assert f"q.csv: row {row}: {QID}: {expected}" in result.stderr


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_export_never_overwrites_a_sheet_without_force(
    run_cli: Run, tmp_path: Path, fmt: str
) -> None:
    """Like ``new``: an existing file may be a vendor's filled-in sheet (review defect 2)."""
    sheet = tmp_path / f"q.{fmt}"
    sheet.write_bytes(b"filled in by the vendor\n")
    refused = run_cli("questionnaire", "export", "--format", fmt, "--out", str(sheet))
    assert refused.exit_code == 2
    assert "already exists" in refused.stderr and "--force" in refused.stderr
    assert sheet.read_bytes() == b"filled in by the vendor\n"
    forced = run_cli("questionnaire", "export", "--format", fmt, "--out", str(sheet), "--force")
    assert forced.exit_code == 0
    assert sheet.read_bytes() != b"filled in by the vendor\n"
