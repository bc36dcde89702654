"""A log's provider value is read by the one normaliser ``--served-by`` uses (acc42b defect 1):
``Workers AI``, ``workers_ai`` or ``Cloudflare Workers AI`` in a row is the advisory's platform,
a value naming no known platform (a typo such as ``cloudfare``, an unlisted ``NewCo``) is
"possibly affected, platform not identified", never "served elsewhere" (a false all-clear, exit 0).
Also: a bound of 100% prints as ``100%`` (defect 2), Helicone's ``CLOUDFLARE`` is a gateway
(defect 3), and the breakdown names ``--served-by`` when the rows are bound by it (defect 4).

Fixtures are built here: the canonical preset's fields (docs/scope-formats.md), six glm-5.3
requests over the trigger (681,280 tokens) in the advisory's window, one provider value each file;
the OpenRouter, Portkey and Helicone ones are the shipped samples (their preset headers cite the
format) with only the provider field changed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from assess.scope.api import scope_run
from assess.scope.estimate import percent
from assess.scope.exposure import REASON_ROUTER, platform_of
from assess.scope.filter import OTHER_PLATFORMS, known_platforms, served_by_platform

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "logs"


def _canonical(tmp: Path, provider: str) -> Path:
    rows = [
        {
            "request_id": f"c{i}",
            "timestamp": f"2026-09-0{i + 1}T10:00:00Z",
            "model": "glm-5.3",
            "prompt_tokens": 700_000 + i,
            "account_id": f"acct-{i % 2}",
            "status": 200,
            "provider": provider,
        }
        for i in range(6)
    ]
    path = tmp / "canon.ndjson"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _sample(tmp: Path, name: str, field: str, value: str) -> Path:
    lines = []
    for line in (SAMPLES / name).read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            lines.append(line)
            continue
        if isinstance(record, dict) and field in record:
            record[field] = value
        lines.append(json.dumps(record))
    path = tmp / name
    path.write_text("\n".join(lines) + "\n")
    return path


SPELLINGS = ["Workers AI", "workers_ai", "WORKERS-AI", "Cloudflare Workers AI", "cloudflare"]


@pytest.mark.parametrize("value", SPELLINGS)
def test_a_spelling_of_workers_ai_in_the_log_is_affected(
    run_cli: Callable[..., Any], tmp_path: Path, value: str
) -> None:
    result = run_cli("scope", str(_canonical(tmp_path, value)), "--preset", "canonical")
    assert result.exit_code == 1, result.output
    assert "served elsewhere" not in result.output
    assert "verdict: affected" in result.output
    assert "received (affected)       │ 6" in result.output


@pytest.mark.parametrize("value", ["cloudfare", "NewCo", "workers ai x"])
def test_a_value_naming_no_known_platform_is_possibly_affected(
    run_cli: Callable[..., Any], tmp_path: Path, value: str
) -> None:
    result = run_cli("scope", str(_canonical(tmp_path, value)), "--preset", "canonical")
    assert result.exit_code == 1, result.output
    assert "served elsewhere" not in result.output
    reason = f"platform not identified (provider value '{value}' not known): 6"
    assert f"possibly affected, over the trigger, {reason}" in result.output


@pytest.mark.parametrize("value", ["Amazon Bedrock", "z.ai", "Z.AI", "together_ai"])
def test_a_known_other_platform_in_the_log_is_served_elsewhere(
    run_cli: Callable[..., Any], tmp_path: Path, value: str
) -> None:
    result = run_cli("scope", str(_canonical(tmp_path, value)), "--preset", "canonical")
    assert result.exit_code == 0, result.output
    assert "not a source, served by another platform: 6" in result.output


@pytest.mark.parametrize(
    ("name", "field", "preset"),
    [
        ("openrouter.jsonl", "provider_name", "openrouter"),
        ("portkey.jsonl", "ai_org", "portkey"),
    ],
)
@pytest.mark.parametrize("value", ["Workers AI", "workers_ai", "cloudfare"])
def test_router_presets_read_the_value_the_same_way(
    tmp_path: Path, name: str, field: str, preset: str, value: str
) -> None:
    result = scope_run([_sample(tmp_path, name, field, value)], preset=preset).result
    assert result.counts.in_window > 0
    assert result.breakdown.served_elsewhere == 0
    assert result.affected.requests + result.possibly_affected.requests > 0


def test_log_values_and_served_by_share_one_normaliser(tmp_path: Path) -> None:
    """Every spelling ``--served-by`` accepts gives the same verdict as a log value."""
    import pyarrow as pa

    scope = scope_run([_canonical(tmp_path, "x")], preset="canonical").result.filter
    for value, platform in known_platforms(scope).items():
        assert served_by_platform(scope, value) == platform
        rows = pa.table(
            {
                "model": pa.array(["glm-5.3"], pa.large_string()),
                "provider": pa.array([value.upper().replace("-", " ")], pa.large_string()),
                "endpoint": pa.array([None], pa.large_string()),
            }
        )
        want = "elsewhere" if platform in OTHER_PLATFORMS else "on"
        assert platform_of(rows, scope).to_pylist() == [want], value


def test_percent_never_uses_an_exponent() -> None:
    assert percent(Fraction(1)) == "100%"
    assert percent(Fraction(456, 1000)) == "46%"
    assert percent(Fraction(213, 10000)) == "2.1%"
    assert percent(Fraction(51, 100000)) == "0.051%"
    assert percent(Fraction(0)) == "0%"


def test_a_full_upper_bound_prints_as_100_percent(run_cli: Callable[..., Any]) -> None:
    result = run_cli(
        "scope", str(SAMPLES / "langfuse.json"), "--served-by", "workers-ai",
        "--platform-requests", "2000000", "--platform-mean-tokens", "600",
    )  # fmt: skip
    assert "= 100%" in result.output, result.output
    assert "e+" not in result.output


def test_helicone_cloudflare_is_a_gateway(tmp_path: Path) -> None:
    path = _sample(tmp_path, "helicone.jsonl", "provider", "CLOUDFLARE")
    result = scope_run([path], preset="helicone").result
    assert result.possibly_affected.by_reason.get(REASON_ROUTER, 0) > 0
    assert not any("protocol" in r for r in result.possibly_affected.by_reason)


def test_the_breakdown_names_the_served_by_statement(run_cli: Callable[..., Any]) -> None:
    result = run_cli("scope", str(SAMPLES / "langfuse.json"), "--served-by", "bedrock")
    assert result.exit_code == 0, result.output
    assert "by --served-by aws-bedrock: 12" in result.output
    assert "(by the preset or endpoint)" not in result.output
