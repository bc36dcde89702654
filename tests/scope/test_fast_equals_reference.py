"""Property: the columnar fast path gives the very document the record-by-record path gives,
whatever types the detail fields (ids, status, prompt, response) take, row by row."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assess.advisories.catalogue import get_advisory
from assess.scope.accumulator import ScopeAccumulator, make_filter
from assess.scope.logs import engine, open_logs
from assess.scope.logs.engine import SAMPLE
from tests.scope.helpers import ndjson

texts = st.one_of(
    st.none(),
    st.just(""),
    st.sampled_from(["hello", "mail me at x@corp.example", "[not json", "{brace", 'é\n\t"q"']),
    st.lists(st.fixed_dictionaries({"role": st.just("user"), "content": st.text(max_size=8)})),
    st.fixed_dictionaries({"text": st.sampled_from(["a", "see https://h.example/x"])}),
    st.integers(min_value=-5, max_value=10**6),
)
ids = st.one_of(st.none(), st.just(""), st.sampled_from(["r1", "r2", "s-9"]), st.integers(0, 99))
records = st.fixed_dictionaries(
    {
        "timestamp": st.sampled_from(
            ["2026-09-01T00:00:00Z", "2026-09-01T10:00:00.5Z", "2026-10-01T00:00:00Z", "soon"]
        ),
        "model": st.sampled_from(["glm-5.3", "glm-5.3", "glm-5.2", None]),
        "prompt_tokens": st.sampled_from([None, 0, 5, 681280, 700000, -1]),
        "account_id": st.sampled_from([None, "", "a", "b"]),
        "request_id": ids,
        "session_id": ids,
        "status": st.one_of(st.none(), st.sampled_from([200, 429, "ok", ""])),
        "prompt": texts,
        "response": texts,
    }
)


def _run(path: Path, fast: bool) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    acc = ScopeAccumulator(make_filter(get_advisory("glm-5.3-kv-leak")), keep_text=True)
    reader = open_logs([str(path)], "canonical", None, want_text=acc.text_mask)
    reader.fast = fast
    for batch in reader.batches():
        acc.add(batch)
    doc = acc.result(reader.preset.id, reader.inputs).model_dump(mode="json")
    return doc, [*acc.affected.rows(), *acc.unknown.rows()]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(head=st.lists(records, max_size=5), tail=st.lists(records, max_size=30))
def test_fast_path_document_equals_reference(
    head: list[dict[str, Any]], tail: list[dict[str, Any]]
) -> None:
    # a plain head of SAMPLE lines decides the plan (text columns); the tail, read by that
    # plan, brings every other type
    plain = [
        {**r, "prompt": "p", "response": "ok", "request_id": "r", "session_id": "s"}
        for r in (head or [{"timestamp": "2026-09-01T00:00:00Z", "model": "glm-5"}])
    ]  # (rows the fast path is unsure of, with no model or an odd timestamp, go by line)
    plain = (plain * SAMPLE)[:SAMPLE]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "log.ndjson"
        path.write_bytes(ndjson([*plain, *tail]))
        assert _run(path, fast=True) == _run(path, fast=False)


def test_plan_reads_plain_text_keys_as_columns_and_leaves_the_rest_to_lines() -> None:
    from assess.scope.logs.fast.columnar import ColumnPlan
    from assess.scope.logs.presets import get_preset

    preset = get_preset("canonical")
    sample = [
        {"timestamp": "2026-09-01T00:00:00Z", "model": "m", "request_id": "r1", "status": 200},
        {"timestamp": "2026-09-01T00:00:00Z", "model": "m", "session_id": 7, "prompt": ["x"]},
    ]
    plan = ColumnPlan.build(preset, sample, details=True)
    # read from the lines of the rows asked for; response never seen: text; prompt held a list;
    # each snake_case path comes with its camelCase twin
    assert plan.texts == {
        "request_id": ["request_id", "requestId"],
        "status": ["status"],
        "provider": ["provider"],
        "endpoint": ["endpoint"],
        "output_tokens": ["output_tokens", "outputTokens"],
        "cache_hit": ["cache_hit", "cacheHit"],
        "response": ["response"],
    }
    assert {f.name for f in plan.schema} == {
        "timestamp",
        "model",
        "prompt_tokens",
        "promptTokens",
        "account_id",
        "accountId",
    }
    assert ColumnPlan.build(preset, sample).texts == {}


plain_records = st.fixed_dictionaries(
    {
        "timestamp": st.sampled_from(["2026-09-01T00:00:00Z", "2026-10-01T00:00:00Z"]),
        "model": st.sampled_from(["glm-5.3", "glm-5.2"]),
        "prompt_tokens": st.sampled_from([None, 5, 700000]),
        "account_id": st.sampled_from(["a", "b"]),
        "request_id": st.sampled_from(["r1", "r2"]),
        "session_id": st.just("s"),
        "status": st.just(200),
        "prompt": st.sampled_from(["p", "q", "mail x@corp.example", "r" * 40]),
        "response": st.sampled_from(["ok", "see https://h.example/x", "[not json"]),
    }
)
#: An affected request with every field plain: the sample that decides the plan.
PLAIN = {
    "timestamp": "2026-09-01T00:00:00Z",
    "model": "glm-5.3",
    "prompt_tokens": 700000,
    "account_id": "a",
    "request_id": "r",
    "session_id": "s",
    "status": 200,
    "prompt": "p",
    "response": "ok",
}
blank_lines = st.sampled_from(["", "   "])
bad_lines = st.sampled_from(['{"timestamp": "2026-09-01T00:', "\x00\x01junk", "[1, 2]"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    draw=st.data(),
    block=st.integers(256, 4096),
    crlf=st.booleans(),
    junk=st.booleans(),
)
def test_fast_path_equals_reference_whatever_the_lines_and_blocks(
    draw: st.DataObject, block: int, crlf: bool, junk: bool
) -> None:
    """Blank and whitespace lines, malformed lines, CRLF endings and blocks cut anywhere: the fast
    path (line numbers, texts gathered by line) gives the reference path's document and rows."""
    plain = [PLAIN] * SAMPLE
    # blank lines only: polars refuses no line, so rows are matched to lines by skipping blanks;
    # with junk: the refused lines are taken out and the rest parsed again
    odd = st.one_of(blank_lines, bad_lines) if junk else blank_lines
    tail = draw.draw(st.lists(st.one_of(plain_records, odd), min_size=4, max_size=40))
    data = ndjson([*plain, *tail])
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "BLOCK", block)
        path = Path(folder) / "log.ndjson"
        path.write_bytes(data)
        assert _run(path, fast=True) == _run(path, fast=False)


def _variant_docs() -> list[dict[str, Any]]:
    from tests.presets._samples import expectations

    return [d for d in expectations() if str(d["sample"]).startswith("variant-")]


@pytest.mark.parametrize("doc", _variant_docs(), ids=lambda d: str(d["sample"]))
def test_every_export_variant_reads_the_same_on_both_paths(doc: dict[str, Any]) -> None:
    """Envelopes, camelCase twins, JSON-string metadata and joins: one answer on both paths."""
    from tests.presets._samples import REPO

    def run(fast: bool) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        acc = ScopeAccumulator(make_filter(get_advisory("glm-5.3-kv-leak")), keep_text=True)
        files = [str(REPO / name) for name in doc["inputs"]]
        reader = open_logs(files, doc["preset"], None, want_text=acc.text_mask)
        reader.fast = fast
        for batch in reader.batches():
            acc.add(batch)
        result = acc.result(reader.preset.id, reader.inputs).model_dump(mode="json")
        return result, [*acc.affected.rows(), *acc.unknown.rows()]

    assert run(True) == run(False)
    assert run(False)[0]["counts"] == doc["counts"]


def _twinned(record: dict[str, Any], which: str) -> dict[str, Any]:
    """``record`` with its tokens and/or account under the camelCase twin key only."""
    out = dict(record)
    if which in ("tokens", "both"):
        out["promptTokens"] = out.pop("prompt_tokens")
    if which in ("account", "both"):
        out["accountId"] = out.pop("account_id")
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tail=st.lists(
        st.tuples(plain_records, st.sampled_from(["none", "tokens", "account", "both"])),
        min_size=1,
        max_size=30,
    ),
    block=st.integers(512, 8192),
)
def test_twins_the_sample_never_held_are_read_where_they_appear(
    tail: list[tuple[dict[str, Any], str]], block: int
) -> None:
    """The plan reads camelCase twins no sampled record held as polars' Null type; a block where
    one holds a value is read again typed, so the document is the reference path's."""
    plain = [PLAIN] * SAMPLE
    data = ndjson([*plain, *(_twinned(r, which) for r, which in tail)])
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "BLOCK", block)
        path = Path(folder) / "log.ndjson"
        path.write_bytes(data)
        assert _run(path, fast=True) == _run(path, fast=False)


def test_a_twin_with_a_value_is_read_typed_not_sent_to_the_reference_path() -> None:
    """polars refuses a value in a Null-typed column; the block is then parsed with every
    column typed (if polars words that refusal differently one day, this test says so: such
    blocks would still be right, by the slow path)."""
    from assess.scope.logs.fast.blocks import parse_block
    from assess.scope.logs.fast.columnar import ColumnPlan
    from assess.scope.logs.presets import get_preset

    sample = [{"timestamp": "2026-09-01T00:00:00Z", "model": "m", "prompt_tokens": 1}]
    plan = ColumnPlan.build(get_preset("canonical"), sample)
    # account_id: no candidate held a value, so both stay typed (the first path decides)
    assert plan.null_columns == {"promptTokens"}
    block = ndjson(
        [*sample, {"timestamp": "2026-09-01T00:00:00Z", "model": "m", "promptTokens": 9}]
    )
    canon, slow = plan.extract(parse_block(block, plan))
    assert canon.column("prompt_tokens").to_pylist() == [1, 9]
    assert not any(slow.to_pylist())
    lean = parse_block(ndjson(sample), plan)
    assert lean.column("promptTokens").to_pylist() == [None]


def test_duplicate_keys_read_the_first_on_both_paths(tmp_path: Path) -> None:
    """Issue 39: polars (the fast path), DuckDB and Spark take the first of duplicate keys; the
    record-by-record path (orjson) took the last, so a line's answer hung on its block."""
    obj = '{"timestamp": "2026-09-01T10:00:00Z", "prompt_tokens": 700000'
    lines = [
        obj + ', "model": "glm-5.3", "model": "gpt-4o", "request_id": "first-glm"}',
        obj + ', "model": "gpt-4o", "model": "glm-5.3", "request_id": "first-gpt"}',
        obj + ', "model": "glm-5.3", "request_id": "a\\\\", "request_id": "b"}',
        '{"timestamp": "2026-09-01T10:00:00Z", "model": "glm-5.3", "prompt_tokens": 5, '
        '"prompt_tokens": 700000, "request_id": "few", "note": "\\"k\\": 1"}',
    ]
    path = tmp_path / "dup.ndjson"
    path.write_text("\n".join(lines) + "\n")
    fast, _ = _run(path, fast=True)
    reference, _ = _run(path, fast=False)
    assert reference == fast
    matched = {*fast["affected"]["request_ids"], *fast["possibly_affected"]["request_ids"]}
    assert matched == {"first-glm", "a\\"}
