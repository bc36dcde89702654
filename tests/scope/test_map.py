"""`--map` that does what a user means: repeated maps are fallbacks in order, a path selects from a
key/value list by key and reaches keys holding dots, JSON strings on the way are decoded, and the
fields a user did not map read nothing when no preset recognised the file."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assess.kernel.errors import UsageError
from assess.scope.api import emit_sql, scope_run
from tests.scope.helpers import conserved, ndjson, scope


def _otel_like(n: int) -> dict[str, Any]:
    """An OTel-style record: attributes as a list of {key, value: AnyValue}, int64 as text."""
    return {
        "time": f"2026-09-01T10:00:{n:02d}Z",
        "attributes": [
            {"key": "gen_ai.request.model", "value": {"stringValue": "glm-5.3"}},
            {"key": "gen_ai.usage.input_tokens", "value": {"intValue": str(700_000 + n)}},
            {"key": "user.id", "value": {"stringValue": f"user-{n % 2}"}},
        ],
        "id": f"span-{n}",
    }


@pytest.mark.parametrize("fast", [True, False])
def test_a_repeated_map_is_a_fallback_in_order(tmp_path: Path, fast: bool) -> None:
    records = [
        {"ts": "2026-09-01T10:00:00Z", "a": {"model": "glm-5.3"}, "tok": 700_000, "id": "r1"},
        {"ts": "2026-09-01T10:00:01Z", "b": {"model": "glm-5.3"}, "tok": 700_000, "id": "r2"},
        # both present: the first map wins, and it names another model
        {
            "ts": "2026-09-01T10:00:02Z",
            "a": {"model": "gpt-4o"},
            "b": {"model": "glm-5.3"},
            "tok": 1,
            "id": "r3",
        },
    ]
    log = tmp_path / "l.ndjson"
    log.write_bytes(ndjson(records))
    base = {"timestamp": "ts", "prompt_tokens": "tok", "request_id": "id"}
    both = scope(
        [log], fast=fast, served_by="workers-ai", mapping={**base, "model": ["a.model", "b.model"]}
    )
    conserved(both)
    assert both.affected.request_ids == ["r1", "r2"]
    assert both.assessment.model_read == 3 and both.verdict == "affected"
    one = scope([log], fast=fast, served_by="workers-ai", mapping={**base, "model": ["b.model"]})
    assert one.affected.request_ids == ["r2"] and one.assessment.model_read == 2


def test_repeated_map_options_on_the_command_line(tmp_path: Path, run_cli: Any) -> None:
    log = tmp_path / "l.ndjson"
    log.write_bytes(
        ndjson(
            [
                {"when": "2026-09-01T10:00:00Z", "engine": "glm-5.3", "n": 700_000, "k": "a"},
                {"when": "2026-09-01T10:00:01Z", "backend": "glm-5.3", "n": 700_000, "k": "b"},
            ]
        )
    )
    args = ["scope", str(log), "--map", "timestamp=when", "--map", "prompt_tokens=n"]
    args += ["--map", "request_id=k", "--map", "model=engine", "--map", "model=backend"]
    result = run_cli(*args, "--served-by", "workers-ai", "--json", "-")
    assert result.exit_code == 1, result.stderr
    assert json.loads(result.stdout)["affected"]["request_ids"] == ["a", "b"]


@pytest.mark.parametrize(
    "model_path",
    ["attributes[gen_ai.request.model]", "attributes.gen_ai.request.model"],
)
@pytest.mark.parametrize("fast", [True, False])
def test_a_path_selects_from_a_key_value_list(tmp_path: Path, model_path: str, fast: bool) -> None:
    log = tmp_path / "l.ndjson"
    log.write_bytes(ndjson([_otel_like(n) for n in range(4)]))
    mapping = {
        "timestamp": "time",
        "model": model_path,
        "prompt_tokens": "attributes[gen_ai.usage.input_tokens]",  # intValue "700000": a number
        "account_id": "attributes.user.id",
        "request_id": "id",
    }
    result = scope([log], fast=fast, served_by="workers-ai", mapping=mapping)
    conserved(result)
    assert result.counts.over_threshold == 4
    assert result.affected.request_ids == [f"span-{n}" for n in range(4)]
    assert [(a.account_id, a.requests) for a in result.affected.accounts] == [
        ("user-0", 2),
        ("user-1", 2),
    ]
    assert result.counts.over_threshold == 4  # every prompt read, each over the trigger
    assert result.disclosed.prompt_tokens_total == 0  # so none could have been read


def test_a_column_whose_name_holds_dots(tmp_path: Path) -> None:
    """Phoenix exports columns named ``attributes.llm.model_name``; a nested object may hold a
    dotted key too."""
    rows = [
        {
            "start_time": "2026-09-01T10:00:00Z",
            "attributes.llm.model_name": "glm-5.3",
            "attributes.llm.token_count.prompt": 700_001,
            "context.span_id": f"s{n}",
        }
        for n in range(3)
    ]
    paths = {
        "timestamp": "start_time",
        "model": "attributes.llm.model_name",
        "prompt_tokens": "[attributes.llm.token_count.prompt]",
        "request_id": "context.span_id",
    }
    csv_log = tmp_path / "spans.csv"
    with csv_log.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    parquet_log = tmp_path / "spans.parquet"
    pq.write_table(pa.Table.from_pylist(rows), parquet_log)
    nested = tmp_path / "nested.ndjson"
    nested.write_bytes(
        ndjson(
            [
                {
                    "start_time": r["start_time"],
                    "attributes": {
                        "llm.model_name": "glm-5.3",
                        "llm.token_count.prompt": 700_001,
                    },
                    "context": {"span_id": r["context.span_id"]},
                }
                for r in rows
            ]
        )
    )
    nested_paths = {**paths, "prompt_tokens": "attributes.llm.token_count.prompt"}
    for log, mapping in ((csv_log, paths), (parquet_log, paths), (nested, nested_paths)):
        for fast in (True, False):
            result = scope([log], fast=fast, served_by="workers-ai", mapping=mapping)
            assert result.affected.request_ids == ["s0", "s1", "s2"], (log, fast)


@pytest.mark.parametrize("fast", [True, False])
def test_json_strings_on_the_way_are_decoded(tmp_path: Path, fast: bool) -> None:
    """A CSV cell holding JSON, and an OTel string attribute holding JSON."""
    log = tmp_path / "l.csv"
    meta = json.dumps({"model": "glm-5.3", "usage": {"in": 700_001}})
    log.write_text(f'ts,meta,id\n2026-09-01T10:00:00Z,"{meta.replace(chr(34), chr(34) * 2)}",c1\n')
    mapping = {"timestamp": "ts", "model": "meta.model", "prompt_tokens": "meta.usage.in"}
    result = scope(
        [log], fast=fast, served_by="workers-ai", mapping={**mapping, "request_id": "id"}
    )
    assert result.affected.request_ids == ["c1"]
    nd = tmp_path / "l.ndjson"
    record = _otel_like(0)
    record["attributes"].append(
        {"key": "payload", "value": {"stringValue": json.dumps({"model": "glm-5.3"})}}
    )
    nd.write_bytes(ndjson([record]))
    result = scope(
        [nd],
        fast=fast,
        mapping={
            "timestamp": "time",
            "model": "attributes[payload].model",
            "prompt_tokens": "attributes[gen_ai.usage.input_tokens]",
            "request_id": "id",
        },
        served_by="workers-ai",
    )
    assert result.affected.request_ids == ["span-0"]


def test_unmapped_fields_inherit_no_preset_defaults(tmp_path: Path) -> None:
    """No preset recognises the file: only what the user mapped is read. The record's own
    ``prompt_tokens`` and ``request_id`` keys (the canonical preset's defaults) are not."""
    log = tmp_path / "l.ndjson"
    log.write_bytes(
        ndjson(
            [
                {
                    "when": "2026-09-01T10:00:00Z",
                    "engine": "glm-5.3",
                    "prompt_tokens": 900_000,
                    "request_id": "not-mapped",
                }
            ]
        )
    )
    run = scope_run([str(log)], mapping=["timestamp=when", "model=engine"])
    result = run.result
    assert result.preset == "canonical"
    assert result.counts.unknown_tokens == 1 and result.counts.over_threshold == 0
    assert result.possibly_affected.request_ids == []
    read = {f.field for f in result.reading[0].fields if f.records_with_value}
    assert read == {"timestamp", "model"}
    assert result.reading[0].chosen_by == "--map"
    mapped = scope_run(
        [str(log)], mapping=["timestamp=when", "model=engine", "prompt_tokens=prompt_tokens"]
    )
    assert mapped.result.counts.over_threshold == 1


def test_emit_sql_refuses_a_bracketed_key() -> None:
    with pytest.raises(UsageError, match="a path selects a key in brackets"):
        emit_sql(
            "duckdb", preset="canonical", mapping={"model": "attributes[gen_ai.request.model]"}
        )
