"""An endpoint host is "served elsewhere" only when it is a known other platform's host
(``OTHER_PLATFORM_HOSTS``); a company gateway or an IP may have forwarded the request to the
advisory's platform, so its rows are "possibly affected (endpoint host 'H' not known)", not a
false all-clear (exit 0). Fixtures: the canonical preset's fields (docs/scope-formats.md) and the
shipped LiteLLM (``api_base``), Portkey (``request_url``) and OTel (``server.address``) samples,
whose preset headers cite the format, with only the endpoint changed and the provider removed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "logs"
GATEWAYS = ["https://llm-gw.corp.example/v1", "http://10.1.2.3:8000/v1/chat/completions"]


def _canonical(tmp: Path, endpoint: str) -> Path:
    rows = [
        {
            "request_id": f"c{i}",
            "timestamp": f"2026-09-0{i + 1}T10:00:00Z",
            "model": "glm-5.3",
            "prompt_tokens": 700_000 + i,
            "account_id": "acct-1",
            "status": 200,
            "endpoint": endpoint,
        }
        for i in range(3)
    ]
    path = tmp / "canon.ndjson"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _sample(tmp: Path, name: str, endpoint: str, provider: str, value: str) -> Path:
    """The sample with every ``endpoint`` set to ``value`` and every ``provider`` renamed away
    (OTLP attributes are ``{"key": K, "value": {"stringValue": V}}``: edited as text)."""
    text = (SAMPLES / name).read_text()
    for key, new in ((endpoint, value), (provider, None)):
        old = re.compile(rf'("key":"{re.escape(key)}","value":\{{"stringValue":)"[^"]*"')
        if new is None:
            text = text.replace(f'"key":"{key}"', '"key":"x.removed"')
        else:
            text = old.sub(rf'\1"{new}"', text)
    lines = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            lines.append(line)
            continue
        if isinstance(record, dict):
            if endpoint in record:
                record[endpoint] = value
            record.pop(provider, None)
        lines.append(json.dumps(record))
    path = tmp / name
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("endpoint", GATEWAYS)
def test_an_unknown_endpoint_host_is_possibly_affected(
    run_cli: Callable[..., Any], tmp_path: Path, endpoint: str
) -> None:
    result = run_cli("scope", str(_canonical(tmp_path, endpoint)), "--preset", "canonical")
    assert result.exit_code == 1, result.output
    assert "served elsewhere" not in result.output
    assert "verdict: affected" in result.output
    host = endpoint.split("://")[1].split("/")[0].split(":")[0]
    assert f"endpoint host '{host}' not known" in result.output
    assert "--served-by" in result.output


@pytest.mark.parametrize(
    "endpoint", ["https://api.openai.com/v1", "https://bedrock-runtime.us-east-1.amazonaws.com"]
)
def test_a_known_other_platform_host_is_served_elsewhere(
    run_cli: Callable[..., Any], tmp_path: Path, endpoint: str
) -> None:
    result = run_cli("scope", str(_canonical(tmp_path, endpoint)), "--preset", "canonical")
    assert result.exit_code == 0, result.output
    assert "not known" not in result.output


@pytest.mark.parametrize(
    ("name", "preset", "endpoint", "provider"),
    [
        ("litellm.ndjson", "litellm", "api_base", "custom_llm_provider"),
        ("portkey.jsonl", "portkey", "request_url", "ai_org"),
        ("otel-genai.jsonl", "otel-genai", "server.address", "gen_ai.provider.name"),
    ],
)
def test_router_presets_do_not_clear_an_unknown_gateway(
    run_cli: Callable[..., Any],
    tmp_path: Path,
    name: str,
    preset: str,
    endpoint: str,
    provider: str,
) -> None:
    path = _sample(tmp_path, name, endpoint, provider, "https://llm-gw.corp.example/v1")
    result = run_cli("scope", str(path), "--preset", preset)
    assert result.exit_code != 0, result.output
    assert "endpoint host 'llm-gw.corp.example' not known" in result.output
