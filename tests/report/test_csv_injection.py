"""affected-requests.csv never hands a spreadsheet a formula taken from a log."""

from __future__ import annotations

import csv
import io

import pytest

from assess.report.files import affected_csv_bytes
from assess.scope.ids import columns


@pytest.mark.parametrize(
    "hostile", ['=HYPERLINK("http://x")', "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx"]
)
def test_formula_cells_are_made_inert(hostile: str) -> None:
    rows = [{"request_id": hostile, "account_id": "acct-1", "prompt_tokens": "681281"}]
    (row,) = csv.DictReader(io.StringIO(affected_csv_bytes(rows).decode(), newline=""))
    assert row["request_id"] == "'" + hostile
    assert row["account_id"] == "acct-1"
    assert row["prompt_tokens"] == "681281"


def test_ordinary_cells_are_unchanged() -> None:
    rows = [{"request_id": "req-1", "account_id": "", "prompt_tokens": "0"}]
    (row,) = csv.DictReader(io.StringIO(affected_csv_bytes(rows).decode(), newline=""))
    # the one affected-ids layout: every column, the ones not given empty
    assert row == {**dict.fromkeys(columns(), ""), "request_id": "req-1", "prompt_tokens": "0"}
