"""`assess scope` end to end: exit codes, JSON contract, ids CSV, errors."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.scope.helpers import write
from tests.scope.test_readers import RECORDS

COUNT_KEYS = [
    "records_read",
    "records_skipped",
    "non_request_records",
    "model_matched",
    "in_window",
    "over_threshold",
    "at_or_under_threshold",
    "unknown_tokens",
]


def test_json_contract_and_exit_1(tmp_path: Path, run_cli: Any) -> None:
    log = write(tmp_path / "log.ndjson.gz", RECORDS, "ndjson.gz")
    out, ids = tmp_path / "scope.json", tmp_path / "ids.csv"
    result = run_cli(
        "scope",
        str(log),
        "--json",
        str(out),
        "--ids-csv",
        str(ids),
        "--platform-requests",
        "1000000",
    )
    assert result.exit_code == 1, result.output
    doc = json.loads(out.read_text())
    assert doc["schema_version"] == 1 and doc["kind"] == "assess.scope"
    assert list(doc["counts"]) == COUNT_KEYS
    assert doc["counts"]["over_threshold"] == 2
    assert set(doc["affected"]) >= {"accounts", "unattributed", "sessions", "request_ids"}
    for key in (
        "per_day",
        "status",
        "possibly_affected",
        "disclosed",
        "candidate_foreign_data",
        "skipped",
        "filter",
        "inputs",
    ):
        assert key in doc
    assert len(doc["inputs"][0]["sha256"]) == 64
    assert "P(at least one)" in doc["disclosed"]["platform_share"]["formula"]
    rows = list(csv.DictReader(ids.open()))
    assert sorted((r["category"], r["request_id"]) for r in rows) == [
        ("affected", "r1"),
        ("affected", "r2"),
        ("possibly_affected", "r8"),
        ("possibly_affected", "r9"),
    ]
    # the summary never shows prompt or response text
    assert "ours.example" not in result.output and "else.example" not in result.output
    assert "received (affected)" in result.output


def test_exit_0_when_nothing_is_affected(tmp_path: Path, run_cli: Any) -> None:
    clean = [r for r in RECORDS if r["request_id"] in ("r3", "r5", "r6")]
    log = write(tmp_path / "log.csv", clean, "csv")
    result = run_cli("scope", str(log), "--preset", "canonical")
    assert result.exit_code == 0, result.output


def test_json_to_stdout_is_only_json(tmp_path: Path) -> None:
    log = write(tmp_path / "log.ndjson", RECORDS, "ndjson")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "assess",
            "scope",
            str(log),
            "--json",
            "-",
            "--model",
            "glm-5.2",
            "--min-prompt-tokens",
            "0",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["filter"]["model_names"] == ["glm-5.2"]
    # --model glm-5.2 is not the advisory's model: its platform binding does not apply either
    assert doc["affected"]["request_ids"] == ["r7"]
    assert doc["filter"]["platforms"] == []
    assert "Records" in proc.stderr


def test_bad_input_is_exit_2_with_advice(tmp_path: Path, run_cli: Any) -> None:
    result = run_cli("scope", str(tmp_path / "none.ndjson"))
    assert result.exit_code == 2
    result = run_cli(
        "scope", str(write(tmp_path / "l.ndjson", RECORDS, "ndjson")), "--map", "tokens=x"
    )
    assert result.exit_code == 2
    result = run_cli("scope", str(tmp_path / "l.ndjson"), "--since", "last week")
    assert result.exit_code == 2
    unknown = tmp_path / "other.ndjson"
    unknown.write_text('{"foo": 1}\n')
    proc = subprocess.run(
        [sys.executable, "-m", "assess", "scope", str(unknown)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "recognises no known log format" in proc.stderr and "--map" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_map_reads_an_unknown_export(tmp_path: Path, run_cli: Any) -> None:
    log = tmp_path / "custom.ndjson"
    log.write_text(
        '{"started": "2026-09-01T00:00:00Z", "body": {"model": "z-ai/glm-5.3"}, '
        '"usage": {"input_tokens": 700001}, "id": "c1"}\n'
    )
    out = tmp_path / "o.json"
    result = run_cli(
        "scope",
        str(log),
        "--map",
        "timestamp=started",
        "--map",
        "model=body.model",
        "--map",
        "prompt_tokens=usage.input_tokens",
        "--map",
        "request_id=id",
        "--json",
        str(out),
    )
    assert result.exit_code == 1, result.output
    assert json.loads(out.read_text())["possibly_affected"]["request_ids"] == ["c1"]


def test_help_has_an_example(run_cli: Any) -> None:
    result = run_cli("scope", "--help")
    assert result.exit_code == 0
    assert "Example: assess scope" in result.output


def test_a_run_whose_every_record_is_malformed_is_exit_2_not_nothing_affected(
    tmp_path: Path, run_cli: Any
) -> None:
    """A wrong --map turns every row into 'missing timestamp': that is no evidence of safety."""
    log = write(tmp_path / "l.ndjson", RECORDS, "ndjson")
    out = tmp_path / "o.json"
    result = run_cli(
        "scope", str(log), "--preset", "canonical", "--map", "timestamp=nope", "--json", str(out)
    )
    assert result.exit_code == 2
    assert f"{log}: none of the {len(RECORDS)} records read is a usable request" in result.stderr
    assert "(first skipped: line 1: missing timestamp)" in result.stderr
    assert "no timestamp at any of its paths (nope) with preset canonical" in result.stderr
    document = json.loads(out.read_text())  # the document is written, and says so
    assert document["verdict"] == "not_assessable"
    assert document["exit_code"] == 2
    assert document["counts"]["records_skipped"] == len(RECORDS)


def test_ids_csv_to_stdout(tmp_path: Path, run_cli: Any) -> None:
    log = write(tmp_path / "log.ndjson", RECORDS, "ndjson")
    result = run_cli("scope", str(log), "--ids-csv", "-")
    assert result.exit_code == 1
    assert not (Path.cwd() / "-").exists()
    rows = list(csv.reader(result.stdout.splitlines()))
    assert "request_id" in rows[0]
    assert len(rows) > 1
    both = run_cli("scope", str(log), "--ids-csv", "-", "--json", "-")
    assert both.exit_code == 2
    assert "would write to standard output" in both.stderr


def test_binary_junk_never_reaches_the_terminal(tmp_path: Path, run_cli: Any) -> None:
    junk = tmp_path / "junk.csv"
    junk.write_bytes(bytes(range(256)) * 12)
    result = run_cli("scope", str(junk))
    assert result.exit_code == 2
    assert "recognises no known log format" in result.stderr
    assert all(ch.isprintable() or ch in "\n" for ch in result.stderr)


def test_an_empty_log_is_exit_2_not_nothing_affected(tmp_path: Path, run_cli: Any) -> None:
    """An empty export (an unfinished download, the wrong file) is no evidence of safety."""
    log = tmp_path / "empty.ndjson"
    log.write_bytes(b"")
    out = tmp_path / "o.json"
    result = run_cli("scope", str(log), "--preset", "canonical", "--json", str(out))
    assert result.exit_code == 2
    assert f"{log}: no record at all (empty logs)" in result.stderr
    assert "Check that the export finished" in result.stderr
    assert not out.exists()
