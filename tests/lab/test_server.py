"""The lab over real HTTP on 127.0.0.1: OpenAI-shaped answers, SSE, auth, and the CLI."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import httpx

from assess.lab.engine import LabConfig
from assess.lab.server import STREAM_CHUNK_CHARS, run_lab_server

KEY = {"Authorization": "Bearer lab-key-a"}
SECRET = "kv9-averylongmarkerwordforthelab"


def _chat(base: str, prompt: str, stream: bool = False, key: str = "lab-key-a") -> httpx.Response:
    return httpx.post(
        f"{base}/chat/completions",
        headers={"Authorization": f"Bearer {key}"},
        json={
            "model": "lab-glm-5.3",
            "messages": [{"role": "user", "content": prompt}],
            "stream": stream,
        },
    )


def test_models_lists_the_lab_model_and_needs_a_key() -> None:
    with run_lab_server(LabConfig()) as base:
        ok = httpx.get(f"{base}/models", headers=KEY)
        assert ok.status_code == 200
        assert [m["id"] for m in ok.json()["data"]] == ["lab-glm-5.3"]
        assert httpx.get(f"{base}/models").status_code == 401


def test_allowed_keys_refuse_others_with_openai_shaped_401() -> None:
    with run_lab_server(LabConfig(api_keys=frozenset({"good"}))) as base:
        bad = _chat(base, "hello", key="bad")
        assert bad.status_code == 401
        assert bad.json()["error"]["code"] == "invalid_api_key"
        assert _chat(base, "hello", key="good").status_code == 200


def test_faulty_lab_leaks_across_tenants_with_http_200() -> None:
    with run_lab_server(LabConfig()) as base:
        plant = _chat(base, f"remember {SECRET} please", key="tenant-a")
        assert SECRET in plant.json()["choices"][0]["message"]["content"]
        leak = _chat(base, " ".join(["filler"] * 400), key="tenant-b")
        assert leak.status_code == 200
        body = leak.json()
        assert SECRET in body["choices"][0]["message"]["content"]
        assert body["usage"]["prompt_tokens"] == 400


def test_fixed_lab_answers_400_for_over_length_prompts() -> None:
    with run_lab_server(LabConfig(fixed=True)) as base:
        _chat(base, f"remember {SECRET} please", key="tenant-a")
        rejected = _chat(base, " ".join(["filler"] * 400), key="tenant-b")
        assert rejected.status_code == 400
        assert rejected.json()["error"]["code"] == "prompt_exceeds_kv_pool"
        assert SECRET not in rejected.text


def test_stream_sends_small_deltas_that_join_to_the_reply() -> None:
    with run_lab_server(LabConfig()) as base:
        resp = _chat(base, f"remember {SECRET} please", stream=True)
        assert resp.headers["content-type"].startswith("text/event-stream")
        events = [ln[6:] for ln in resp.text.splitlines() if ln.startswith("data: ")]
        assert events[-1] == "[DONE]"
        deltas = [json.loads(e)["choices"][0]["delta"].get("content", "") for e in events[:-1]]
        assert all(len(d) <= STREAM_CHUNK_CHARS for d in deltas)
        assert SECRET in "".join(deltas)
        assert not any(SECRET in d for d in deltas)  # the marker spans several deltas


def test_unknown_model_and_route_are_404() -> None:
    with run_lab_server(LabConfig()) as base:
        resp = httpx.post(
            f"{base}/chat/completions",
            headers=KEY,
            json={"model": "nope", "messages": [{"role": "user", "content": "hi"}]},
        )
        assert resp.status_code == 404 and resp.json()["error"]["code"] == "model_not_found"
        assert httpx.get(f"{base}/nothing", headers=KEY).status_code == 404


def test_cli_serve_prints_a_machine_readable_first_line_and_serves() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "assess", "lab", "serve", "--port", "0", "--fixed", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().strip()
        assert first.startswith("LAB_BASE_URL=http://127.0.0.1:")
        base = first.split("=", 1)[1]
        assert "mode fixed" in proc.stdout.readline()
        assert httpx.get(f"{base}/models", headers=KEY).status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_cli_refuses_impossible_sizes(run_cli: object) -> None:
    result = run_cli("lab", "serve", "--page-tokens", "64", "--pool-tokens", "32")  # type: ignore[operator]
    assert result.exit_code == 2
    assert "pool_tokens >= page_tokens" in result.stderr


def test_malformed_max_tokens_and_content_length_get_a_400_not_a_dropped_connection() -> None:
    with run_lab_server(LabConfig()) as base:
        for bad in ("abc", [1], -2, 2.5, True):
            resp = httpx.post(
                f"{base}/chat/completions",
                headers=KEY,
                json={
                    "model": "lab-glm-5.3",
                    "messages": [{"role": "user", "content": "hi"}],
                    "max_tokens": bad,
                },
            )
            assert resp.status_code == 400, bad
            assert "max_tokens must be a positive integer" in resp.json()["error"]["message"]
        host, port = base.split("//")[1].split("/")[0].split(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(
                b"POST /v1/chat/completions HTTP/1.1\r\nHost: lab\r\n"
                b"Authorization: Bearer lab-key-a\r\nContent-Length: abc\r\n\r\n{}"
            )
            reply = sock.makefile("rb").read()
        assert reply.startswith(b"HTTP/1.1 400 ")
        assert b"Content-Length must be" in reply
        assert _chat(base, "still serving").status_code == 200


def test_cli_refuses_a_port_out_of_range_without_a_traceback(run_cli: object) -> None:
    result = run_cli("lab", "serve", "--port", "99999")  # type: ignore[operator]
    assert result.exit_code == 2
    assert "--port 99999: must be 0..65535" in result.stderr
