"""Issue 36, items 16, 17 and 18: secrets in every encoding, query-string credentials, redirects.

Before: a key holding ``/+=`` echoed URL-encoded or JSON-escaped by the endpoint reached --json,
--junit and stderr (only the exact string was redacted); ``--base-url ...?api-key=...`` was
printed everywhere and ``/models`` was appended after the query string; ``--transport openai``
followed redirects (a 307 to another host was answered there; a 301 turned the POST into a GET
and gave "clean" probes, exit 0).
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import pytest
from typer.testing import CliRunner

from assess.cli import app
from assess.probe.transport.secrets import join_url, redact_secret, strip_credentials
from tests.probe.servers import Reply, completion, json_reply, scripted_server

MODELS = {"object": "list", "data": [{"id": "lab-glm-5.3"}]}
KEY = "sk-live/Ab+Cd==Ef/9+Zz/Qx="
QUERY_SECRET = "qs-Secret/Value+9=="


def _forms(secret: str) -> list[str]:
    raw = secret.encode()
    return [
        secret,
        quote(secret, safe=""),
        re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), quote(secret, safe="")),
        quote_plus(secret),
        json.dumps(secret)[1:-1].replace("/", "\\/"),
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
    ]


def _run(base: str, tmp_path: Path, transport: str, *extra: str) -> tuple[Any, str]:
    out, junit = tmp_path / "p.json", tmp_path / "p.xml"
    result = CliRunner(env={"K36": KEY}).invoke(
        app,
        ["probe", "--base-url", base, "--model", "lab-glm-5.3", "--api-key-env", "K36",
         "--transport", transport, "--rounds", "1", "--max-errors", "20", "--stream", "off",
         "--json", str(out), "--junit", str(junit), *extra],
        catch_exceptions=False,
    )  # fmt: skip
    outputs = result.stdout + result.stderr + out.read_text() + junit.read_text()
    return result, outputs


def test_redaction_covers_every_form() -> None:
    for form in _forms(KEY):
        assert form not in redact_secret(f"echo: {form} end", KEY)


@pytest.mark.parametrize("transport", ["httpx", "openai"])
def test_an_echoed_key_in_any_encoding_reaches_no_output(tmp_path: Path, transport: str) -> None:
    forms = _forms(KEY)
    count = [0]

    def script(method: str, path: str, body: dict[str, Any]) -> Reply:
        if method == "GET":
            return json_reply(200, MODELS)
        count[0] += 1
        form = forms[count[0] % len(forms)]
        return json_reply(500, {"error": {"message": f"key {form} is not allowed"}})

    with scripted_server(script) as base:
        result, outputs = _run(base, tmp_path, transport, "--rounds", "2")
    assert result.exit_code == 2
    assert count[0] >= len(forms)
    for form in forms:
        assert form not in outputs, form
    assert "[redacted]" in outputs


@pytest.mark.parametrize("transport", ["httpx", "openai"])
def test_query_string_credentials_are_used_and_never_shown(tmp_path: Path, transport: str) -> None:
    seen: list[tuple[str, str]] = []

    def script(method: str, path: str, body: dict[str, Any]) -> Reply:
        seen.append((method, path))
        if method == "GET":
            return json_reply(200, MODELS)
        return json_reply(200, completion("noted"))

    with scripted_server(script) as base:
        url = f"{base}?api-key={quote(QUERY_SECRET, safe='')}"
        result, outputs = _run(url, tmp_path, transport)
    assert result.exit_code == 0, result.output
    encoded = quote(QUERY_SECRET, safe="")
    assert {p for m, p in seen if m == "GET"} == {f"/v1/models?api-key={encoded}"}
    assert {p for m, p in seen if m == "POST"} == {f"/v1/chat/completions?api-key={encoded}"}
    for form in _forms(QUERY_SECRET):
        assert form not in outputs, form
    assert "api-key=[redacted]" in outputs


def test_urls_keep_the_query_after_the_path() -> None:
    assert join_url("http://h/v1?k=1", "models") == "http://h/v1/models?k=1"
    assert join_url("http://h/v1/", "chat/completions") == "http://h/v1/chat/completions"
    shown = strip_credentials("https://u:p@h/v1?api-key=s3cret&x")
    assert shown == "https://h/v1?api-key=[redacted]&x"


@pytest.mark.parametrize("transport", ["httpx", "openai"])
@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_redirects_are_failures_on_both_transports(
    tmp_path: Path, transport: str, status: int
) -> None:
    elsewhere: list[str] = []

    def other(method: str, path: str, body: dict[str, Any]) -> Reply:
        elsewhere.append(f"{method} {path}")
        if method == "GET":
            return json_reply(200, MODELS)
        return json_reply(200, completion("answered elsewhere"))

    with scripted_server(other) as target:

        def script(method: str, path: str, body: dict[str, Any]) -> Reply:
            if method == "GET":
                return json_reply(200, MODELS)
            location = target.replace("127.0.0.1", "localhost") + "/chat/completions"
            return status, {"Location": location, "Content-Type": "text/plain"}, b""

        with scripted_server(script) as base:
            result, outputs = _run(base, tmp_path, transport)
    assert result.exit_code == 2, result.output
    assert not elsewhere  # never answered on another host
    doc = json.loads((tmp_path / "p.json").read_text())
    assert doc["verdict"] == "inconclusive" and doc["stats"]["probes"] == 0
    assert doc["errors"][0]["kind"] == "redirect"
    assert f"HTTP {status} redirect to http://localhost:" in doc["errors"][0]["message"]
