"""`assess scope` on every preset sample gives exactly the hand-counted numbers.

The expected files (tests/presets/expected/<preset>.json) were counted by hand from how each
sample was built (see their "construction" text), not by running the tool.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from assess.scope.exposure import PLATFORM_REASONS, REASON_FALLBACK
from tests.presets._samples import expectations

DOCS = expectations()
IDS = [doc["sample"] for doc in DOCS]


def _scope(run_cli: Callable[..., Any], doc: dict[str, Any], preset: str) -> dict[str, Any]:
    result = run_cli(
        "scope", *doc["inputs"], "--preset", preset, "--incident", "glm-5.3-kv-leak", "--json", "-"
    )
    out: dict[str, Any] = json.loads(result.stdout)
    # 1 = affected or possibly affected requests found; 0 only when every one was served
    # elsewhere (docs/exposure.md); anything else is a failure
    found = out["affected"]["requests"] or out["possibly_affected"]["requests"]
    assert result.exit_code == (1 if found else 0), result.output
    return out


#: Who served each sample's requests, as its records say: Workers AI (provider "workers-ai"),
#: another platform (OpenRouter's provider_name "Z.AI", Bedrock's and Azure's own logs), or not
#: told (no provider field, or a router such as OpenRouter named as LiteLLM's provider).
PLATFORM = {
    "cloudflare-ai-gateway": "on",
    "openrouter": "elsewhere",
    "bedrock": "elsewhere",
    "azure-apim": "elsewhere",
}
#: By input where one preset's files differ: the shipped Portkey sample names ai_org "zhipu"
#: (Z.AI's own API), another platform; its failures variant names the router openrouter.
PLATFORM_BY_INPUT = {"samples/logs/portkey.jsonl": "elsewhere"}


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.presets._samples import REPO

    monkeypatch.chdir(REPO)


@pytest.mark.parametrize("doc", DOCS, ids=IDS)
def test_counts_match_the_hand_count(run_cli: Callable[..., Any], doc: dict[str, Any]) -> None:
    out = _scope(run_cli, doc, doc["preset"])
    assert out["kind"] == "assess.scope" and out["preset"] == doc["preset"]
    assert out["counts"] == doc["counts"]


@pytest.mark.parametrize("doc", DOCS, ids=IDS)
def test_affected_ids_accounts_and_sessions(
    run_cli: Callable[..., Any], doc: dict[str, Any]
) -> None:
    out = _scope(run_cli, doc, doc["preset"])
    want = doc["affected"]  # hand-counted: in window, over the trigger by count
    got = out["affected"]
    platform = PLATFORM_BY_INPUT.get(
        doc["inputs"][0] if len(doc["inputs"]) == 1 else "", PLATFORM.get(doc["preset"], "unknown")
    )
    if platform == "on":
        replays = out["breakdown"]["by_verdict"]["cache_replay"]
        if replays:  # a cache replay never reached the model: not affected
            assert set(got["request_ids"]) < set(want["request_ids"])
            assert len(want["request_ids"]) - len(got["request_ids"]) <= replays
            return
        assert sorted(got["request_ids"]) == sorted(want["request_ids"])
        assert {a["account_id"]: a["requests"] for a in got["accounts"]} == want["accounts"]
        assert got["unattributed"] == want["unattributed"]
        assert got["sessions"] == want["sessions"]
        return
    assert got["requests"] == 0
    if platform == "elsewhere":
        assert out["breakdown"]["served_elsewhere"] == out["counts"]["in_window"]
        assert out["possibly_affected"]["requests"] == 0
        return
    reasons = out["possibly_affected"]["by_reason"]
    platform_unknown = sum(reasons.get(r, 0) for r in (*PLATFORM_REASONS, REASON_FALLBACK))
    assert 0 < platform_unknown <= out["counts"]["over_threshold"]
    possibly = set(out["possibly_affected"]["request_ids"])
    assert possibly & set(want["request_ids"])


@pytest.mark.parametrize("doc", DOCS, ids=IDS)
def test_conservation_read_equals_requests_plus_non_requests_plus_skipped(
    run_cli: Callable[..., Any], doc: dict[str, Any]
) -> None:
    out = _scope(run_cli, doc, doc["preset"])
    counts = out["counts"]
    requests = out["breakdown"]["requests"]
    assert counts["records_read"] == (
        requests + counts["non_request_records"] + counts["records_skipped"]
    )
    assert counts["in_window"] == (
        counts["over_threshold"] + counts["at_or_under_threshold"] + counts["unknown_tokens"]
    )
    assert len(out["skipped"]) == counts["records_skipped"]
    assert all(s["line"] >= 1 and s["file"] for s in out["skipped"])


@pytest.mark.parametrize("doc", DOCS, ids=IDS)
def test_preset_auto_detects_the_product(run_cli: Callable[..., Any], doc: dict[str, Any]) -> None:
    out = _scope(run_cli, doc, "auto")
    assert out["preset"] == doc["preset"]
    assert out["counts"] == doc["counts"]


def _by_preset(sample: str) -> dict[str, Any]:
    return next(doc for doc in DOCS if doc["sample"] == sample)


def test_azure_without_its_gateway_table_leaves_every_affected_request_unattributed(
    run_cli: Callable[..., Any],
) -> None:
    doc = dict(_by_preset("azure-apim"), inputs=["samples/logs/azure-apim.csv"])
    out = _scope(run_cli, doc, "azure-apim")
    # the LLM log alone: 22 rows, 3 continuation rows, 2 malformed; no subscription anywhere
    assert out["counts"]["records_read"] == 22
    assert out["counts"]["non_request_records"] == 3
    assert out["counts"]["over_threshold"] == 5
    assert out["affected"]["accounts"] == []
    assert out["breakdown"]["served_elsewhere"] == out["counts"]["in_window"]  # Azure's own log


def test_openrouter_normalised_counts_give_other_answers_than_native(
    run_cli: Callable[..., Any],
) -> None:
    """--map prompt_tokens=tokens_prompt (normalised, 0.93 x native in the sample) moves rows.

    Hand count with tokens_prompt: over r03 (837,000), r15 (697,500), r19 (700,000),
    r20 (681,281); at or under r01, r02, r10 (633,591), r06 (633,590), r07, r17, r18 (600,000),
    r21; unknown r08, r09, r16.
    """
    doc = _by_preset("openrouter")
    result = run_cli(
        "scope",
        *doc["inputs"],
        "--preset",
        "openrouter",
        "--map",
        "prompt_tokens=tokens_prompt",
        "--json",
        "-",
    )
    out = json.loads(result.stdout)
    assert out["counts"]["in_window"] == 15
    assert out["counts"]["over_threshold"] == 4
    assert out["counts"]["at_or_under_threshold"] == 8
    assert out["counts"]["unknown_tokens"] == 3
    assert out["affected"]["request_ids"] == []  # served by Z.AI


def test_litellm_end_time_would_scope_the_wrong_requests(run_cli: Callable[..., Any]) -> None:
    """Dating requests by endTime moves r04 (starts 1 s before the window) in and r03 (starts
    at the last second, ends 45 s later) out: the preset dates by startTime."""
    doc = _by_preset("litellm")
    result = run_cli(
        "scope", *doc["inputs"], "--preset", "litellm", "--map", "timestamp=endTime", "--json", "-"
    )
    out = json.loads(result.stdout)
    over = {r["request_id"] for r in out["possibly_affected"]["estimates"]}
    ids = sorted(set(out["possibly_affected"]["request_ids"]) - over)  # by count, not estimate
    assert ids == [
        "chatcmpl-lt-r01",
        "chatcmpl-lt-r02",
        "chatcmpl-lt-r04",
        "chatcmpl-lt-r10",
    ]  # r15 names together_ai as its provider: served elsewhere
    assert "chatcmpl-lt-r03" in doc["affected"]["request_ids"]


def test_unknown_export_needs_a_map_and_then_reads_as_canonical(
    run_cli: Callable[..., Any],
) -> None:
    """The docs example: no preset fits samples/logs/custom-export.ndjson; auto infers the two
    fields with telling names (when, engine) and not the others (ptok, team: the requests are
    possibly affected, tokens unknown); --map says the rest."""
    sample = "samples/logs/custom-export.ndjson"
    inferred = json.loads(run_cli("scope", sample, "--json", "-").stdout)
    assert inferred["preset"] == "inferred"
    reading = {f["field"]: f["paths"] for f in inferred["reading"][0]["inference"]}
    assert reading["timestamp"] == ["when"] and reading["model"] == ["engine"]
    assert reading["prompt_tokens"] == [] and reading["account_id"] == []
    assert inferred["counts"]["unknown_tokens"] == 1
    mapped = run_cli(
        "scope",
        sample,
        "--map",
        "timestamp=when",
        "--map",
        "model=engine",
        "--map",
        "prompt_tokens=ptok",
        "--map",
        "account_id=team",
        "--json",
        "-",
    )
    out = json.loads(mapped.stdout)
    assert out["preset"] == "canonical"
    # line 1: zai-org/GLM-5.3 inside the window, 681,281 tokens; line 2: one second after it
    assert out["counts"]["model_matched"] == 2
    assert out["counts"]["in_window"] == 1
    assert out["counts"]["over_threshold"] == 1
    # no provider field in this export: the platform cannot be told
    assert out["possibly_affected"]["accounts"] == [{"account_id": "search", "requests": 1}]


def test_cloudflare_logpush_rows_read_as_unknown_tokens(
    run_cli: Callable[..., Any], tmp_path: Any
) -> None:
    """Logpush ai_gateway_events (capitalised fields, RFC 3339 or unixnano Timestamp) carry no
    documented token count: in-window GLM-5.3 rows are possibly affected, never dropped."""
    lines = [
        {
            "Timestamp": "2026-09-01T10:00:00Z",
            "Model": "@cf/zai-org/glm-5.3",
            "Provider": "workers-ai",
            "StatusCode": 200,
            "Metadata": {"user_id": "acct-a"},
            "Metrics": {"cost": 0.1, "durationMs": 1234},
            "Cached": False,
        },
        {
            "Timestamp": 1788256800000000000,
            "Model": "@cf/zai-org/glm-5.3",
            "Provider": "workers-ai",
            "StatusCode": 200,
            "Metadata": {},
            "Cached": False,
        },
        {
            "Timestamp": "2026-09-10T00:00:00Z",
            "Model": "@cf/zai-org/glm-5.3",
            "Provider": "workers-ai",
            "StatusCode": 200,
            "Metadata": {},
            "Cached": False,
        },
    ]
    path = tmp_path / "logpush.ndjson"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = run_cli("scope", str(path), "--preset", "cloudflare-ai-gateway", "--json", "-")
    out = json.loads(result.stdout)
    assert out["counts"]["model_matched"] == 3
    assert out["counts"]["in_window"] == 2
    assert out["counts"]["unknown_tokens"] == 2
    assert out["possibly_affected"]["requests"] == 2


def test_azure_tables_join_in_either_order(run_cli: Callable[..., Any]) -> None:
    doc = _by_preset("azure-apim")
    reverse = dict(doc, inputs=list(reversed(doc["inputs"])))
    first, second = _scope(run_cli, doc, "azure-apim"), _scope(run_cli, reverse, "azure-apim")
    assert first["counts"] == second["counts"]
    assert first["affected"]["accounts"] == second["affected"]["accounts"]
