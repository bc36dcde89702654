"""The scope path runs one way: readers hand over batches whose details load on demand, and the
accumulator (never the reader) decides which rows' details are loaded."""

from __future__ import annotations

import typing
from pathlib import Path

import pyarrow.compute as pc
import pytest

from assess.advisories.catalogue import get_advisory
from assess.scope import fields
from assess.scope.accumulator import ScopeAccumulator, make_filter
from assess.scope.logs import open_logs, presets
from assess.scope.logs.readers.registry import READERS
from assess.scope.logs.sources import Format
from assess.scope.models import BATCH_SCHEMA
from tests.scope.helpers import scope, write
from tests.test_layout import imported

LOGS = Path(__file__).resolve().parents[2] / "assess" / "scope" / "logs"


def _records(n: int) -> list[dict[str, typing.Any]]:
    return [
        {
            "timestamp": "2026-09-01T00:00:00Z",
            "model": "glm-5.3" if i % 3 else "gpt-5",
            "prompt_tokens": 700_000 if i % 2 else 5,
            "request_id": f"r{i}",
            "account_id": f"a{i % 4}",
            "session_id": f"s{i}",
            "status": 200,
            "provider": "workers-ai",
            "prompt": "p" * i,
            "response": "ok",
        }
        for i in range(n)
    ]


def test_every_sniffed_format_has_a_reader() -> None:
    assert set(READERS) == set(typing.get_args(Format)) - {"empty"}


def test_the_canonical_fields_have_one_home() -> None:
    assert presets.CANONICAL_FIELDS is fields.CANONICAL_FIELDS
    assert tuple(BATCH_SCHEMA.names) == fields.CANONICAL_FIELDS
    assert set(fields.ROW_FIELDS) | set(fields.LATE_FIELDS) == set(fields.CANONICAL_FIELDS)
    assert set(fields.FAST_FIELDS) | set(fields.LOADED_FIELDS) == set(fields.CANONICAL_FIELDS)


def test_no_reader_imports_the_accumulator() -> None:
    for path in sorted(LOGS.rglob("*.py")):
        found = {n for n in imported(path) if n.startswith("assess.scope.accumulator")}
        assert not found, f"{path.name} imports {found}"


@pytest.mark.parametrize("fmt", ["ndjson", "ndjson.gz", "csv", "parquet", "json"])
def test_batches_leave_details_to_the_accumulator(tmp_path: Path, fmt: str) -> None:
    path = write(tmp_path / f"log.{fmt}", _records(60), fmt)
    acc = ScopeAccumulator(make_filter(get_advisory("glm-5.3-kv-leak")))
    reader = open_logs([str(path)], "canonical")
    batches = list(reader.batches())
    assert any(b.details is not None for b in batches)
    for batch in batches:  # nothing is loaded until someone asks: prompts are all null
        assert pc.all(pc.is_null(batch.table.column("prompt"))).as_py()
        acc.add(batch)
    result = acc.result(reader.preset.id, reader.inputs)
    # only the kept rows' details were loaded, and they are the reference path's answer
    assert sorted(result.affected.request_ids) == sorted(scope([path]).affected.request_ids)
    assert sorted(result.affected.request_ids) == sorted(
        f"r{i}" for i in range(60) if i % 2 and i % 3
    )
    assert result.affected.sessions == result.affected.requests
