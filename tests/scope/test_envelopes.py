"""API envelopes: which objects are unwrapped, and a page met mid-file on the columnar path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assess.advisories.catalogue import get_advisory
from assess.scope.accumulator import ScopeAccumulator, make_filter
from assess.scope.logs import open_logs
from assess.scope.logs.envelopes import unwrap
from tests.scope.helpers import ndjson

REC = {
    "timestamp": "2026-09-01T10:00:00Z",
    "model": "glm-5.3",
    "prompt_tokens": 700000,
    "provider": "workers-ai",
}


@pytest.mark.parametrize(
    ("value", "inner"),
    [
        ({"data": REC}, [REC]),  # OpenRouter GET /generation
        ({"data": [REC, REC], "meta": {"cursor": "x"}}, [REC, REC]),  # Langfuse v2 page
        ({"result": [REC], "result_info": {}, "success": True, "errors": []}, [REC]),
        ({"success": True, "message": "", "data": {"items": [REC], "total": 1}}, [REC]),
        ({"data": [], "error": None}, []),  # an empty Helicone page: no records
        # aws logs filter-log-events: each event's message is the record as a JSON string
        (
            {"events": [{"timestamp": 1, "message": json.dumps(REC), "eventId": "1"}]},
            [REC],
        ),
        ({"timestamp": 1, "message": json.dumps(REC), "ingestionTime": 2}, [REC]),
    ],
)
def test_envelopes_are_unwrapped(value: Any, inner: list[Any]) -> None:
    assert unwrap(value) == inner


@pytest.mark.parametrize(
    "value",
    [
        REC,
        {"success": False, "errors": [{"code": 10000}], "result": None},  # an error response
        {"data": REC, "model": "glm-5.3"},  # a record that has a data field
        {"data": "text"},
        {"data": [REC], "result": [REC]},  # two bodies: not a known envelope
        [REC],
        {"timestamp": 1, "message": "plain text, not JSON"},
        {"timestamp": 1, "message": json.dumps(REC), "model": "x"},  # a record with a message
    ],
)
def test_records_and_error_responses_are_not_envelopes(value: Any) -> None:
    assert unwrap(value) is None


def _run(path: Path, fast: bool) -> dict[str, Any]:
    acc = ScopeAccumulator(make_filter(get_advisory("glm-5.3-kv-leak")))
    reader = open_logs([str(path)], "canonical", None, want_text=acc.text_mask)
    reader.fast = fast
    for batch in reader.batches():
        acc.add(batch)
    return acc.result("canonical", reader.inputs).model_dump(mode="json")


def test_a_page_line_after_plain_lines_counts_each_record_on_both_paths(tmp_path: Path) -> None:
    """The columnar path plans from plain lines; the page line goes row by row and is opened."""
    plain = [dict(REC, request_id=f"r{n}", prompt_tokens=5) for n in range(300)]
    page = {"data": [dict(REC, request_id=f"p{n}") for n in range(3)], "meta": {}}
    path = tmp_path / "mixed.ndjson"
    path.write_bytes(ndjson([*plain, page, dict(REC, request_id="last")]))
    fast, slow = _run(path, True), _run(path, False)
    for doc in (fast, slow):  # the columnar path lists the rows it sent row by row last
        doc["affected"]["request_ids"].sort()
        doc["possibly_affected"]["request_ids"].sort()
    assert fast == slow
    assert fast["counts"]["records_read"] == 304
    assert fast["counts"]["over_threshold"] == 4
    assert sorted(fast["affected"]["request_ids"]) == ["last", "p0", "p1", "p2"]


def test_a_pretty_printed_page_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "page.json"
    path.write_text(json.dumps({"result": [REC, REC], "success": True}, indent=2))
    assert _run(path, True)["counts"]["over_threshold"] == 2


def test_a_broken_pretty_printed_document_is_one_skipped_record(tmp_path: Path) -> None:
    path = tmp_path / "page.json"
    path.write_text('{\n  "result": [\n    {"timestamp": "2026-09-01T10:00:00Z",\n')
    out = _run(path, True)
    assert out["counts"]["records_read"] == 1 and out["counts"]["records_skipped"] == 1
    assert out["skipped"][0]["reason"].startswith("invalid JSON document")
