"""The same end-to-end checks through the official openai SDK transport (`--transport openai`)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assess.lab.engine import LabConfig
from assess.lab.server import run_lab_server
from tests.probe.conftest import SMALL_LAB
from tests.probe.servers import Reply, closed_port_url, completion, json_reply, scripted_server

SDK = {"transport": "openai"}
BOUNDARY = ("--long-prompt-tokens", "400", "--yes")
MODELS = {"object": "list", "data": [{"id": "lab-glm-5.3", "object": "model"}]}


def test_sdk_finds_the_leak_streamed_and_not(
    probe: Callable[..., Any], leaky_lab: str, tmp_path: Path
) -> None:
    out = tmp_path / "p.json"
    result = probe(leaky_lab, *BOUNDARY, "--json", str(out), **SDK)
    assert result.exit_code == 1, result.output
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["settings"]["transport"] == "openai"
    hit_ids = {h["request_id"] for h in doc["hits"]}
    streams = {r["stream"] for r in doc["requests"] if r["id"] in hit_ids}
    assert streams == {True, False} and doc["stats"]["hits"] == 12


def test_sdk_sees_rejections_on_the_fixed_lab(
    probe: Callable[..., Any], fixed_lab: str, tmp_path: Path
) -> None:
    out = tmp_path / "p.json"
    result = probe(fixed_lab, *BOUNDARY, "--json", str(out), **SDK)
    assert result.exit_code == 0, result.output
    stats = json.loads(out.read_text(encoding="utf-8"))["stats"]
    assert stats["rejected"] == 12 and stats["hits"] == 0


def test_sdk_errors_read_like_the_httpx_ones(probe: Callable[..., Any]) -> None:
    url = closed_port_url()
    result = probe(url, **SDK)
    assert result.exit_code == 2
    assert f"cannot reach {url}/models: connection refused" in result.stderr
    with run_lab_server(LabConfig(api_keys=frozenset({"nobody"}), **SMALL_LAB)) as base:
        result = probe(base, **SDK)
    assert result.exit_code == 2 and "TEST_KEY_A (account A)" in result.stderr

    def garbage(method: str, path: str, body: dict[str, Any]) -> Reply:
        if path.endswith("/models"):
            return json_reply(200, MODELS)
        return 200, {"Content-Type": "application/json"}, b"not json at all"

    with scripted_server(garbage) as base:
        result = probe(base, **SDK)
    assert result.exit_code == 2 and "is not JSON: 'not json at all'" in result.stderr


def test_sdk_honours_retry_after(probe: Callable[..., Any], tmp_path: Path) -> None:
    lock, seen = threading.Lock(), {"n": 0}

    def script(method: str, path: str, body: dict[str, Any]) -> Reply:
        if path.endswith("/models"):
            return json_reply(200, MODELS)
        with lock:
            seen["n"] += 1
            first = seen["n"] == 1
        if first:
            return json_reply(429, {"error": {"message": "later"}}, {"Retry-After": "0"})
        return json_reply(200, completion("fine"))

    out = tmp_path / "p.json"
    with scripted_server(script) as base:
        result = probe(base, "--rounds", "1", "--stream", "off", "--json", str(out), **SDK)
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text(encoding="utf-8"))["requests"][0]["retries"] == 1


def test_sdk_times_the_first_token_of_a_cache_audit(
    probe: Callable[..., Any], tmp_path: Path
) -> None:
    """`--transport openai` streams through the SDK and times the first text-bearing event, so
    the cache audit's second KS signal (time to first token) is there as with httpx."""
    out = tmp_path / "cache.json"
    lab = LabConfig(pool_tokens=256, prefix_cache="shared", report_cached_tokens=True)
    with run_lab_server(lab) as base:
        result = probe(base, "--mode", "cache", "--samples", "16", "--prompt-tokens", "64",
                       "--yes", "--json", str(out), **SDK)  # fmt: skip
    assert result.exit_code == 1, result.output
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["settings"]["transport"] == "openai" and doc["settings"]["stream"]
    for level in doc["levels"]:
        assert len(level["hit_ttft_ms"]) == len(level["hit_ms"]) == 16
        assert len(level["miss_ttft_ms"]) == 16 and level["ttft_p_value"] is not None
        # the first token comes before the stream ends
        assert all(t <= w for t, w in zip(level["hit_ttft_ms"], level["hit_ms"], strict=True))
