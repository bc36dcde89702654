"""`assess scope --explain` and `reading` in --json: the preset of each file and why, each field's
path, counts and redacted examples; the refusal of --preset auto names the closest presets."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.presets._samples import REPO

PAGE = "samples/logs/cloudflare-ai-gateway-logs-page.json"
LEGACY = [
    "tests/presets/variants/langfuse-legacy/observations.jsonl",
    "tests/presets/variants/langfuse-legacy/traces.jsonl",
]


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def _reading(run_cli: Callable[..., Any], *args: str) -> list[dict[str, Any]]:
    result = run_cli("scope", *args, "--json", "-")
    assert result.exit_code in (0, 1), result.output  # the verdict is tested elsewhere
    reading: list[dict[str, Any]] = json.loads(result.stdout)["reading"]
    return reading


def _field(reading: dict[str, Any], name: str) -> dict[str, Any]:
    return next(f for f in reading["fields"] if f["field"] == name)


def test_reading_names_the_rule_the_paths_and_redacts_ids(run_cli: Callable[..., Any]) -> None:
    (page,) = _reading(run_cli, PAGE)
    assert page["preset"] == "cloudflare-ai-gateway" and page["chosen_by"] == "auto"
    assert page["records_examined"] == 6 and page["role"] == "requests"
    assert page["detect"]["form"] == "logs API / Workers binding items"
    assert page["detect"]["records_matched"] == 6
    assert page["runner_up"]["preset"] != "cloudflare-ai-gateway"
    account = _field(page, "account_id")
    # metadata is a JSON string: the path into it decoded it; cf-v6 has no metadata
    assert account["source"] == "metadata.user"
    assert account["records_with_value"] == 5 and account["by_path"] == {"metadata.user": 5}
    assert account["example"] == "acc***"
    assert _field(page, "request_id")["example"] == "cf-***"
    assert _field(page, "timestamp")["example"] == "2026-09-01T10:00:00Z"


def test_reading_lists_the_other_candidate_paths_seen(run_cli: Callable[..., Any]) -> None:
    """OpenRouter: the native count is used, the normalised one is present and listed."""
    (one,) = _reading(run_cli, "tests/presets/variants/openrouter-generation-envelope.jsonl")
    tokens = _field(one, "prompt_tokens")
    assert tokens["source"] == "native_tokens_prompt"
    assert tokens["records_with_value"] == 5  # the cancelled generation has neither count
    assert tokens["other_paths_seen"] == ["tokens_prompt"]


def test_reading_of_a_join_shows_the_side_table_and_the_joined_fields(
    run_cli: Callable[..., Any],
) -> None:
    observations, traces = _reading(run_cli, *LEGACY)
    assert observations["role"] == "requests" and traces["role"] == "side table"
    assert _field(observations, "timestamp")["source"] == "start_time"  # the snake_case twin
    assert _field(observations, "model")["source"] == "provided_model_name"
    assert _field(observations, "account_id")["source"].startswith("(joined on trace_id")
    assert traces["detect"]["form"] == "legacy traces/ export rows"
    assert _field(traces, "account_id") | {"example": None} == {
        "field": "account_id",
        "source": "user_id",
        "records_with_value": 3,
        "by_path": {"user_id": 3},
        "other_paths_seen": [],
        "example": None,
    }


def test_prompt_text_is_shown_as_its_size_only(run_cli: Callable[..., Any]) -> None:
    (one,) = _reading(run_cli, "samples/logs/litellm.ndjson", "--preset", "litellm")
    assert one["chosen_by"] == "--preset"
    example = _field(one, "prompt")["example"]
    assert example.startswith("<") and example.endswith(" characters>")


def test_explain_prints_the_reading_before_the_summary(run_cli: Callable[..., Any]) -> None:
    result = run_cli("scope", PAGE, "--explain")
    assert result.exit_code == 1
    text = result.output
    assert "preset cloudflare-ai-gateway (requests); chosen by auto" in text
    assert "rule 'logs API / Workers binding items' fits 6 of 6 records examined" in text
    assert "metadata.user" in text and "runner-up" in text
    assert "acct-a" not in text  # examples are redacted
    assert text.index("path used") < text.index("Records")


def test_refusal_lists_the_closest_presets_and_what_each_lacks(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    path = tmp_path / "gateway.ndjson"
    # the logs API item without its provider: close to cloudflare-ai-gateway, not a match; and
    # no value is a time, so no mapping can be inferred either
    path.write_text(
        json.dumps({"created_at": "on Tuesday", "model": "glm-5.3", "tokens_in": 9}) + "\n"
    )
    result = run_cli("scope", str(path))
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "Closest presets: cloudflare-ai-gateway (has created_at, model, tokens_in; " in text
    assert "missing: provider)" in text
    assert "no field has the shape of a timestamp" in text


@pytest.mark.parametrize(
    ("fixture", "status"),
    [
        ("tests/presets/variants/new-api-logs-types.csv", {"5": 1}),
        ("tests/presets/variants/litellm-standard-payload-failures.ndjson", {"failure": 1}),
        ("tests/presets/variants/portkey-export-failures.jsonl", {"502": 1}),
        # Bedrock's own log: every row was served by Bedrock, not the advisory's platform
        ("tests/presets/variants/bedrock-model-arns.jsonl", {}),
    ],
)
def test_failed_requests_are_possibly_affected_with_their_status(
    run_cli: Callable[..., Any], fixture: str, status: dict[str, int]
) -> None:
    result = run_cli("scope", fixture, "--json", "-")
    got = json.loads(result.stdout)["possibly_affected"]["status"]
    # the failed call is there; over-trigger rows of a platform not told may be beside it
    assert status.items() <= got.items() and (status or not got)


def test_no_usable_request_names_the_field_no_path_found(run_cli: Callable[..., Any]) -> None:
    result = run_cli("scope", "samples/logs/litellm.ndjson", "--map", "timestamp=nope")
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "samples/logs/litellm.ndjson: no timestamp at any of its paths (nope) with preset " in (
        text
    )


def test_a_side_table_alone_is_refused_not_read_as_nothing_affected(
    run_cli: Callable[..., Any],
) -> None:
    result = run_cli("scope", LEGACY[1])
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "traces.jsonl: every record is a row of the langfuse side table" in text
    assert "observations/ files beside traces/" in text
