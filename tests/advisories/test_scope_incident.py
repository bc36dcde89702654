"""`assess scope --incident` with every advisory that has scope data, and a clear refusal of the
ones that have none.

The OpenRouter fixture is lines of the shipped sample (samples/logs/openrouter.jsonl, whose format
the openrouter preset cites: GET /api/v1/generation records) with only the model and the time
changed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assess.advisories.catalogue import load_advisories
from tests.conftest import REPO

SAMPLES = REPO / "samples" / "logs"
ROUTER = "openrouter-shared-credentials-2025"


def _router_log(tmp_path: Path, rows: list[tuple[str, str]]) -> Path:
    template = json.loads((SAMPLES / "openrouter.jsonl").read_text().splitlines()[0])
    lines = [
        json.dumps({**template, "id": f"gen-{n}", "model": model, "created_at": when})
        for n, (model, when) in enumerate(rows)
    ]
    path = tmp_path / "generations.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_advisories_with_scope_data() -> None:
    assert sorted(a.id for a in load_advisories().values() if a.has_scope) == [
        "glm-5.3-kv-leak",
        ROUTER,
    ]


@pytest.mark.parametrize(
    "advisory",
    sorted(a.id for a in load_advisories().values() if not a.has_scope),
)
def test_an_advisory_without_scope_data_is_refused_naming_those_with_it(
    run_cli: Callable[..., Any], advisory: str
) -> None:
    result = run_cli("scope", str(SAMPLES / "openrouter.jsonl"), "--incident", advisory)
    assert result.exit_code == 2, result.output
    assert f"--incident {advisory}: this advisory has no scope data" in result.output
    assert f"glm-5.3-kv-leak, {ROUTER}" in result.output
    assert "verdict" not in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(
    ("advisory", "said", "not_said"),
    [
        # a library, not an engine: no deploy-check; it has a window, it lacks models
        (
            "chatgpt-redis-py-2023",
            [
                "no models (its window, 2023-03-20T08:00+00:00 .. 2023-03-20T17:00+00:00",
                "redis-py versions (a library, not an inference engine)",
                "(cache.client_library, cache.client_library_version)",
            ],
            ["deploy-check", "no window", "engines and settings"],
        ),
        # hosted APIs' settings, no engine version
        (
            "prompt-cache-global-sharing-2024",
            [
                "no models and no window",
                "a service's settings (prefix-cache-sharing), no engine version",
                "answers (cache.prompt_cache_scope)",
                "`assess deploy-check` reads sglang startup logs",  # its schedule_policy facts
            ],
            ["engine.version", "vllm"],
        ),
        (
            "vllm-prefix-cache-timing",
            [
                "vllm versions and settings",
                "(engine.name, engine.version, cache.prompt_cache_scope)",
                "`assess deploy-check` reads vllm startup logs",
            ],
            ["sglang", "deployment.mode"],
        ),
        (
            "sglang-pd-kv-transfer-race",
            ["(engine.name, engine.version, deployment.mode, isolation.transfer_checksums)"],
            ["vllm"],
        ),
    ],
)
def test_the_refusal_is_worded_from_the_advisorys_own_data(
    run_cli: Callable[..., Any], advisory: str, said: list[str], not_said: list[str]
) -> None:
    """acc41 m4: one wording ("engines and settings ... deploy-check") was wrong for the
    redis-py library advisory and for the hosted-API one."""
    result = run_cli("scope", str(SAMPLES / "openrouter.jsonl"), "--incident", advisory)
    assert result.exit_code == 2, result.output
    first = result.output.splitlines()[0]
    assert [s for s in said if s not in first] == [], first
    assert [s for s in not_said if s in first] == [], first


def test_router_advisory_scopes_its_models_in_its_window(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    log = _router_log(
        tmp_path,
        [
            ("openai/gpt-4o-mini", "2025-11-12T00:00:00.000000+00:00"),  # first instant
            ("qwen/qwen3-8b", "2025-12-08T23:59:59.000000+00:00"),  # last day, whole
            ("openai/gpt-oss-20b:free", "2025-11-20T10:00:00.000000+00:00"),  # variant suffix
            ("openai/gpt-4o-mini", "2025-11-11T23:59:59.000000+00:00"),  # the day before
            ("openai/gpt-4o-mini", "2025-12-09T00:00:00.000000+00:00"),  # the day after
            ("openai/gpt-4o", "2025-11-20T10:00:00.000000+00:00"),  # another model
        ],
    )
    result = run_cli(
        "scope", str(log), "--incident", ROUTER, "--preset", "openrouter", "--json", "-"
    )
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    assert doc["filter"]["advisory_id"] == ROUTER
    assert doc["filter"]["min_prompt_tokens"] == 0  # no trigger: any request in the window
    assert doc["verdict"] == "affected"
    counts = doc["counts"]
    assert (counts["model_matched"], counts["in_window"], counts["over_threshold"]) == (5, 3, 3)
    assert sorted(doc["affected"]["request_ids"]) == ["gen-0", "gen-1", "gen-2"]


def test_the_engines_with_startup_logs_are_deploy_checks() -> None:
    from typing import get_args

    from assess.advisories.wording import LOGGED_ENGINES
    from assess.deploy.models import ParsedServerLog

    read = set(get_args(ParsedServerLog.model_fields["engine"].annotation)) - {"unknown"}
    assert set(LOGGED_ENGINES) == read
