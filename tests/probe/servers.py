"""Tiny scripted HTTP servers on 127.0.0.1 (ephemeral ports) for probe error paths."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = tuple[int, dict[str, str], bytes]
Script = Callable[[str, str, dict[str, Any]], Reply]


def json_reply(status: int, body: Any, headers: dict[str, str] | None = None) -> Reply:
    """Return a JSON reply tuple."""
    return (
        status,
        {"Content-Type": "application/json", **(headers or {})},
        json.dumps(body).encode(),
    )


def completion(text: str) -> dict[str, Any]:
    """Return a minimal chat completion carrying ``text``."""
    return {
        "id": "x",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
    }


#: The probe's echo control asks for a code back with this text (assess/probe/markers.py).
ECHO_ASK = "Repeat this code back exactly, and nothing else: "


def echoed(body: dict[str, Any]) -> Reply | None:
    """Return the answer a model that follows instructions gives the probe's echo control (the
    code, as JSON or as an SSE stream), or None when ``body`` is not that request."""
    text = json.dumps(body.get("messages", []))
    if ECHO_ASK not in text:
        return None
    code = text.split(ECHO_ASK, 1)[1].split('"', 1)[0]
    if not body.get("stream"):
        return json_reply(200, completion(code))
    chunk = json.dumps({"choices": [{"index": 0, "delta": {"content": code}}]})
    data = f"data: {chunk}\n\ndata: [DONE]\n\n".encode()
    return 200, {"Content-Type": "text/event-stream"}, data


_REQUEST = threading.local()


def request_headers() -> dict[str, str]:
    """Return the headers (names in lower case) of the request a script is answering."""
    return dict(getattr(_REQUEST, "headers", {}))


@contextmanager
def scripted_server(script: Script, echo: bool = True) -> Iterator[str]:
    """Serve ``script(method, path, json_body)`` on a free port; yield the /v1 base URL.
    ``echo``: the probe's echo control is answered with its code (as a model that follows
    the instruction does), whatever the script answers to the other requests."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return None

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else {}
            control = echoed(body) if echo and isinstance(body, dict) else None
            _REQUEST.headers = {k.lower(): v for k, v in self.headers.items()}
            status, headers, data = control or script(self.command, self.path, body)
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = _answer
        do_POST = _answer

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


#: The sockets of :func:`closed_port_url`, held bound for the rest of the test process.
_HELD_CLOSED: list[socket.socket] = []


def closed_port_url() -> str:
    """Return a /v1 URL on a loopback port nothing listens on: bound and kept bound (never
    listening) for the rest of the run, so a connection is refused and no other server (another
    pytest-xdist worker's, say) can take the port before the test connects."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    _HELD_CLOSED.append(sock)
    return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


#: The model list a raw socket server answers every GET with.
MODELS = json.dumps({"object": "list", "data": [{"id": "lab-glm-5.3"}]}).encode()
PostAnswer = Callable[[socket.socket, threading.Event], None]


def _read_request(conn: socket.socket) -> bytes | None:
    """Read one request (its head, and its body up to Content-Length); None if the client left."""
    request = b""
    while b"\r\n\r\n" not in request:
        data = conn.recv(65536)
        if not data:
            return None
        request += data
    head, _, body = request.partition(b"\r\n\r\n")
    length = next(
        (int(line.split(b":")[1]) for line in head.split(b"\r\n")
         if line.lower().startswith(b"content-length:")),
        0,
    )  # fmt: skip
    while len(body) < length:
        data = conn.recv(65536)
        if not data:
            break
        body += data
    return request


@contextmanager
def socket_server(answer_post: PostAnswer) -> Iterator[str]:
    """A raw-socket HTTP server on 127.0.0.1 for answers no HTTP library would write (broken,
    endless, stalled): every GET gets :data:`MODELS`; every POST, once read, is answered by
    ``answer_post(conn, stop)`` (``stop`` is set when the server stops). Yields the /v1 URL."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            request = _read_request(conn)
            if request is None:
                return
            if request.startswith(b"GET"):
                head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                head += f"Content-Length: {len(MODELS)}\r\nConnection: close\r\n\r\n"
                conn.sendall(head.encode() + MODELS)
                return
            answer_post(conn, stop)

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        stop.set()
        try:
            listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() of the serving thread
        except OSError:
            pass
        listener.close()
        thread.join()
