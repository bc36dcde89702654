"""A Parquet map column (string -> count) is read as an object: ``usage_details.input`` finds its
value on both reading paths, instead of a list of pairs no path walks into."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assess.advisories.catalogue import get_advisory
from assess.scope.accumulator import ScopeAccumulator, make_filter
from assess.scope.logs import open_logs


@pytest.mark.parametrize("fast", [True, False])
def test_a_map_column_is_walked_like_an_object(tmp_path: Path, fast: bool) -> None:
    path = tmp_path / "observations_v2.parquet"
    usage = pa.map_(pa.string(), pa.int64())
    table = pa.table(
        {
            "id": ["o1", "o2", "o3"],
            "type": ["GENERATION", "GENERATION", "SPAN"],
            "trace_id": ["t1", "t2", "t2"],
            "start_time": pa.array([dt.datetime(2026, 9, 1, 10)] * 3, pa.timestamp("us")),
            "provided_model_name": ["glm-5.3", "glm-5.3", ""],
            "usage_details": pa.array(
                [[("input", 700000), ("output", 3)], [("output", 1)], []], usage
            ),
            "user_id": ["acct-a", "acct-b", "acct-b"],
        }
    )
    pq.write_table(table, path)
    acc = ScopeAccumulator(make_filter(get_advisory("glm-5.3-kv-leak")))
    reader = open_logs([str(path)], "langfuse", None)
    reader.fast = fast
    for batch in reader.batches():
        acc.add(batch)
    out: dict[str, Any] = acc.result("langfuse", reader.inputs).model_dump(mode="json")
    assert out["counts"]["over_threshold"] == 1  # o1: usage_details.input 700,000
    assert out["counts"]["unknown_tokens"] == 1  # o2: no input key
    assert out["counts"]["non_request_records"] == 1
    # Langfuse names no serving provider: o1 (over) and o2 (unknown) are possibly affected
    assert out["possibly_affected"]["accounts"] == [
        {"account_id": "acct-a", "requests": 1},
        {"account_id": "acct-b", "requests": 1},
    ]
