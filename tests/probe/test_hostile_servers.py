"""Endpoints that never stop answering, oversized answers and keys that cannot be sent.

Before the bounds, `probe` against a server streaming an endless non-SSE body ignored
``--timeout`` and grew by 140 MB/s; a key holding CR/LF was echoed into stderr and --json
(``Illegal header value b'Bearer ...'``) and a non-ASCII key was a traceback.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from assess.probe.transport import limits
from assess.probe.transport.limits import Limits, ResponseLimit
from tests.probe.conftest import KEY_A
from tests.probe.servers import Reply, completion, json_reply, scripted_server, socket_server


@contextmanager
def endless_server(content_type: str, prefix: bytes, chunk: bytes) -> Iterator[str]:
    """Serve /models normally and answer every POST with ``prefix`` then ``chunk`` forever
    (until the client hangs up); yield the /v1 base URL."""

    def answer(conn: socket.socket, stop: threading.Event) -> None:
        head = f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nConnection: close\r\n\r\n"
        try:
            conn.sendall(head.encode() + prefix)
            while not stop.is_set():
                conn.sendall(chunk)
        except OSError:  # the client cut the answer off: what is being tested
            return

    with socket_server(answer) as base_url:
        yield base_url


@pytest.mark.parametrize("transport", ["httpx", "openai"])
@pytest.mark.parametrize(
    ("stream", "ctype", "prefix"),
    [
        ("off", "application/json", b'{"choices": [{"message": {"content": "'),
        ("on", "application/json", b'{"choices": ['),  # not SSE although asked to stream
        ("on", "text/event-stream", b'data: {"choices": [{"delta": {"content": "'),  # no newline
    ],
)
def test_an_endless_answer_is_cut_off_at_the_byte_cap(
    probe: Callable[..., Any],
    tmp_path: Path,
    transport: str,
    stream: str,
    ctype: str,
    prefix: bytes,
) -> None:
    out = tmp_path / "p.json"
    with endless_server(ctype, prefix, b"x" * 65536) as base:
        result = probe(
            base,
            "--rounds",
            "1",
            "--probes-per-round",
            "1",
            "--stream",
            stream,
            "--json",
            str(out),
            transport=transport,
        )
    assert result.exit_code == 2, result.output
    doc = json.loads(out.read_text())
    error = doc["errors"][0]
    assert error["kind"] == "garbage" and error["fatal"] is True
    assert f"went past {limits.MAX_RESPONSE_BYTES:,} bytes" in error["message"]
    assert doc["leak_found"] is False and doc["complete"] is False


def test_the_wall_clock_deadline_is_checked_at_every_chunk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [100.0]
    monkeypatch.setattr(limits.time, "monotonic", lambda: now[0])
    bound = Limits()
    bound.arm(10)
    chunks = iter(bound.wrap(iter([b"a", b"b", b"c"])))
    assert next(chunks) == b"a"
    now[0] = 109.9
    assert next(chunks) == b"b"
    now[0] = 110.1
    with pytest.raises(ResponseLimit, match="still arriving after 10 s") as caught:
        next(chunks)
    assert caught.value.kind == "deadline"


def test_the_deadline_belongs_to_the_thread_that_armed_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [0.0]
    monkeypatch.setattr(limits.time, "monotonic", lambda: now[0])
    bound = Limits()
    bound.arm(1)
    seen: list[str] = []

    def other() -> None:  # armed later with its own budget: not cut by the first one's
        bound.arm(100)
        now[0] = 50.0
        bound.check(1)
        seen.append("ok")

    worker = threading.Thread(target=other)
    worker.start()
    worker.join()
    assert seen == ["ok"]
    with pytest.raises(ResponseLimit):
        bound.check(1)


@pytest.mark.parametrize(
    "bad", ["sk-abc\r\nX-Injected: 1", "sk-abc\ndef", "sk-clé-secrète", "sk-abc def"]
)
def test_a_key_an_http_header_cannot_carry_is_refused_before_any_request(
    probe: Callable[..., Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, bad: str
) -> None:
    monkeypatch.setenv("TEST_KEY_A", bad)
    out = tmp_path / "p.json"
    result = probe("http://127.0.0.1:9/v1", "--json", str(out))
    assert result.exit_code == 2
    assert "TEST_KEY_A" in result.output
    assert "Traceback" not in result.output
    for part in ("sk-abc", "clé", "secrète", "X-Injected", "def"):
        assert part not in result.output
    assert not out.exists()


@pytest.mark.parametrize("status", [200, 401, 500])
def test_credentials_in_the_base_url_reach_no_output(
    probe: Callable[..., Any], tmp_path: Path, status: int
) -> None:
    def script(method: str, path: str, body: dict[str, Any]) -> Reply:
        if path.endswith("/models"):
            return json_reply(200, {"data": [{"id": "lab-glm-5.3"}]})
        if status != 200:
            return json_reply(status, {"error": {"message": "no"}})
        return json_reply(200, completion("nothing planted here"))

    out, junit = tmp_path / "p.json", tmp_path / "p.xml"
    with scripted_server(script) as plain:
        base = plain.replace("http://", "http://probe-user:hunter2-secret@")
        result = probe(
            base, "--rounds", "1", "--max-errors", "1", "--json", str(out), "--junit", str(junit)
        )
    texts = [result.output, out.read_text(), junit.read_text()]
    for text in texts:
        assert "hunter2-secret" not in text
        assert "probe-user" not in text
        assert KEY_A not in text
    assert json.loads(texts[1])["endpoint"] == plain


def test_a_base_url_with_credentials_is_not_echoed_when_refused(
    probe: Callable[..., Any],
) -> None:
    result = probe("ftp://probe-user:hunter2-secret@example.invalid/v1")
    assert result.exit_code == 2
    assert "hunter2-secret" not in result.output and "ftp://example.invalid/v1" in result.output


def test_a_server_that_refuses_every_request_is_inconclusive_not_clean(
    probe: Callable[..., Any], tmp_path: Path
) -> None:
    """Issue 17: HTTP 400 to every request, plants included, was "no leak found ... below
    16.2%", exit 0, though nothing was tested."""

    def script(method: str, path: str, body: dict[str, Any]) -> Reply:
        if path.endswith("/models"):
            return json_reply(200, {"data": [{"id": "lab-glm-5.3"}]})
        return json_reply(400, {"error": {"message": "bad request"}})

    out = tmp_path / "p.json"
    with scripted_server(script, echo=False) as base:  # the echo control refused too
        result = probe(base, "--rounds", "3", "--json", str(out))
    assert result.exit_code == 2
    assert "INCONCLUSIVE" in result.output and "none of the 3 plant requests" in result.output
    assert "HTTP 400" in result.output
    assert "no leak found" not in result.output.lower()
    doc = json.loads(out.read_text())
    assert doc["leak_found"] is False and doc["markers"] == []
    assert doc["stats"]["probes"] == 0 and doc["stats"]["leak_rate_upper_95"] is None
    assert {r["outcome"] for r in doc["requests"]} == {"rejected"}


def test_only_accepted_plants_are_markers(probe: Callable[..., Any], tmp_path: Path) -> None:
    """Plants refused in rounds 1-2 and accepted in round 3: only round 3's marker is scanned
    for, so probes before it are not counted as clean evidence."""
    from assess.probe.run import ProbeAccount, ProbeConfig, ProbeRunner
    from assess.probe.transport.interface import ChatResponse

    class Fake:
        def list_models(self) -> list[str]:
            return ["m"]

        def chat(self, request: Any) -> ChatResponse:
            planted = runner.state.requests
            is_plant = len(planted) % (cfg.probes_per_round + 2) == 0
            refused = is_plant and len(planted) < 2 * (cfg.probes_per_round + 2)
            return ChatResponse(
                status=400 if refused else 200,
                fields={"content": "nothing"},
                raw="{}",
                latency_ms=1.0,
                retries=0,
                prompt_tokens=None,
                completion_tokens=None,
            )

        def close(self) -> None:
            return None

    cfg = ProbeConfig("http://127.0.0.1:9/v1", "m", rounds=3, probes_per_round=2)
    a = ProbeAccount("A", "K", KEY_A)
    b = ProbeAccount("B", "K", KEY_A, "fresh client")
    runner = ProbeRunner(cfg, a, b)
    fake = Fake()
    runner.transports = {"A": fake, "B": fake}  # type: ignore[dict-item]
    state = runner.run()
    assert [m.id for m, _, _ in state.markers] == [state.markers[0][0].id]
    assert len(state.markers) == 1
    # round 3 only: its 2 probes and its follow-up are scanned; rounds 1-2 had nothing planted
    assert len(state.scanned) == 3
