"""Dotted paths, the preset format and loader, --map, and --preset auto detection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assess.kernel.errors import InputError, UsageError
from assess.scope.logs.paths import MISSING, get_path
from assess.scope.logs.presets import (
    PRESETS_DIR,
    Preset,
    detect_preset,
    get_preset,
    load_presets,
    parse_map,
)
from assess.scope.logs.records import classify, parse_tokens
from tests.scope.helpers import scope

ASSETS = Path(__file__).resolve().parent.parent / "assets" / "scope"


def test_dotted_paths() -> None:
    record = {
        "a": {"b": {"c": 1}},
        "list": [{"x": "first"}, {"x": "second"}],
        "metadata.user": "flat",
        "meta": '{"inner": {"k": "from json text"}}',
        "n": None,
    }
    assert get_path(record, "a.b.c") == 1
    assert get_path(record, "list.1.x") == "second"
    assert get_path(record, "metadata.user") == "flat"
    assert get_path(record, "meta.inner.k") == "from json text"
    assert get_path(record, "n") is None
    assert get_path(record, "a.b.missing") is MISSING
    assert get_path(record, "list.5.x") is MISSING
    assert get_path(record, "a.b.c.d") is MISSING


def test_every_shipped_preset_loads_and_is_named_by_its_file() -> None:
    presets = load_presets()
    assert "canonical" in presets
    canonical = presets["canonical"]
    assert canonical.fields["timestamp"] == ["timestamp"]
    assert set(canonical.fields) == {
        "timestamp",
        "model",
        "prompt_tokens",
        "request_id",
        "account_id",
        "session_id",
        "status",
        "prompt",
        "response",
        "provider",
        "endpoint",
        "output_tokens",
        "cache_hit",
    }


@pytest.mark.parametrize(
    ("asset", "message"),
    [
        ("bad_preset_unknown_field.yaml", "unknown canonical field"),
        ("bad_preset_condition.yaml", "exactly one of in, not_in, equals, missing"),
        ("bad_preset_yaml.yaml", "YAML syntax error"),
    ],
)
def test_invalid_presets_name_file_and_problem(asset: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as info:
        Preset.from_path(ASSETS / asset)
    assert asset in info.value.message


def test_preset_by_file_and_unknown_id() -> None:
    assert get_preset(str(PRESETS_DIR / "canonical.yaml")).id == "canonical"
    with pytest.raises(UsageError, match="no such preset") as info:
        get_preset("nope")
    assert "canonical" in info.value.advice


def test_preset_inferred_typed_by_hand_says_what_it_is_and_what_to_give(run_cli: Any) -> None:
    """It said "no such preset" and listed the presets, without a word on the name the JSON
    reports (``"preset": "inferred"``) or how to get that reading again."""
    log = str(Path(__file__).resolve().parents[2] / "samples" / "logs" / "inhouse-export.ndjson")
    for args in ([log], ["--emit-sql", "duckdb"]):
        out = run_cli("scope", *args, "--preset", "inferred")
        assert out.exit_code == 2, out.stdout
        text = out.stdout + out.stderr
        assert "no such preset" not in text and "Traceback" not in text
        assert "not a preset" in text and "infers the mapping" in text
        assert "--preset auto" in text and "--map FIELD=PATH" in text


def test_map_overrides_a_field_and_rejects_unknown_names() -> None:
    mapping = parse_map(["prompt_tokens=usage.input_tokens", "model = body.model", "model=m"])
    assert mapping == {"prompt_tokens": ["usage.input_tokens"], "model": ["body.model", "m"]}
    preset = load_presets()["canonical"].with_map(mapping)
    assert preset.fields["prompt_tokens"] == ["usage.input_tokens"]
    assert preset.fields["timestamp"] == ["timestamp"]
    with pytest.raises(UsageError, match="not a canonical field"):
        parse_map(["tokens=x"])
    with pytest.raises(UsageError, match="expected canonical=dotted.path"):
        parse_map(["prompt_tokens"])


def _preset(**extra: object) -> Preset:
    base: dict[str, object] = {
        "id": "t",
        "title": "test",
        "detect": {"all_of": ["ts", "m"]},
        "fields": {
            "timestamp": ["ts"],
            "model": ["m"],
            "prompt_tokens": ["u.in", "tok"],
            "account_id": ["acct"],
        },
    }
    base.update(extra)
    return Preset.model_validate(base)


def test_non_request_rules_and_first_non_null_candidate() -> None:
    preset = _preset(
        non_request=[
            {"when": {"path": "type", "in": ["span", "event"]}, "reason": "span"},
            {"when": {"path": "kind", "equals": "billing"}, "reason": "billing"},
            {"when": {"path": "continuation_of", "missing": False}, "reason": "continuation"},
        ]
    )
    base = {"ts": "2026-09-01T00:00:00Z", "m": "glm-5.3"}
    assert classify({**base, "type": "span"}, preset).non_request == "span"
    assert classify({**base, "kind": "billing"}, preset).non_request == "billing"
    assert classify({**base, "continuation_of": "x"}, preset).non_request == "continuation"
    row = classify({**base, "u": {"in": None}, "tok": 9}, preset).row
    assert row is not None and row.prompt_tokens == 9
    row = classify({**base, "u": {"in": 7}, "tok": 9}, preset).row
    assert row is not None and row.prompt_tokens == 7


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ({"error": {"message": "rate limited"}}, "error envelope"),
        ({"hello": 1}, "no timestamp and no model"),
        ({"m": "glm-5.3"}, "missing timestamp"),
        ({"ts": "soon", "m": "glm-5.3"}, "unparseable timestamp"),
        ({"ts": "2026-09-01T00:00:00Z", "m": "glm-5.3", "tok": "many"}, "unparseable prompt"),
        ({"ts": "2026-09-01T00:00:00Z", "m": "glm-5.3", "tok": -1}, "unparseable prompt"),
        ({"ts": "2026-09-01T00:00:00Z", "m": "glm-5.3", "tok": 1.5}, "unparseable prompt"),
        ([1, 2], "not a JSON object"),
    ],
)
def test_malformed_records_are_skipped_with_a_reason(record: object, reason: str) -> None:
    outcome = classify(record, _preset())
    assert outcome.row is None and outcome.skip is not None and reason in outcome.skip


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, (None, True)),
        ("", (None, True)),
        (0, (None, True)),
        ("0", (None, True)),
        (681281, (681281, True)),
        ("681281", (681281, True)),
        (681281.0, (681281, True)),
        (True, (None, False)),
        ("1e6", (None, False)),
        (-3, (None, False)),
    ],
)
def test_token_parsing(value: object, expected: tuple[int | None, bool]) -> None:
    assert parse_tokens(value) == expected


def test_detection_prefers_the_preset_whose_rule_matches_most_records() -> None:
    catalogue = {"canonical": load_presets()["canonical"], "t": _preset()}
    sample = [{"ts": "2026-09-01T00:00:00Z", "m": "glm-5.3"}] * 3
    found, scores = detect_preset(sample, catalogue)
    assert found is not None and found.id == "t"
    assert scores == {"canonical": 0, "t": 3}
    assert detect_preset([{"x": 1}], catalogue)[0] is None


SAMPLES = Path(__file__).resolve().parent.parent.parent / "samples" / "logs"


def test_auto_refuses_files_of_two_products_in_one_run() -> None:
    """Read through litellm, a Cloudflare file would silently become 17 skipped rows."""
    with pytest.raises(InputError, match="looks like a cloudflare-ai-gateway log") as info:
        scope([SAMPLES / "cloudflare-ai-gateway.ndjson", SAMPLES / "litellm.ndjson"], preset="auto")
    assert str(SAMPLES / "cloudflare-ai-gateway.ndjson") in info.value.message
    assert "separate run" in (info.value.advice or "")
    # one product in two formats, and a request table with its joined side table, still work
    both = scope([SAMPLES / "litellm.ndjson", SAMPLES / "litellm-spendlogs.csv"], preset="auto")
    assert both.preset == "litellm"
    azure = scope([SAMPLES / "azure-apim-gateway.csv", SAMPLES / "azure-apim.csv"], preset="auto")
    assert azure.preset == "azure-apim" and azure.affected.requests == 0
    assert azure.breakdown.served_elsewhere == azure.counts.in_window  # Azure, not Workers AI
