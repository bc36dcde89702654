"""The default probe transport: the OpenAI chat-completions wire format over httpx directly.

Chosen as the default because the scan needs every byte of every response and SSE event, and
retries must be counted and bounded here rather than hidden inside a client library.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from assess.probe.transport.interface import (
    STREAM_DEADLINE_FACTOR,
    ChatRequest,
    ChatResponse,
    TransportError,
    TransportSettings,
    chat_payload,
    check_status,
    connect_reason,
    models_from_body,
    read_body,
    read_sse,
    with_retries,
)
from assess.probe.transport.limits import Limits, ResponseLimit, limit_error, limited_client_kwargs
from assess.probe.transport.secrets import join_url
from assess.probe.transport.timing import timed_first_text


@dataclass
class HttpxTransport(TransportSettings):
    """OpenAI-compatible chat completions over httpx, with bounded 429/503 retries."""

    client: httpx.Client = field(init=False, repr=False)
    limits: Limits = field(init=False, repr=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.limits = Limits()
        self.client = httpx.Client(
            timeout=httpx.Timeout(self.timeout_s),
            headers={"Authorization": f"Bearer {self.api_key}"},
            follow_redirects=False,
            **limited_client_kwargs(httpx, self.limits),
        )

    def close(self) -> None:
        """Close the connection pool."""
        self.client.close()

    def list_models(self) -> list[str] | None:
        """Return the listed model ids, None when the endpoint has no usable list.

        Raises:
            TransportError: fatal on connection failure, auth failure or a non-JSON answer.
        """
        url = join_url(self.base_url, "models")
        self.limits.arm(self.timeout_s)
        try:
            resp = self._send("GET", url, None, stream=False)
        except ResponseLimit as exc:
            raise limit_error(url, exc) from None
        ctype = resp.headers.get("content-type", "")
        return models_from_body(resp.status_code, url, resp.text, ctype, self.api_key)

    def chat(self, request: ChatRequest) -> ChatResponse:
        """Send one chat completion and collect every text field of the answer.

        Raises:
            TransportError: no usable answer (see ``probe_transport.check_status``).
        """
        url = join_url(self.base_url, "chat/completions")
        payload = chat_payload(request)
        # each attempt is timed from its own start: a Retry-After wait is no part of the latency
        return with_retries(
            lambda n: self._attempt(url, payload, request.stream, n, time.monotonic()),
            url,
            self.max_retries,
            self.sleep,
        )

    def _send(self, method: str, url: str, payload: Any, stream: bool) -> httpx.Response:
        try:
            if stream:
                return self.client.send(
                    self.client.build_request(method, url, json=payload), stream=True
                )
            return self.client.request(method, url, json=payload)
        except httpx.ConnectTimeout as exc:
            raise TransportError(
                "connect", f"cannot reach {url}: connection timed out", fatal=True
            ) from exc
        except httpx.ConnectError as exc:
            raise TransportError(
                "connect", f"cannot reach {url}: {connect_reason(exc)}", fatal=True
            ) from exc
        except httpx.TimeoutException as exc:
            raise TransportError(
                "timeout", f"{url}: no answer within {self.timeout_s:g} s"
            ) from exc
        except httpx.HTTPError as exc:
            raise TransportError(
                "protocol", f"{url}: broken HTTP exchange ({type(exc).__name__}: {exc})"
            ) from exc

    def _attempt(
        self, url: str, payload: dict[str, Any], stream: bool, attempt: int, started: float
    ) -> ChatResponse:
        # the body is always streamed, so its size and wall-clock time are bounded while read
        self.limits.arm(self.timeout_s * (STREAM_DEADLINE_FACTOR if stream else 1))
        try:
            return self._read(url, payload, stream, attempt, started)
        except ResponseLimit as exc:
            raise limit_error(url, exc) from None

    def _read(
        self, url: str, payload: dict[str, Any], stream: bool, attempt: int, started: float
    ) -> ChatResponse:
        resp = self._send("POST", url, payload, True)
        status, ctype = resp.status_code, resp.headers.get("content-type", "")
        try:
            if stream and status == 200 and ctype.startswith("text/event-stream"):
                deadline = started + self.timeout_s * STREAM_DEADLINE_FACTOR
                first: list[float] = []
                fields, raw, usage = read_sse(
                    timed_first_text(resp.iter_lines(), first),
                    url,
                    status,
                    ctype,
                    self.api_key,
                    deadline,
                )
                ttft = round((first[0] - started) * 1000, 1) if first else None
            else:
                ttft = None
                raw = resp.read().decode("utf-8", errors="replace")
                retry, location = resp.headers.get("retry-after"), resp.headers.get("location")
                check_status(status, url, raw, retry, self.api_key, location)
                fields, usage = read_body(status, url, raw, ctype, self.api_key)
        except httpx.TimeoutException as exc:
            raise TransportError("timeout", f"{url}: the answer stalled") from exc
        except httpx.HTTPError as exc:
            # e.g. a body shorter than its Content-Length (RemoteProtocolError): a failed
            # request like any other transport error, never a traceback
            raise TransportError(
                "protocol", f"{url}: the answer broke off ({type(exc).__name__}: {exc})"
            ) from exc
        finally:
            resp.close()
        latency = round((time.monotonic() - started) * 1000, 1)
        return ChatResponse(status, fields, raw, latency, attempt, *usage, ttft_ms=ttft)


def make_httpx_transport(
    base_url: str, api_key: str, timeout_s: float, max_retries: int
) -> HttpxTransport:
    """Return an :class:`HttpxTransport` (the ``httpx`` entry of the registry)."""
    return HttpxTransport(base_url, api_key, timeout_s, max_retries)
