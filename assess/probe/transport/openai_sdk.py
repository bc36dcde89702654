"""Probe transport over the official ``openai`` Python SDK (``--transport openai``).

The SDK sends the requests (its client, headers and connection handling); the raw response of
each one is read through ``with_raw_response`` / ``with_streaming_response`` so the scan still sees
every byte. The SDK's own retries are off: retries are counted and bounded by
:func:`~assess.probe.transport.interface.with_retries`, exactly as for the httpx transport.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import openai

from assess.probe.transport.interface import (
    STREAM_DEADLINE_FACTOR,
    ChatRequest,
    ChatResponse,
    TransportError,
    TransportSettings,
    check_status,
    connect_reason,
    models_from_body,
    read_body,
    read_sse,
    with_retries,
)
from assess.probe.transport.limits import Limits, ResponseLimit, limit_error, limited_client_kwargs
from assess.probe.transport.secrets import join_url, without_query
from assess.probe.transport.timing import timed_first_text


@dataclass
class OpenAITransport(TransportSettings):
    """Chat completions through ``openai.OpenAI`` (SDK retries off, ours bounded)."""

    client: openai.OpenAI = field(init=False, repr=False)
    limits: Limits = field(init=False, repr=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.limits = Limits()
        # the SDK's own httpx client, with every response body bounded (see transport/limits.py)
        # redirects are not followed (the SDK's client follows them by default): one may send the
        # request to another host or turn the POST into a GET; check_status refuses them, as in
        # the httpx transport
        http_client = openai.DefaultHttpxClient(
            follow_redirects=False, **limited_client_kwargs(_sdk_httpx(), self.limits)
        )
        # the SDK appends paths to the base URL's raw path, query string included: the query
        # goes in default_query so /chat/completions lands before it
        base, query = without_query(self.base_url)
        self.client = openai.OpenAI(
            base_url=base,
            api_key=self.api_key,
            timeout=self.timeout_s,
            max_retries=0,
            http_client=http_client,
            default_query=query or None,
        )

    def close(self) -> None:
        """Close the SDK's connection pool."""
        self.client.close()

    def _connection_error(self, url: str, exc: openai.APIConnectionError) -> TransportError:
        if isinstance(exc, openai.APITimeoutError):
            return TransportError("timeout", f"{url}: no answer within {self.timeout_s:g} s")
        cause, http = exc.__cause__, _sdk_httpx()
        if isinstance(cause, http.HTTPError) and not isinstance(cause, http.ConnectError):
            # the server answered, then the exchange broke (e.g. a body shorter than its
            # Content-Length): a failed request, as in the httpx transport, not a dead host
            return _broken(url, cause)
        return TransportError(
            "connect", f"cannot reach {url}: {connect_reason(exc.__cause__ or exc)}", fatal=True
        )

    def list_models(self) -> list[str] | None:
        """Return the listed model ids, None when the endpoint has no usable list.

        Raises:
            TransportError: fatal on connection failure, auth failure or a non-JSON answer.
        """
        url = join_url(self.base_url, "models")
        self.limits.arm(self.timeout_s)
        try:
            resp = self.client.models.with_raw_response.list()
            status, raw, headers = resp.status_code, resp.text, resp.headers
        except ResponseLimit as exc:
            raise limit_error(url, exc) from None
        except openai.APIStatusError as exc:
            status, raw, headers = exc.status_code, exc.response.text, exc.response.headers
        except openai.APIConnectionError as exc:
            raise self._connection_error(url, exc) from exc
        ctype = headers.get("content-type", "")
        return models_from_body(status, url, raw, ctype, self.api_key)

    def chat(self, request: ChatRequest) -> ChatResponse:
        """Send one chat completion through the SDK and collect every text field of the answer.

        Raises:
            TransportError: no usable answer (see ``probe_transport.check_status``).
        """
        url = join_url(self.base_url, "chat/completions")
        # each attempt is timed from its own start: a Retry-After wait is no part of the latency
        return with_retries(
            lambda n: self._attempt(url, request, n, time.monotonic()),
            url,
            self.max_retries,
            self.sleep,
        )

    def _attempt(
        self, url: str, request: ChatRequest, attempt: int, started: float
    ) -> ChatResponse:
        self.limits.arm(self.timeout_s * (STREAM_DEADLINE_FACTOR if request.stream else 1))
        try:
            return self._send(url, request, attempt, started)
        except ResponseLimit as exc:
            raise limit_error(url, exc) from None
        except openai.APIConnectionError as exc:  # the SDK wrapped a cut-off body
            if isinstance(exc.__cause__, ResponseLimit):
                raise limit_error(url, exc.__cause__) from None
            raise self._connection_error(url, exc) from exc
        except _sdk_httpx().HTTPError as exc:  # a streamed body read outside the SDK's wrapping
            raise _broken(url, exc) from exc

    def _send(self, url: str, request: ChatRequest, attempt: int, started: float) -> ChatResponse:
        kwargs: dict[str, Any] = {
            "model": request.model,
            "messages": [{"role": "user", "content": request.prompt}],
            "max_tokens": request.max_tokens,
            "temperature": 0,
        }
        ttft = None
        try:
            if request.stream:
                fields, raw, usage, status, ttft = self._stream(url, kwargs, started)
            else:
                resp = self.client.chat.completions.with_raw_response.create(**kwargs)
                status, raw = resp.status_code, resp.text
                ctype = resp.headers.get("content-type", "")
                fields, usage = read_body(status, url, raw, ctype, self.api_key)
        except openai.APIStatusError as exc:
            status, raw, headers = exc.status_code, exc.response.text, exc.response.headers
            retry, location = headers.get("retry-after"), headers.get("location")
            check_status(status, url, raw, retry, self.api_key, location)
            ctype = exc.response.headers.get("content-type", "")
            fields, usage = read_body(status, url, raw, ctype, self.api_key)
        latency = round((time.monotonic() - started) * 1000, 1)
        return ChatResponse(status, fields, raw, latency, attempt, *usage, ttft_ms=ttft)

    def _stream(
        self, url: str, kwargs: dict[str, Any], started: float
    ) -> tuple[dict[str, str], str, tuple[int | None, int | None], int, float | None]:
        """Read a streamed answer; the time to its first event carrying text is the TTFT."""
        create = self.client.chat.completions.with_streaming_response.create
        with create(stream=True, stream_options={"include_usage": True}, **kwargs) as resp:
            status, ctype = resp.status_code, resp.headers.get("content-type", "")
            if not ctype.startswith("text/event-stream"):
                raw = resp.read().decode("utf-8", errors="replace")
                fields, usage = read_body(status, url, raw, ctype, self.api_key)
                return fields, raw, usage, status, None
            deadline = started + self.timeout_s * STREAM_DEADLINE_FACTOR
            first: list[float] = []
            lines = timed_first_text(resp.iter_lines(), first)
            fields, raw, usage = read_sse(lines, url, status, ctype, self.api_key, deadline)
            ttft = round((first[0] - started) * 1000, 1) if first else None
            return fields, raw, usage, status, ttft


def _broken(url: str, exc: Exception) -> TransportError:
    """Classify an error raised while the answer was read, as the httpx transport does."""
    if isinstance(exc, _sdk_httpx().TimeoutException):
        return TransportError("timeout", f"{url}: the answer stalled")
    return TransportError("protocol", f"{url}: the answer broke off ({type(exc).__name__}: {exc})")


def _sdk_httpx() -> Any:
    """Return the httpx module the openai SDK builds its client from (``httpx2`` in current
    releases, ``httpx`` in older ones)."""
    import importlib

    base = next(
        c for c in openai.DefaultHttpxClient.__mro__ if not c.__module__.startswith("openai")
    )
    return importlib.import_module(base.__module__.split(".")[0])


def make_openai_transport(
    base_url: str, api_key: str, timeout_s: float, max_retries: int
) -> OpenAITransport:
    """Return an :class:`OpenAITransport` (the ``openai`` entry of the registry)."""
    return OpenAITransport(base_url, api_key, timeout_s, max_retries)
