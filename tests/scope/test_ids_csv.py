"""One layout for the affected-ids CSV: `scope --ids-csv` and the review's affected-requests.csv
(from raw logs or from a scope JSON) have the same header, and the same rows for the same logs."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from assess.kernel.resources import data_dir
from assess.scope.ids import IDS_COLUMNS, columns, ids_csv_text, ids_row

SAMPLES = data_dir("samples")
VENDOR = SAMPLES / "vendors" / "incident-like.yaml"
LOGS = SAMPLES / "logs" / "litellm.ndjson"
CONTRACT = "category,request_id,account_id,session_id,timestamp,status,prompt_tokens"


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def _report(run_cli: Any, out: Path, logs: Path) -> str:
    result = run_cli(
        "report", "-q", str(VENDOR), "--logs", str(logs), "--incident", "glm-5.3-kv-leak",
        "--out", str(out), "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return (out / "affected-requests.csv").read_text(encoding="utf-8")


def test_the_ids_csv_contract_columns_come_first_in_their_order() -> None:
    assert ",".join(IDS_COLUMNS) == CONTRACT
    assert columns() == (*IDS_COLUMNS, "model", "exposure")
    assert columns(with_text=True)[-2:] == ("prompt", "response")


def test_a_row_keeps_nanosecond_timestamps_to_the_microsecond_and_names_its_exposure() -> None:
    stamp = 1_788_000_000 * 10**9 + 123_456_789  # float seconds would round this
    row = ids_row("affected", {"timestamp": stamp, "request_id": "r", "prompt_tokens": 9})
    assert row["timestamp"] == "2026-08-29T10:40:00.123456Z"
    assert row["exposure"] == "received" and row["model"] is None
    text = ids_csv_text([row])
    assert text.splitlines()[0] == CONTRACT + ",model,exposure"
    assert text.splitlines()[1] == "affected,r,,,2026-08-29T10:40:00.123456Z,,9,,received"


def test_scope_ids_csv_and_the_review_csv_are_the_same_file(run_cli: Any, tmp_path: Path) -> None:
    ids = tmp_path / "ids.csv"
    result = run_cli("scope", str(LOGS), "--ids-csv", str(ids), "--json", str(tmp_path / "s.json"))
    assert result.exit_code == 1, result.output  # possibly affected requests found
    scoped = ids.read_text(encoding="utf-8")
    assert scoped.splitlines()[0] == CONTRACT + ",model,exposure"
    rows = _rows(scoped)
    # LiteLLM forwarded them to OpenRouter, which does not say who served them: possibly affected
    assert {r["category"] for r in rows} == {"possibly_affected"}
    assert all(r["request_id"] and r["timestamp"].endswith("Z") for r in rows)
    assert _report(run_cli, tmp_path / "review", LOGS) == scoped


def test_the_review_of_a_scope_json_writes_the_same_layout(run_cli: Any, tmp_path: Path) -> None:
    doc = tmp_path / "scope.json"
    ids = tmp_path / "ids.csv"
    run_cli("scope", str(LOGS), "--ids-csv", str(ids), "--json", str(doc))
    from_json = _report(run_cli, tmp_path / "review", doc)
    assert from_json.splitlines()[0] == CONTRACT + ",model,exposure"
    full = _rows(ids.read_text(encoding="utf-8"))
    known = [(r["category"], r["request_id"], r["exposure"]) for r in full if r["request_id"]]
    rows = _rows(from_json)
    assert [(r["category"], r["request_id"], r["exposure"]) for r in rows] == known
    assert all(r["timestamp"] == r["account_id"] == "" for r in rows)  # not in the document
