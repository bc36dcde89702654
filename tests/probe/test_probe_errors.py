"""`assess probe` when the endpoint misbehaves: clear exit-2 messages, retries, partial output."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assess.lab.engine import LabConfig
from assess.lab.server import run_lab_server
from tests.probe.conftest import KEY_A, SMALL_LAB
from tests.probe.servers import Reply, closed_port_url, completion, json_reply, scripted_server

MODELS = {"object": "list", "data": [{"id": "lab-glm-5.3", "object": "model"}]}


def _load(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8")))


def test_closed_port_is_exit_2_naming_the_url(probe: Callable[..., Any], tmp_path: Path) -> None:
    url = closed_port_url()
    out = tmp_path / "p.json"
    result = probe(url, "--json", str(out))
    assert result.exit_code == 2
    assert f"cannot reach {url}/models: connection refused" in result.stderr
    assert "Check --base-url" in result.stderr
    assert "Traceback" not in result.stderr
    doc = _load(out)  # still written, marked incomplete
    assert doc["complete"] is False and doc["errors"][0]["kind"] == "connect"


def test_auth_failure_names_the_env_var_to_check(probe: Callable[..., Any]) -> None:
    with run_lab_server(LabConfig(api_keys=frozenset({"only-this-key"}), **SMALL_LAB)) as base:
        result = probe(base)
    assert result.exit_code == 2
    assert "authentication failed (HTTP 401)" in result.stderr
    assert "TEST_KEY_A (account A)" in result.stderr


def test_auth_failure_of_the_second_account_names_its_variable(
    probe: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_KEY_A", "only-this-key")
    with run_lab_server(LabConfig(api_keys=frozenset({"only-this-key"}), **SMALL_LAB)) as base:
        result = probe(base)
    assert result.exit_code == 2
    assert "TEST_KEY_B (account B)" in result.stderr


def test_garbage_json_is_exit_2_with_an_excerpt(probe: Callable[..., Any]) -> None:
    def script(method: str, path: str, body: dict[str, Any]) -> Reply:
        return 200, {"Content-Type": "application/json"}, b"<html>Bad gateway{{{"

    with scripted_server(script) as base:
        result = probe(base)
    assert result.exit_code == 2
    assert "is not JSON: '<html>Bad gateway{{{'" in result.stderr
    assert "OpenAI-compatible API" in result.stderr


def test_json_that_is_not_a_chat_completion_is_garbage_too(probe: Callable[..., Any]) -> None:
    def script(method: str, path: str, body: dict[str, Any]) -> Reply:
        if path.endswith("/models"):
            return json_reply(200, MODELS)
        return json_reply(200, {"hello": "world"})

    with scripted_server(script) as base:
        result = probe(base)
    assert result.exit_code == 2
    assert "is not a chat completion (JSON without a 'choices' list)" in result.stderr


def test_missing_env_var_is_exit_2_naming_it(
    probe: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TEST_KEY_B")
    result = probe(closed_port_url())
    assert result.exit_code == 2
    assert "--second-api-key-env: environment variable TEST_KEY_B is not set" in result.stderr
    assert "export TEST_KEY_B=" in result.stderr


def test_unknown_model_is_exit_2_listing_what_exists(probe: Callable[..., Any]) -> None:
    with run_lab_server(LabConfig(model="other-model", **SMALL_LAB)) as base:
        result = probe(base)
    assert result.exit_code == 2
    assert "does not offer 'lab-glm-5.3'" in result.stderr and "other-model" in result.stderr


@pytest.mark.parametrize(
    "args,message",
    [
        (("--fragment-chars", "4"), "--fragment-chars: must be 6..32"),
        (("--rounds", "0"), "--rounds: must be at least 1"),
        (("--stream", "sometimes"), "--stream: 'sometimes' is not one of"),
    ],
)
def test_bad_options_are_exit_2(
    probe: Callable[..., Any], args: tuple[str, ...], message: str
) -> None:
    result = probe(closed_port_url(), *args)
    assert result.exit_code == 2 and message in result.stderr


def test_429_with_retry_after_is_honoured(probe: Callable[..., Any], tmp_path: Path) -> None:
    lock = threading.Lock()
    seen = {"chat": 0}

    def script(method: str, path: str, body: dict[str, Any]) -> Reply:
        if path.endswith("/models"):
            return json_reply(200, MODELS)
        with lock:
            seen["chat"] += 1
            first = seen["chat"] == 1
        if first:
            return json_reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "0"})
        return json_reply(200, completion("a plain answer"))

    out = tmp_path / "p.json"
    with scripted_server(script) as base:
        result = probe(base, "--rounds", "1", "--stream", "off", "--json", str(out))
    assert result.exit_code == 0, result.output
    doc = _load(out)
    assert not any(r["stream"] for r in doc["requests"])
    assert doc["requests"][0]["retries"] == 1 and doc["requests"][0]["status"] == 200
    assert doc["complete"] is True and seen["chat"] == 7


def test_retries_are_bounded(probe: Callable[..., Any], tmp_path: Path) -> None:
    def script(method: str, path: str, body: dict[str, Any]) -> Reply:
        if path.endswith("/models"):
            return json_reply(200, MODELS)
        return json_reply(429, {"error": {"message": "no"}}, {"Retry-After": "0"})

    out = tmp_path / "p.json"
    with scripted_server(script) as base:
        result = probe(base, "--max-retries", "2", "--max-errors", "2", "--json", str(out))
    assert result.exit_code == 2
    assert "the run stopped early (" in result.stderr  # in-flight probes may add errors
    doc = _load(out)
    assert doc["complete"] is False and len(doc["errors"]) >= 2
    assert doc["requests"][0]["retries"] == 2 and doc["requests"][0]["outcome"] == "error"
    assert "still answered HTTP 429 after 2 retries" in doc["errors"][0]["message"]


def test_repeated_server_errors_stop_the_run_and_keep_what_it_has(
    probe: Callable[..., Any], tmp_path: Path
) -> None:
    def script(method: str, path: str, body: dict[str, Any]) -> Reply:
        if path.endswith("/models"):
            return json_reply(200, MODELS)
        if "remember" in json.dumps(body) or "reference" in json.dumps(body):
            return json_reply(200, completion("noted"))
        return json_reply(500, {"error": {"message": "boom"}})

    out, junit = tmp_path / "p.json", tmp_path / "p.xml"
    with scripted_server(script) as base:
        result = probe(base, "--json", str(out), "--junit", str(junit))
    assert result.exit_code == 2
    doc = _load(out)
    assert doc["complete"] is False and doc["leak_found"] is False
    assert doc["requests"][0]["outcome"] == "ok"
    assert [e["kind"] for e in doc["errors"]][:4] == ["server"] * 4
    assert "run incomplete" in junit.read_text(encoding="utf-8")


def test_fragment_of_a_marker_is_a_hit(probe: Callable[..., Any], tmp_path: Path) -> None:
    """A server that replays 12 characters of the longest word it saw in the previous request."""
    lock = threading.Lock()
    last: dict[str, str] = {"word": ""}

    def script(method: str, path: str, body: dict[str, Any]) -> Reply:
        if path.endswith("/models"):
            return json_reply(200, MODELS)
        prompt = body["messages"][0]["content"]
        with lock:
            earlier, last["word"] = last["word"], max(prompt.split(), key=len)
        return json_reply(200, completion(f"partial recall: {earlier[10:22]} ..."))

    out = tmp_path / "p.json"
    with scripted_server(script) as base:
        result = probe(
            base,
            "--rounds",
            "1",
            "--probes-per-round",
            "1",
            "--stream",
            "off",
            "--json",
            str(out),
        )
    assert result.exit_code == 1, result.output
    (hit,) = _load(out)["hits"]
    assert hit["match"] == "fragment" and hit["chars"] == 12 and hit["request_id"] == "r0002"


def test_ctrl_c_writes_partial_results_marked_incomplete(tmp_path: Path) -> None:
    """A real SIGINT while a probe is in flight: the run stops and still writes its JSON."""
    arrived, release = threading.Event(), threading.Event()

    def script(method: str, path: str, body: dict[str, Any]) -> Reply:
        if path.endswith("/models"):
            return json_reply(200, MODELS)
        if "reference" not in body["messages"][0]["content"]:
            arrived.set()
            release.wait(timeout=30)
        return json_reply(200, completion("ok"))

    out = tmp_path / "p.json"
    env = {**os.environ, "TEST_KEY_A": KEY_A}
    with scripted_server(script) as base:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "assess",
                "probe",
                "--base-url",
                base,
                "--model",
                "lab-glm-5.3",
                "--api-key-env",
                "TEST_KEY_A",
                "--json",
                str(out),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            assert arrived.wait(timeout=30)
            proc.send_signal(signal.SIGINT)
        finally:
            release.set()
        stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 2, stderr
    assert "stopped early (interrupted)" in stderr and "Traceback" not in stderr
    doc = _load(out)
    assert doc["complete"] is False
    assert any(e["kind"] == "interrupted" for e in doc["errors"])
    assert doc["requests"][0]["role"] == "plant"


def test_a_plain_web_server_is_not_taken_for_an_api(probe: Callable[..., Any]) -> None:
    def script(method: str, path: str, body: dict[str, Any]) -> Reply:
        if method == "GET":
            return 404, {"Content-Type": "text/html"}, b"<html>Not Found</html>"
        return 501, {"Content-Type": "text/html"}, b"<html>Unsupported method ('POST')</html>"

    with scripted_server(script) as base:
        result = probe(base)
    assert result.exit_code == 2
    assert "HTTP 501 to a POST: this is not a chat-completions endpoint" in result.stderr


def test_per_request_timeout(probe: Callable[..., Any], tmp_path: Path) -> None:
    release = threading.Event()

    def script(method: str, path: str, body: dict[str, Any]) -> Reply:
        if path.endswith("/models"):
            return json_reply(200, MODELS)
        release.wait(timeout=30)  # never answers in time
        return json_reply(200, completion("too late"))

    out = tmp_path / "p.json"
    try:
        with scripted_server(script) as base:
            result = probe(base, "--timeout", "0.3", "--max-errors", "1", "--json", str(out))
            release.set()
    finally:
        release.set()
    assert result.exit_code == 2
    doc = _load(out)
    assert doc["errors"][0]["kind"] == "timeout"
    assert "no answer within 0.3 s" in doc["errors"][0]["message"]
    assert doc["complete"] is False and len(doc["requests"]) == 1


def test_403_on_chat_is_an_auth_failure_too(probe: Callable[..., Any]) -> None:
    def script(method: str, path: str, body: dict[str, Any]) -> Reply:
        if path.endswith("/models"):
            return json_reply(200, MODELS)
        return json_reply(403, {"error": {"message": "model not enabled for this account"}})

    with scripted_server(script) as base:
        result = probe(base)
    assert result.exit_code == 2
    assert "chat/completions: authentication failed (HTTP 403)" in result.stderr
    assert "TEST_KEY_A (account A)" in result.stderr


@pytest.mark.parametrize("option", ["--json", "--junit"])
def test_unwritable_output_fails_before_anything_is_sent(
    probe: Callable[..., Any], tmp_path: Path, option: str
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    # A closed port: the output path is checked first, so the endpoint is never contacted.
    result = probe(closed_port_url(), option, str(blocker / "out"))
    assert result.exit_code == 2
    assert f"{option} {blocker / 'out'}: cannot write here" in result.stderr
    assert "Nothing was sent" in result.stderr
    assert "cannot reach" not in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("url", ["notaurl", "ftp://127.0.0.1:1/v1", "http:///v1"])
def test_base_url_that_is_not_http_is_exit_2(probe: Callable[..., Any], url: str) -> None:
    result = probe(url)
    assert result.exit_code == 2
    assert f"--base-url '{url}': not an http:// or https:// URL" in result.stderr


def test_broken_exchange_on_the_model_list_is_exit_2_not_a_clean_run(
    probe: Callable[..., Any], tmp_path: Path
) -> None:
    """A server that hangs up at once: the run must not end 'complete' with 0 probes, exit 0."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.1)
    port = listener.getsockname()[1]
    done = threading.Event()

    def hang_up() -> None:
        while not done.is_set():
            try:
                conn, _addr = listener.accept()
            except OSError:
                continue
            conn.close()

    thread = threading.Thread(target=hang_up, daemon=True)
    thread.start()
    try:
        out = tmp_path / "p.json"
        result = probe(f"http://127.0.0.1:{port}/v1", "--json", str(out))
    finally:
        done.set()
        thread.join(timeout=10)
        listener.close()
    assert result.exit_code == 2
    assert "broken HTTP exchange" in result.stderr
    doc = _load(out)
    assert doc["complete"] is False and doc["errors"][0]["fatal"] is True


def test_every_request_failing_is_exit_2_even_under_max_errors(
    probe: Callable[..., Any], tmp_path: Path
) -> None:
    def script(method: str, path: str, body: dict[str, Any]) -> Reply:
        if path.endswith("/models"):
            return json_reply(200, MODELS)
        return json_reply(500, {"error": {"message": "boom"}})

    out, junit = tmp_path / "p.json", tmp_path / "p.xml"
    with scripted_server(script) as base:
        result = probe(
            base, "--rounds", "1", "--max-errors", "50", "--json", str(out), "--junit", str(junit)
        )
    assert result.exit_code == 2
    assert "no probe response could be scanned (6 failed requests)" in result.stderr
    assert _load(out)["stats"]["probes"] == 0
    assert 'message="nothing scanned"' in junit.read_text(encoding="utf-8")
