"""Property: over generated canonical logs, scope agrees with a brute-force reference."""

from __future__ import annotations

import gzip
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.scope.helpers import conserved, ndjson, scope

START = datetime(2026, 8, 27, tzinfo=UTC)
END = datetime(2026, 9, 9, 23, 59, 59, 999999, tzinfo=UTC)  # the whole last day
MATCHING = ["glm-5.3", "@cf/zai-org/glm-5.3", "zai-org/GLM-5.3", "us.zai.glm-5.3"]
OTHERS = ["glm-5.3-flash", "glm-5.2", "glm-5", "llama-4", "@cf/zai-org/glm-5.3-flash"]
EDGES = [
    START,
    END,
    START - timedelta(microseconds=1),
    END + timedelta(milliseconds=500),
    END + timedelta(seconds=1),
    START + timedelta(days=3),
]

moments = st.one_of(
    st.sampled_from(EDGES),
    st.datetimes(min_value=datetime(2026, 8, 20), max_value=datetime(2026, 9, 15)).map(
        lambda d: d.replace(tzinfo=UTC)
    ),
)
tokens = st.one_of(
    st.none(),
    st.just(0),
    st.sampled_from([681279, 681280, 681281]),
    st.integers(min_value=1, max_value=2_000_000),
)
requests = st.fixed_dictionaries(
    {
        "when": moments,
        "spelling": st.sampled_from(["z", "offset", "naive", "epoch_ms"]),
        "model": st.sampled_from(MATCHING + OTHERS),
        "prompt_tokens": tokens,
        "account_id": st.one_of(st.none(), st.sampled_from(["a", "b", "c"])),
    }
)
junk = st.sampled_from(['{"timestamp": "2026-09-0', "garbage", '{"error": "x"}', "[1]"])
lines = st.lists(st.one_of(requests, requests, requests, junk), max_size=60)


def _spell(when: datetime, how: str) -> Any:
    if how == "z":
        return when.isoformat().replace("+00:00", "Z")
    if how == "offset":
        return (
            when.astimezone(UTC)
            .astimezone(__import__("datetime").timezone(timedelta(hours=2)))
            .isoformat()
        )
    if how == "naive":
        return when.replace(tzinfo=None).isoformat()
    return int(when.timestamp() * 1000) if when.microsecond % 1000 == 0 else when.isoformat()


def _reference(items: list[Any]) -> dict[str, int]:
    counts = dict.fromkeys(
        [
            "records_read",
            "records_skipped",
            "model_matched",
            "in_window",
            "over_threshold",
            "at_or_under_threshold",
            "unknown_tokens",
        ],
        0,
    )
    for item in items:
        counts["records_read"] += 1
        if isinstance(item, str):
            counts["records_skipped"] += 1
            continue
        if item["model"] not in MATCHING:
            continue
        counts["model_matched"] += 1
        if not START <= item["when"] <= END:
            continue
        counts["in_window"] += 1
        t = item["prompt_tokens"]
        key = (
            "unknown_tokens"
            if not t
            else ("over_threshold" if t > 681280 else "at_or_under_threshold")
        )
        counts[key] += 1
    return counts


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=lines, gz=st.booleans(), fast=st.booleans())
def test_scope_matches_brute_force(items: list[Any], gz: bool, fast: bool) -> None:
    records: list[dict[str, Any] | str] = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            records.append(item)
        else:
            records.append(
                {
                    "timestamp": _spell(item["when"], item["spelling"]),
                    "model": item["model"],
                    "prompt_tokens": item["prompt_tokens"],
                    "request_id": f"r{i}",
                    "account_id": item["account_id"],
                    "provider": "workers-ai",
                }
            )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ("log.ndjson.gz" if gz else "log.ndjson")
        data = ndjson(records)
        path.write_bytes(gzip.compress(data) if gz else data)
        result = scope([path], fast=fast)
    conserved(result)
    got = result.counts.model_dump()
    got.pop("non_request_records")
    assert got == _reference(items)
    expected_ids = sorted(
        f"r{i}"
        for i, item in enumerate(items)
        if not isinstance(item, str)
        and item["model"] in MATCHING
        and START <= item["when"] <= END
        and (item["prompt_tokens"] or 0) > 681280
    )
    assert sorted(result.affected.request_ids) == expected_ids
