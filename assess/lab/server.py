"""The lab's thin HTTP shell: an OpenAI-compatible API over :class:`~assess.lab.engine.LabEngine`.

Endpoints: ``GET /v1/models`` and ``POST /v1/chat/completions`` (``stream: true`` answers with
server-sent events, split into small deltas so a marker spans several of them). Tenants are
identified by their bearer key; the key itself is never logged, only a hash label.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from assess.lab.engine import Completion, LabConfig, LabEngine, LabRejected, tenant_id

STREAM_CHUNK_CHARS = 7
LogFn = Callable[[str], None]


def _prompt_of(messages: Any) -> str:
    """Return the text of every message, joined; raises ValueError on a malformed list."""
    if not isinstance(messages, list) or not messages:
        raise ValueError("'messages' must be a non-empty list")
    parts: list[str] = []
    for msg in messages:
        if not isinstance(msg, dict):
            raise ValueError("each message must be an object")
        content = msg.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(
                str(p.get("text", "")) for p in content if isinstance(p, dict) and "text" in p
            )
    return "\n".join(parts)


MAX_BODY_BYTES = 64 * 1024 * 1024  # far above any lab prompt; bounds what one request may hold


class LabHandler(BaseHTTPRequestHandler):
    """Request handler; the engine and log function hang off the server object."""

    server: LabHTTPServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # keep-alive replies in two writes would wait ~40 ms each

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib signature)
        return None  # access logs could carry nothing secret, but they are noise

    def _send_json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, err_type: str, code: str) -> None:
        self._send_json(
            status, {"error": {"message": message, "type": err_type, "param": None, "code": code}}
        )

    def _tenant(self) -> str | None:
        auth = self.headers.get("Authorization", "")
        key = auth[7:].strip() if auth.lower().startswith("bearer ") else ""
        allowed = self.server.engine.config.api_keys
        if not key or (allowed is not None and key not in allowed):
            self._error(
                401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key"
            )
            return None
        return tenant_id(key)

    def do_GET(self) -> None:  # noqa: N802 (stdlib naming)
        if self.path.rstrip("/") != "/v1/models":
            self._error(404, f"no route {self.path}", "invalid_request_error", "not_found")
            return
        if self._tenant() is None:
            return
        model = self.server.engine.config.model
        self._send_json(
            200,
            {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "lab"}]},
        )

    def do_POST(self) -> None:  # noqa: N802 (stdlib naming)
        raw = self._read_body()
        if raw is None:
            return
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._error(404, f"no route {self.path}", "invalid_request_error", "not_found")
            return
        tenant = self._tenant()
        if tenant is None:
            return
        request = self._parse_completion(raw)
        if request is None:
            return
        body, prompt, max_tokens = request
        try:
            done = self.server.engine.complete(tenant, prompt, max_tokens)
        except LabRejected as exc:
            self.server.log(f"{tenant} rejected: {exc.message}")
            self._error(400, exc.message, "invalid_request_error", exc.code)
            return
        self.server.log(
            f"{tenant} prompt={done.prompt_tokens} over_length={done.over_length} "
            f"stale_tokens={done.stale_tokens} from={','.join(done.stale_tenants) or '-'}"
            + ("" if done.cached_tokens is None else f" cached_tokens={done.cached_tokens}")
        )
        if done.delay_ms:
            self.server.sleep(done.delay_ms / 1000)  # the modelled prefill, before any byte
        self._send_completion(done, bool(body.get("stream")))

    def _read_body(self) -> bytes | None:
        """Return the request body; None once a bad Content-Length has been answered."""
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY_BYTES:
            self.close_connection = True  # the unread body cannot be skipped safely
            self._error(
                413 if length > MAX_BODY_BYTES else 400,
                f"bad request: Content-Length must be 0..{MAX_BODY_BYTES} bytes",
                "invalid_request_error",
                "bad_request",
            )
            return None
        return self.rfile.read(length) if length else b""

    def _parse_completion(self, raw: bytes) -> tuple[dict[str, Any], str, int | None] | None:
        """Return the body, prompt and max_tokens; None once a bad request has been answered."""
        try:
            body = json.loads(raw or b"{}")
            prompt = _prompt_of(body.get("messages"))
        except (ValueError, AttributeError) as exc:
            self._error(400, f"bad request: {exc}", "invalid_request_error", "bad_request")
            return None
        if body.get("model") != self.server.engine.config.model:
            self._error(
                404,
                f"The model '{body.get('model')}' does not exist.",
                "invalid_request_error",
                "model_not_found",
            )
            return None
        max_tokens = body.get("max_tokens") or body.get("max_completion_tokens")
        if max_tokens is not None and (
            not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1
        ):
            self._error(
                400,
                f"bad request: max_tokens must be a positive integer, not {max_tokens!r}"[:200],
                "invalid_request_error",
                "bad_request",
            )
            return None
        return body, prompt, max_tokens

    def _send_completion(self, done: Completion, stream: bool) -> None:
        """Answer with ``done``: as server-sent events when ``stream``, else one JSON body."""
        cid = "chatcmpl-" + uuid.uuid4().hex[:12]
        usage: dict[str, Any] = {
            "prompt_tokens": done.prompt_tokens,
            "completion_tokens": done.completion_tokens,
            "total_tokens": done.prompt_tokens + done.completion_tokens,
        }
        if done.cached_tokens is not None and self.server.engine.config.report_cached_tokens:
            usage["prompt_tokens_details"] = {"cached_tokens": done.cached_tokens}
        if stream:
            self._stream(cid, done.reply, usage)
            return
        self._send_json(
            200,
            {
                "id": cid,
                "object": "chat.completion",
                "created": int(time.time()),
                "model": self.server.engine.config.model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": done.reply},
                        "finish_reason": "stop",
                    }
                ],
                "usage": usage,
            },
        )

    def _stream(self, cid: str, reply: str, usage: dict[str, Any]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        model = self.server.engine.config.model

        def event(delta: dict[str, Any], finish: str | None = None) -> bytes:
            chunk = {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            if finish:
                chunk["usage"] = usage
            return b"data: " + json.dumps(chunk).encode("utf-8") + b"\n\n"

        self.wfile.write(event({"role": "assistant", "content": ""}))
        for start in range(0, len(reply), STREAM_CHUNK_CHARS):
            self.wfile.write(event({"content": reply[start : start + STREAM_CHUNK_CHARS]}))
        self.wfile.write(event({}, "stop"))
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


class LabHTTPServer(ThreadingHTTPServer):
    """A threading HTTP server that carries the lab engine and a log function."""

    daemon_threads = True
    # socketserver listens with a backlog of 5: at concurrency 32 the kernel's accept queue
    # overflowed and load tools saw resets. The kernel caps it at net.core.somaxconn (4096).
    request_queue_size = 1024

    def __init__(self, address: tuple[str, int], engine: LabEngine, log: LogFn) -> None:
        super().__init__(address, LabHandler)
        self.engine = engine
        self.log = log
        self.sleep: Callable[[float], None] = time.sleep  # a test may swap in a fake

    @property
    def base_url(self) -> str:
        """Return ``http://host:port/v1`` for the bound address."""
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/v1"


def _quiet(_: str) -> None:
    return None


def make_lab_server(
    config: LabConfig, host: str = "127.0.0.1", port: int = 0, log: LogFn = _quiet
) -> LabHTTPServer:
    """Bind a lab server (port 0 picks a free port) without starting it.

    Raises:
        OSError: when the address cannot be bound.
    """
    return LabHTTPServer((host, port), LabEngine(config), log)


@contextmanager
def run_lab_server(
    config: LabConfig, host: str = "127.0.0.1", port: int = 0, log: LogFn = _quiet
) -> Iterator[str]:
    """Run a lab server on a background thread; yield its base URL; stop it on exit.

    Example::

        with run_lab_server(LabConfig(pool_tokens=256, context_tokens=512)) as base_url:
            ...  # point an OpenAI client at base_url
    """
    server = make_lab_server(config, host, port, log)
    thread = threading.Thread(
        target=server.serve_forever, args=(0.05,), name="assess-lab", daemon=True
    )
    thread.start()
    try:
        yield server.base_url
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
