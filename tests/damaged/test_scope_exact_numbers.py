"""JSON *number* epochs read exactly (issue 36, item 10, the part left open in round three), and
a pretty-printed document holding a 4,300-digit number (item 12).

Measured before the change: ``1787788799.9999999`` written as a JSON number (100 ns before the
advisory window) was rounded by orjson/polars/json to the double 1787788800.0 and counted in
the window, on every reading path; a pretty-printed JSON document holding a 4,400-digit number
was refused as "--preset auto recognises no known log format".
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from assess.scope.api import scope_run
from assess.scope.logs.exactjson import exact_float, loads_exact
from tests.scope.helpers import conserved, scope

SINCE = 1787788800  # 2026-08-27T00:00:00Z, the advisory window's start
#: (timestamp as JSON number text, inside the window?)
STAMPS = [
    (f"{SINCE - 1}.9999999", False),  # 100 ns before, seconds: a double rounds it onto SINCE
    (f"{SINCE}.0000001", True),  # 100 ns after
    (f"{SINCE - 1}999.9999", False),  # milliseconds, 100 ns before
    (f"{SINCE - 1}.99999999999", False),  # digits past the nanosecond: dropped, not rounded up
    (f"{SINCE + 60}.5", True),  # short: a double holds it
]


def _line(i: int, stamp: str) -> str:
    return (
        f'{{"timestamp": {stamp}, "model": "glm-5.3", "prompt_tokens": {700_001 + i}, '
        f'"request_id": "req-{i}", "status": "200"}}'
    )


def _expected() -> tuple[int, int]:
    inside = sum(1 for _, ok in STAMPS if ok)
    return inside, len(STAMPS) - inside


def _ndjson(tmp_path: Path, name: str = "log.ndjson", filler: int = 0) -> Path:
    lines = [_line(1000 + i, f"{SINCE + 3600 + i}.5") for i in range(filler)]
    lines += [_line(i, stamp) for i, (stamp, _) in enumerate(STAMPS)]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("fast", [True, False])
def test_ndjson_number_epochs_are_exact(tmp_path: Path, fast: bool) -> None:
    result = scope([_ndjson(tmp_path, filler=500)], fast=fast)
    conserved(result)
    inside, outside = _expected()
    assert result.counts.in_window == inside + 500
    assert result.breakdown.model_matched_outside_window == outside


def test_json_array_number_epochs_are_exact(tmp_path: Path) -> None:
    path = tmp_path / "log.json"
    path.write_text("[" + ",\n".join(_line(i, s) for i, (s, _) in enumerate(STAMPS)) + "]")
    result = scope([path])
    inside, outside = _expected()
    assert (result.counts.in_window, result.breakdown.model_matched_outside_window) == (
        inside,
        outside,
    )


def test_pretty_printed_page_number_epochs_are_exact(tmp_path: Path) -> None:
    records = ",\n    ".join(_line(i, s) for i, (s, _) in enumerate(STAMPS))
    path = tmp_path / "page.json"
    path.write_text('{\n  "data": [\n    ' + records + '\n  ],\n  "has_more": false\n}\n')
    result = scope([path])
    inside, outside = _expected()
    assert result.counts.in_window == inside
    assert result.breakdown.model_matched_outside_window == outside


def test_parallel_workers_read_number_epochs_exactly(tmp_path: Path) -> None:
    logs = [_ndjson(tmp_path, f"log-{n}.ndjson", filler=10 + n) for n in range(2)]
    for path, n in zip(logs, range(2), strict=True):  # other requests in each file
        path.write_text(path.read_text().replace('"req-', f'"f{n}-req-'))
    result = scope_run(logs, preset="canonical", jobs=2).result
    conserved(result)
    inside, outside = _expected()
    assert result.breakdown.model_matched_outside_window == 2 * outside
    assert result.counts.in_window == 2 * inside + 21


def test_exact_float_keeps_short_numbers_as_floats() -> None:
    assert exact_float("0.5") == 0.5 and isinstance(exact_float("1e3"), float)
    assert exact_float("1787788799.9999999") == Decimal("1787788799.9999999")
    assert loads_exact(b'{"a": 3.14159265358979323846}')["a"] == Decimal("3.14159265358979323846")
    assert loads_exact("[" + "9" * 4400 + "]") == ["9" * 4400]


def test_a_pretty_printed_document_with_a_4400_digit_number(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    good = [json.loads(_line(i, f"{SINCE + 60 + i}")) for i in range(3)]
    body = json.dumps({"data": good}, indent=2)
    huge = body.replace(str(good[1]["prompt_tokens"]), "9" * 4400)
    path = tmp_path / "page.json"
    path.write_text(huge)
    result = run_cli("scope", str(path), "--json", "-")
    assert "Traceback" not in result.stdout + result.stderr
    assert "no known log format" not in result.stdout + result.stderr
    doc = json.loads(result.stdout)
    assert doc["counts"]["records_read"] == 3
    assert doc["counts"]["records_skipped"] == 1
    (skip,) = doc["skipped"]
    assert skip["line"] == 1 and "prompt_tokens" in skip["reason"]
    assert "4,400 digits" in skip["reason"]
    assert doc["counts"]["over_threshold"] == 2
