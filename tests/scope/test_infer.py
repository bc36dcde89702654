"""The mapping inferred for exports no preset recognises (assess/scope/logs/infer.py): unit tests
on fixtures, the CLI (--explain, --json, --suggest-preset, refusals), and a property test that a
record set renamed and nested at random is read as the canonical one is, or refused."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assess.kernel.errors import InputError
from assess.scope.api import scope_run
from assess.scope.logs.infer import infer_mapping, leaves, name_score
from assess.scope.logs.paths import get_path
from assess.scope.logs.presets import get_preset, load_presets

#: An in-house export: nested objects, an attribute list, a JSON string, a dotted column, and
#: traps (an end time, output and total token counts, a provider name, a trace id).
_EXPORT = [
    {
        "evt": {
            "meta": {"requestId": f"r-{i:02d}", "startTime": 1788256800 + i * 3600},
            "llm": {
                "model_name": "glm-5.3" if i % 3 else "gpt-4o",
                "provider": "zai",
                "usage": {"input_tokens": 700_000 + i if i % 2 else 12, "output_tokens": 7},
            },
            "attrs": [{"key": "enduser.id", "value": {"stringValue": f"user-{i % 4}"}}],
        },
        "end_time": "2026-09-02T00:00:00Z",
        "total.tokens": 700_010 + i,
        "trace": json.dumps({"trace_id": f"t-{i}"}),
    }
    for i in range(12)
]


def _write(path: Path, records: list[Any]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def test_leaves_are_map_paths_that_read_their_values() -> None:
    record = {
        "a": {"b.c": 1, "list": [{"x": "y"}]},
        "attributes.llm.model_name": "glm-5.3",
        "attrs": [{"key": "gen_ai.request.model", "value": {"stringValue": "m-1"}}],
        "blob": json.dumps({"inner": {"n": 5}}),
    }
    found = dict(leaves(record))
    assert found == {
        "a[b.c]": 1,
        "a.list.0.x": "y",
        "attributes.llm.model_name": "glm-5.3",
        "attrs[gen_ai.request.model]": "m-1",
        "blob.inner.n": 5,
    }
    for path, value in found.items():
        assert get_path(record, path) == value


@pytest.mark.parametrize(
    ("field", "path", "score"),
    [
        ("model", "attributes.llm.model_name", 3),
        ("model", "gen_ai.request.model", 3),
        ("model", "llm.provider", 0),
        ("timestamp", "meta.startTime", 3),
        ("timestamp", "end_time", 0),
        ("prompt_tokens", "llm.token_count.prompt", 3),
        ("prompt_tokens", "usage.output_tokens", 0),
        ("prompt_tokens", "total.tokens", 0),
        ("account_id", "attrs[enduser.id]", 3),
        ("account_id", "meta.username", 2),
    ],
)
def test_names_score_synonyms_over_telling_words(field: str, path: str, score: int) -> None:
    assert name_score(field, path) == score


def test_the_export_is_inferred_past_its_traps() -> None:
    inference = infer_mapping(_EXPORT)
    assert inference.mapping() == {
        "timestamp": ["evt.meta.startTime"],
        "model": ["evt.llm.model_name"],
        "prompt_tokens": ["evt.llm.usage.input_tokens"],
        "request_id": ["evt.meta.requestId"],
        "account_id": ["evt.attrs[enduser.id]"],
    }
    timestamp = inference.field("timestamp")
    assert timestamp is not None and timestamp.runner_up is not None
    assert timestamp.runner_up.path == "end_time"  # the trap, as the runner-up


def test_an_inferred_run_reads_as_the_same_records_mapped_by_hand(tmp_path: Path) -> None:
    path = _write(tmp_path / "export.ndjson", _EXPORT)
    # the export names no serving platform: state it, as a user would (docs/exposure.md)
    inferred = scope_run([path], served_by="workers-ai").result
    by_hand = scope_run(
        [path],
        served_by="workers-ai",
        mapping=[
            "timestamp=evt.meta.startTime",
            "model=evt.llm.model_name",
            "prompt_tokens=evt.llm.usage.input_tokens",
            "request_id=evt.meta.requestId",
            "account_id=evt.attrs[enduser.id]",
        ],
    ).result
    assert inferred.preset == "inferred" and by_hand.preset == "canonical"
    assert inferred.reading[0].chosen_by == "inferred"
    assert inferred.counts == by_hand.counts
    assert inferred.affected == by_hand.affected
    # i odd and i % 3 != 0 and in the window (from 2026-09-01T10:00Z hourly): 1, 5, 7, 11
    assert inferred.affected.request_ids == ["r-01", "r-05", "r-07", "r-11"]
    rows = {f.field: f for f in inferred.reading[0].inference}
    assert rows["timestamp"].runner_up == "end_time"
    assert rows["status"].paths == [] and rows["status"].score is None


def test_json_and_explain_show_the_inference(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    path = _write(tmp_path / "export.ndjson", _EXPORT)
    doc = json.loads(run_cli("scope", path, "--json", "-").stdout)
    assert doc["preset"] == "inferred"
    paths = {f["field"]: f["paths"] for f in doc["reading"][0]["inference"]}
    assert paths["model"] == ["evt.llm.model_name"]
    shown = run_cli("scope", path, "--explain")
    text = " ".join(shown.output.split())
    assert "inferred from field names and value shapes" in text
    assert "runner-up" in text and "end_time" in text
    assert shown.exit_code == 1


def test_two_models_is_ambiguous_and_lists_the_candidates(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    records = [
        {"ts": "2026-09-01T10:00:00Z", "request": {"model": "glm-5.3"},
         "response": {"model": f"glm-5.3-{i}"}, "prompt_tokens": 9}
        for i in range(5)
    ]  # fmt: skip
    path = _write(tmp_path / "two.ndjson", records)
    with pytest.raises(InputError, match="model: no clear winner among"):
        scope_run([path])
    result = run_cli("scope", path, "--json", str(tmp_path / "out.json"))
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "request.model (score 4" in text and "response.model (score 4" in text
    # the user's --map settles it, and the rest is still inferred
    mapped = scope_run([path], mapping=["model=request.model"]).result
    assert mapped.preset == "inferred" and mapped.counts.model_matched == 5


def test_suggest_preset_writes_a_preset_that_loads_back_and_reads_the_same(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    path = _write(tmp_path / "export.ndjson", _EXPORT)
    out = tmp_path / "My Export.yaml"
    result = run_cli("scope", path, "--suggest-preset", str(out))
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert text.startswith("# Preset inferred by `assess scope --suggest-preset`")
    assert "runner-up: end_time" in text
    preset = get_preset(str(out))
    assert preset.id == "my-export"
    assert preset.fields["model"] == ["evt.llm.model_name"]
    folder = tmp_path / "presets"
    folder.mkdir()
    (folder / "my-export.yaml").write_text(text)
    assert load_presets(folder)["my-export"].matches(_EXPORT[0])
    from_file = scope_run([path], preset=str(out)).result
    assert from_file.affected == scope_run([path]).result.affected


def test_suggest_preset_marks_an_ambiguous_field_to_check(tmp_path: Path) -> None:
    records = [
        {"ts": 1788256800, "a": {"model": "m-1"}, "b": {"model": f"m-{i}"}} for i in range(4)
    ]
    out = tmp_path / "s.yaml"
    from assess.scope.logs import suggest_preset

    suggest_preset([_write(tmp_path / "x.ndjson", records)], out)
    text = out.read_text()
    assert "# CHECK THIS ONE: no clear winner" in text
    assert yaml.safe_load(text)["fields"]["model"] in (["a.model"], ["b.model"])


# --- the property: renamed and nested at random, read the same or refused -------------------

_SYNONYMS = {
    "timestamp": ["timestamp", "time", "created_at", "startTime", "start_time", "ts", "event_time"],
    "model": ["model", "model_name", "modelId", "llm_model", "engine", "model_id"],
    "prompt_tokens": ["prompt_tokens", "input_tokens", "promptTokens", "inputTokens",
                      "prompt_token_count", "tokens_in"],
    "request_id": ["request_id", "requestId", "id", "req_id", "call_id"],
    "account_id": ["user", "user_id", "end_user", "account", "customer_id", "tenant"],
    "_output": ["completion_tokens", "output_tokens", "total_tokens", "outputTokens"],
    "_end": ["end_time", "finished_at", "completed_at", "updated_at", "endTime"],
}  # fmt: skip
_PARENTS = ["meta", "llm", "usage", "req", "data", "event", "attributes"]
_STYLES = ["plain", "nested", "attrs", "dotted", "json"]


def _canonical(i: int) -> dict[str, Any]:
    moment = 1787788800 + i * 97_200  # 2026-08-27 on, every 27 hours: in and out of the window
    return {
        "timestamp": moment,
        "model": ["glm-5.3", "gpt-4o", "zai-org/GLM-5.3"][i % 3],
        "prompt_tokens": [681_281, 12, 900_000, 681_280][i % 4],
        "request_id": f"req-{i:03d}",
        "account_id": f"acct-{i % 5}",
        "_output": 50 + i,
        "_end": moment + 30,
    }


def _iso(seconds: int) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _place(record: dict[str, Any], style: str, parents: list[str], key: str, value: Any) -> None:
    if style == "plain":
        record[key] = value
    elif style == "nested":
        node = record
        for parent in parents:
            node = node.setdefault(f"n_{parent}", {})
        node[key] = value
    elif style == "attrs":
        kind = "intValue" if isinstance(value, int) else "stringValue"
        text = str(value) if isinstance(value, int) else value
        record.setdefault("attrs", []).append({"key": key, "value": {kind: text}})
    elif style == "dotted":
        record[f"{parents[0]}.{key}"] = value
    else:
        record.setdefault("_json", {})[key] = value


_LAYOUT = st.fixed_dictionaries(
    {
        name: st.tuples(
            st.sampled_from(pool),
            st.sampled_from(_STYLES),
            st.lists(st.sampled_from(_PARENTS), min_size=1, max_size=3, unique=True),
        )
        for name, pool in _SYNONYMS.items()
    }
)


def _renamed(rows: list[dict[str, Any]], layout: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        record: dict[str, Any] = {}
        for name, (key, style, parents) in layout.items():
            _place(record, style, parents, key, row[name])
        if "_json" in record:
            record["payload"] = json.dumps(record.pop("_json"))
        out.append(record)
    return out


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(layout=_LAYOUT, epoch=st.booleans())
def test_renamed_and_nested_at_random_reads_the_same_or_is_refused(
    layout: dict[str, Any], epoch: bool
) -> None:
    rows = []
    for i in range(16):
        row = _canonical(i)
        if not epoch:
            row["timestamp"] = _iso(row["timestamp"])
        rows.append(row)
    with tempfile.TemporaryDirectory() as folder:
        canonical = _write(Path(folder) / "canonical.ndjson", [
            {k: v for k, v in row.items() if not k.startswith("_")} for row in rows
        ])  # fmt: skip
        want = scope_run([canonical], preset="canonical").result
        assert want.counts.over_threshold > 0  # the positive control: some are affected
        renamed = _write(Path(folder) / "renamed.ndjson", _renamed(rows, layout))
        try:
            got = scope_run([renamed]).result
        except InputError as refused:
            assert "no clear winner" in str(refused) or "no telling name" in str(refused)
            return
    if got.preset != "inferred":  # a preset's detect rule fits (timestamp, model at the top):
        return  # its own fields are read, not this module's business
    assert got.counts == want.counts
    assert got.affected.accounts == want.affected.accounts
    assert got.affected.request_ids == want.affected.request_ids
    assert got.possibly_affected.request_ids == want.possibly_affected.request_ids
