"""The serving provider of the presets that had none mapped (issue 42): Helicone, Portkey, Kong,
LangSmith, OTel GenAI and OpenInference (docs/exposure.md "Platform binding").

Each fixture is the shipped sample of the preset (whose format its preset header cites) with
only the provider field (and, where the product logs one, the endpoint) set on every record.
Hand counts: a value naming another platform makes every in-window request *served elsewhere*;
the product's client-protocol or gateway value (``provider_no_evidence``) is no evidence, so the
verdicts are those of the same records with no provider at all; a value or endpoint naming
Workers AI turns each "over the trigger, platform not identified" request into an affected one.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assess.scope.api import scope_run
from assess.scope.exposure import REASON_PLATFORM, REASON_PROTOCOL

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "logs"
Setter = Callable[[dict[str, Any], str | None, str | None], None]


def _helicone(record: dict[str, Any], provider: str | None, endpoint: str | None) -> None:
    record.pop("provider", None)
    if provider is not None:
        record["provider"] = provider


def _portkey(record: dict[str, Any], provider: str | None, endpoint: str | None) -> None:
    record.pop("ai_org", None)
    record.pop("request_url", None)
    if provider is not None:
        record["ai_org"] = provider
    if endpoint is not None:
        record["request_url"] = endpoint


def _kong(record: dict[str, Any], provider: str | None, endpoint: str | None) -> None:
    for plugin in record.get("ai", {}).values():
        if not isinstance(plugin, dict):
            continue
        # Kong 3.6+: ai.<plugin>.meta; Kong 3.5: ai.<plugin>.instances[0].meta
        for holder in [plugin, *plugin.get("instances", [])]:
            meta = holder.get("meta")
            if isinstance(meta, dict):
                meta.pop("provider_name", None)
                if provider is not None:
                    meta["provider_name"] = provider


def _langsmith(record: dict[str, Any], provider: str | None, endpoint: str | None) -> None:
    metadata = record.setdefault("extra", {}).setdefault("metadata", {})
    metadata.pop("ls_provider", None)
    if provider is not None:
        metadata["ls_provider"] = provider


def _otel(record: dict[str, Any], provider: str | None, endpoint: str | None) -> None:
    for resource in record.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                keep = ("gen_ai.provider.name", "gen_ai.system", "server.address")
                attributes = [a for a in span.get("attributes", []) if a["key"] not in keep]
                wanted = (("gen_ai.provider.name", provider), ("server.address", endpoint))
                for key, value in wanted:
                    if value is not None:
                        attributes.append({"key": key, "value": {"stringValue": value}})
                span["attributes"] = attributes


JSON_PRESETS: dict[str, tuple[str, Setter]] = {
    "helicone": ("helicone.jsonl", _helicone),
    "portkey": ("portkey.jsonl", _portkey),
    "kong-ai-gateway": ("kong-file-log.ndjson", _kong),
    "langsmith": ("langsmith-runs.jsonl", _langsmith),
    "otel-genai": ("otel-genai.jsonl", _otel),
}


def _rewrite(tmp: Path, preset: str, provider: str | None, endpoint: str | None = None) -> Path:
    """The preset's sample with the provider (and endpoint) of every record set (None: none)."""
    if preset == "openinference":
        rows = list(csv.DictReader(io.StringIO((SAMPLES / "phoenix-spans.csv").read_text())))
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, "attributes.llm.provider": provider or ""})
        path = tmp / f"{preset}-{provider}.csv"
        path.write_text(out.getvalue())
        return path
    name, setter = JSON_PRESETS[preset]
    lines = []
    for line in (SAMPLES / name).read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            lines.append(line)  # the samples' deliberately broken lines stay as they are
            continue
        if isinstance(record, dict):
            setter(record, provider, endpoint)
        lines.append(json.dumps(record))
    path = tmp / f"{preset}-{provider}-{endpoint is not None}{Path(name).suffix}"
    path.write_text("\n".join(lines) + "\n")
    return path


def _scope(path: Path, preset: str) -> Any:
    return scope_run([path], preset=preset).result


#: A value naming another platform, and the product's no-evidence value, per preset.
VALUES = {
    "helicone": ("ANTHROPIC", "OPENAI"),
    "portkey": ("anthropic", "openai"),
    "kong-ai-gateway": ("anthropic", "openai"),
    "langsmith": ("anthropic", "openai"),
    "otel-genai": ("aws.bedrock", "openai"),
    "openinference": ("anthropic", "openai"),
}


@pytest.mark.parametrize("preset", sorted(VALUES))
def test_another_platform_is_served_elsewhere(tmp_path: Path, preset: str) -> None:
    other, _ = VALUES[preset]
    result = _scope(_rewrite(tmp_path, preset, other), preset)
    assert result.counts.in_window > 0
    assert result.breakdown.served_elsewhere == result.counts.in_window
    assert result.breakdown.served_elsewhere_by_provider == {other.lower(): result.counts.in_window}
    assert result.affected.requests == result.possibly_affected.requests == 0
    assert result.disclosed.requests == 0


@pytest.mark.parametrize("preset", sorted(VALUES))
def test_the_client_protocol_name_is_no_evidence(tmp_path: Path, preset: str) -> None:
    _, vague = VALUES[preset]
    none = _scope(_rewrite(tmp_path, preset, None), preset)
    result = _scope(_rewrite(tmp_path, preset, vague), preset)
    assert result.breakdown.by_verdict == none.breakdown.by_verdict
    assert result.breakdown.served_elsewhere == 0
    # its own reason: the row does hold a provider, one that names the protocol (acc42 d5)
    assert result.possibly_affected.by_reason.get(REASON_PROTOCOL, 0) > 0
    assert REASON_PLATFORM not in result.possibly_affected.by_reason
    assert result.affected.requests == 0


@pytest.mark.parametrize(
    ("preset", "provider", "endpoint"),
    [
        ("portkey", "workers-ai", None),  # Portkey's Workers AI provider slug
        # the openai provider with a custom host: the final URL tells
        ("portkey", "openai", "https://api.cloudflare.com/client/v4/accounts/abc/ai/v1/chat"),
        ("otel-genai", "openai", "api.cloudflare.com"),  # the OpenAI client, Workers AI host
    ],
)
def test_workers_ai_makes_the_unidentified_ones_affected(
    tmp_path: Path, preset: str, provider: str, endpoint: str | None
) -> None:
    none = _scope(_rewrite(tmp_path, preset, None), preset)
    unidentified = none.possibly_affected.by_reason[REASON_PLATFORM]
    result = _scope(_rewrite(tmp_path, preset, provider, endpoint), preset)
    assert result.affected.requests == none.affected.requests + unidentified
    assert REASON_PLATFORM not in result.possibly_affected.by_reason
    assert result.breakdown.served_elsewhere == 0


def test_the_openai_host_itself_is_another_platform(tmp_path: Path) -> None:
    result = _scope(_rewrite(tmp_path, "otel-genai", "openai", "api.openai.com"), "otel-genai")
    assert result.breakdown.served_elsewhere == result.counts.in_window


def test_portkey_cache_hits_are_replays(tmp_path: Path) -> None:
    lines = []
    for line in (SAMPLES / "portkey.jsonl").read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:  # the sample's broken line stays
            lines.append(line)
            continue
        record["ai_org"], record["cache_status"] = "workers-ai", "HIT"
        lines.append(json.dumps(record))
    path = tmp_path / "portkey.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = _scope(path, "portkey")
    assert result.breakdown.by_verdict["cache_replay"] == result.counts.in_window
    assert result.affected.requests == 0
