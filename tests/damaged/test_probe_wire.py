"""Issue 36, items 13 and 14 (probe part): broken and inflating answers on the wire.

Before: a body shorter than its Content-Length raised httpx's RemoteProtocolError out of the run
(exit 1, the "leak" code, and no --json/--junit); the 4 MiB cap counted compressed bytes, so a
3.5 MB gzip body inflated to 7 GB of memory. Now the short body is a failed request like any
other transport error (partial results written, exit 2), and the cap counts inflated bytes for
gzip, deflate, br and zstd bodies alike, in both transports.
"""

from __future__ import annotations

import gzip
import json
import socket
import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import brotli  # type: ignore[import-untyped]
import pytest
import zstandard

from assess.probe.transport import limits
from tests.probe.conftest import keys, probe
from tests.probe.servers import socket_server

__all__ = ["keys", "probe"]  # the probe fixtures, shared with tests/probe


@contextmanager
def raw_server(post_reply: bytes, hold: bool = False) -> Iterator[str]:
    """Answer GET with the model list and every POST with ``post_reply`` as is, then hang up
    (or, with ``hold``, keep the connection open until the server stops: a stalled body)."""

    def answer(conn: socket.socket, stop: threading.Event) -> None:
        try:
            conn.sendall(post_reply)
        except OSError:
            return
        if hold:
            stop.wait()

    with socket_server(answer) as base_url:
        yield base_url


def _reply(body: bytes, encoding: str | None = None, length: int | None = None) -> bytes:
    head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
    if encoding:
        head += f"Content-Encoding: {encoding}\r\n"
    head += f"Content-Length: {len(body) if length is None else length}\r\n\r\n"
    return head.encode() + body


ANSWER = json.dumps({"choices": [{"message": {"content": "noted"}}]}).encode()


def _sse_reply(body: bytes, length: int) -> bytes:
    head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n"
    return f"{head}Content-Length: {length}\r\n\r\n".encode() + body


SSE_PART = b'data: {"choices": [{"delta": {"content": "no"}}]}\n\n'


@pytest.mark.parametrize("transport", ["httpx", "openai"])
@pytest.mark.parametrize(
    ("stream", "reply", "hold", "kind"),
    [
        ("off", _reply(ANSWER[:20], length=len(ANSWER) + 500), False, "protocol"),
        ("on", _sse_reply(SSE_PART, 500), False, "protocol"),
        ("both", _sse_reply(SSE_PART, 500), False, "protocol"),
        ("on", _sse_reply(SSE_PART, 500), True, "timeout"),
        ("off", _reply(ANSWER[:20], length=len(ANSWER) + 500), True, "timeout"),
    ],
)
def test_a_body_shorter_than_its_content_length_is_a_failed_request(
    probe: Callable[..., Any],
    tmp_path: Path,
    transport: str,
    stream: str,
    reply: bytes,
    hold: bool,
    kind: str,
) -> None:
    """Acc36 B1/m3: on --transport openai a short streamed body was a traceback with exit 1 and
    no --json/--junit, a stalled one likewise, and a short plain body a fatal `connect` error."""
    out, junit = tmp_path / "p.json", tmp_path / "p.xml"
    with raw_server(reply, hold=hold) as base:
        result = probe(
            base,
            "--rounds",
            "1",
            "--probes-per-round",
            "1",
            "--timeout",
            "1",
            "--max-errors",
            "2",
            "--stream",
            stream,
            "--json",
            str(out),
            "--junit",
            str(junit),
            transport=transport,
        )
    assert result.exit_code == 2, result.output
    doc = json.loads(out.read_text())  # the partial results, as the docs promise
    assert doc["complete"] is False and doc["verdict"] == "inconclusive"
    errors = doc["errors"]
    assert errors and {e["kind"] for e in errors} == {kind}, errors
    assert not any(e["fatal"] for e in errors)  # the run went on, stopped by --max-errors
    assert len(errors) > 1
    assert "<testsuite" in junit.read_text()


def _bomb(encoding: str) -> bytes:
    """A chat completion whose content is 16 MiB of 'a', compressed with ``encoding``."""
    body = b'{"choices": [{"message": {"content": "' + b"a" * (16 << 20) + b'"}}]}'
    if encoding == "gzip":
        return gzip.compress(body, 9)
    if encoding == "deflate":
        return zlib.compress(body, 9)
    if encoding == "br":
        return bytes(brotli.compress(body))
    return zstandard.ZstdCompressor(level=19).compress(body)


@pytest.mark.parametrize("transport", ["httpx", "openai"])
@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br", "zstd"])
def test_the_size_cap_counts_inflated_bytes(
    probe: Callable[..., Any], tmp_path: Path, encoding: str, transport: str
) -> None:
    data = _bomb(encoding)
    assert len(data) < limits.MAX_RESPONSE_BYTES // 8  # well under the cap as sent
    out = tmp_path / "p.json"
    with raw_server(_reply(data, encoding)) as base:
        result = probe(
            base,
            "--rounds",
            "1",
            "--stream",
            "off",
            "--json",
            str(out),
            transport=transport,
        )
    assert result.exit_code == 2, result.output
    error = json.loads(out.read_text())["errors"][0]
    assert f"went past {limits.MAX_RESPONSE_BYTES:,} bytes" in error["message"]


def test_a_small_compressed_answer_still_reads(probe: Callable[..., Any], tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    with raw_server(_reply(gzip.compress(ANSWER), "gzip")) as base:
        result = probe(base, "--rounds", "1", "--stream", "off", "--json", str(out))
    doc = json.loads(out.read_text())
    assert doc["stats"]["probes"] > 0 and doc["stats"]["unusable"] == 0  # every answer read
    assert all(r["carries_text"] for r in doc["requests"])
    # this server says "noted" to everything, the echo control too: no clean verdict
    assert doc["control"]["echoed"] is False and doc["verdict"] == "inconclusive"
    assert result.exit_code == 2, result.output
