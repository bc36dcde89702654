"""OpenInference / Arize Phoenix spans (samples/logs/phoenix-spans.csv, the spans DataFrame as
Phoenix's trace_dataset.py defines it; hand counts in tests/presets/expected/openinference.json):
the same spans saved as Parquet (timestamps typed, tokens as floats), as pandas JSON (epoch ms)
and as OpenInference span JSON (nested context, attribute keys with dots) read alike, on the fast
path and the reference path."""

from __future__ import annotations

import csv
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assess.scope.api import scope_run
from tests.scope.helpers import conserved, scope

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "logs" / "phoenix-spans.csv"
EXPECTED = json.loads(
    (
        Path(__file__).resolve().parents[1] / "presets" / "expected" / "openinference.json"
    ).read_text()
)
TOKENS = (
    "attributes.llm.token_count.prompt",
    "attributes.llm.token_count.completion",
    "attributes.llm.token_count.total",
)


def _rows() -> list[dict[str, Any]]:
    with SAMPLE.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:  # the DataFrame's own types: floats (NaN: None), datetimes, nulls
        for key, value in row.items():
            if key in TOKENS:
                row[key] = float(value) if value else None
            elif key in ("start_time", "end_time"):
                row[key] = datetime.fromisoformat(value)
            elif value == "":
                row[key] = None
    return rows


def _parquet(path: Path) -> Path:
    pq.write_table(pa.Table.from_pylist(_rows()), path)
    return path


def _pandas_json(path: Path) -> Path:
    """What DataFrame.to_json(orient="records", lines=True) writes: epoch milliseconds."""
    lines = []
    for row in _rows():
        out = dict(row)
        for key in ("start_time", "end_time"):
            out[key] = int(row[key].timestamp() * 1000)
        lines.append(json.dumps(out))
    path.write_text("\n".join(lines) + "\n")
    return path


def _span(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": row["name"],
        "context": {"trace_id": row["context.trace_id"], "span_id": row["context.span_id"]},
        "span_kind": row["span_kind"],
        "parent_id": row["parent_id"],
        "start_time": row["start_time"].isoformat(),
        "end_time": row["end_time"].isoformat(),
        "status_code": row["status_code"],
        "status_message": row["status_message"] or "",
        "attributes": {
            key.removeprefix("attributes."): int(value) if key in TOKENS else value
            for key, value in row.items()
            if key.startswith("attributes.") and value is not None
        },
        "events": [],
    }


def _span_json(path: Path) -> Path:
    """OpenInference span JSON (spec/traces.md): context nested, attributes keyed with dots."""
    spans = [_span(row) for row in _rows()]
    path.write_text("\n".join(json.dumps(s) for s in spans) + "\n")
    return path


@pytest.mark.parametrize("preset", ["auto", "openinference"])
@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("form", ["csv", "parquet", "pandas-json", "span-json"])
def test_every_form_reads_the_hand_count(
    tmp_path: Path, form: str, fast: bool, preset: str
) -> None:
    path = {
        "csv": lambda: SAMPLE,
        "parquet": lambda: _parquet(tmp_path / "trace_dataset.parquet"),
        "pandas-json": lambda: _pandas_json(tmp_path / "spans.jsonl"),
        "span-json": lambda: _span_json(tmp_path / "spans.jsonl"),
    }[form]()
    result = scope([path], preset=preset, fast=fast, served_by="workers-ai")
    conserved(result)
    assert result.preset == "openinference"
    assert result.counts.model_dump() == EXPECTED["counts"]
    assert sorted(result.affected.request_ids) == EXPECTED["affected"]["request_ids"]
    assert {a.account_id: a.requests for a in result.affected.accounts} == (
        EXPECTED["affected"]["accounts"]
    )
    assert result.affected.unattributed == 1 and result.affected.sessions == 1
    assert result.possibly_affected.status == {"ERROR": 1}


def test_the_rolled_up_chain_span_is_not_counted_twice() -> None:
    result = scope_run([str(SAMPLE)], served_by="workers-ai").result
    (reason,) = result.breakdown.non_request_reasons
    assert reason.startswith("OpenInference span that is not an LLM call")
    assert result.counts.non_request_records == 4
    # the CHAIN's 1,581,281 summed tokens are not in the disclosed total: only the LLM spans'
    # only the prompt at the trigger could have been read: the ones over it were placeholders
    assert result.disclosed.prompt_tokens_total == 681280


def test_explain_shows_the_dotted_columns(run_cli: Any) -> None:
    result = run_cli("scope", str(SAMPLE), "--served-by", "workers-ai", "--explain", "--json", "-")
    assert result.exit_code == 1
    (reading,) = json.loads(result.stdout)["reading"]
    fields = {f["field"]: f["source"] for f in reading["fields"]}
    assert fields["model"] == "attributes.llm.model_name"
    assert fields["prompt_tokens"] == "attributes.llm.token_count.prompt"
    assert reading["detect"]["preset"] == "openinference"
