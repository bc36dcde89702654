"""The probe transport interface and the wire-format handling every implementation shares.

A transport sends one chat-completions request and hands back the text of every response field
plus the raw bytes, so the scan sees fields no client library models (``reasoning_content``,
``reasoning``, vendor extras). Implementations (one per module, chosen by name in
:data:`assess.probe.run.TRANSPORTS`): ``httpx`` (default) and ``openai`` (the official SDK).
Both use the same status rules below, so they report the same errors the same way.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from assess.probe.transport.secrets import redact_secret as redact_secret
from assess.probe.transport.secrets import strip_credentials as strip_credentials

ErrorKind = Literal[
    "connect",
    "timeout",
    "auth",
    "garbage",
    "not_found",
    "rate_limited",
    "server",
    "protocol",
    "redirect",
]
MAX_RETRY_WAIT_S = 30.0
#: A streamed answer may take this many times ``--timeout`` in all (each read: ``--timeout``);
#: a non-streamed one, ``--timeout`` in all.
STREAM_DEADLINE_FACTOR = 4
_EXCERPT = 80
Usage = tuple[int | None, int | None]


@dataclass(frozen=True)
class ChatRequest:
    """One chat-completions request (the key lives in the transport, not here)."""

    model: str
    prompt: str
    stream: bool
    max_tokens: int


@dataclass(frozen=True)
class ChatResponse:
    """What came back: the status, the text of each response field, and the raw body."""

    status: int
    fields: dict[str, str]
    raw: str
    latency_ms: float
    retries: int
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    ttft_ms: float | None = None  # streamed answers: time to the first event carrying text


class TransportError(Exception):
    """A request that produced no usable response; ``fatal`` ones stop the run."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        status: int | None = None,
        retries: int = 0,
        fatal: bool = False,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.retries = retries
        self.fatal = fatal


class RetryableStatus(Exception):
    """HTTP 429 or 503: try again after ``retry_after`` (the header's raw value, if any)."""

    def __init__(self, status: int, retry_after: str | None) -> None:
        super().__init__(status)
        self.status = status
        self.retry_after = retry_after


@dataclass
class TransportSettings:
    """What every transport is built from: endpoint, key, per-request timeout, retry bound."""

    base_url: str
    api_key: str = field(repr=False)
    timeout_s: float = 60.0
    max_retries: int = 3
    sleep: Callable[[float], None] = time.sleep

    def __post_init__(self) -> None:
        self.base_url = self.base_url.rstrip("/")


class Transport(Protocol):
    """What the probe runner needs from an endpoint client."""

    def list_models(self) -> list[str] | None:
        """Return the model ids the endpoint lists, or None when it has no model list."""
        ...

    def chat(self, request: ChatRequest) -> ChatResponse:
        """Send one request; raise :class:`TransportError` when there is no usable answer."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...


TransportFactory = Callable[[str, str, float, int], Transport]


def retry_after_seconds(value: str | None, attempt: int) -> float:
    """Return how long to wait before retry ``attempt`` (0-based), honouring Retry-After.

    Retry-After may be seconds or an HTTP date; without it, back off 1, 2, 4... seconds. The
    wait is capped at :data:`MAX_RETRY_WAIT_S`.
    """
    if value is not None:
        value = value.strip()
        try:
            return min(MAX_RETRY_WAIT_S, max(0.0, float(value)))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value) if value else None
            if when is not None:
                return min(MAX_RETRY_WAIT_S, max(0.0, when.timestamp() - time.time()))
    return min(MAX_RETRY_WAIT_S, float(2**attempt))


def with_retries(
    attempt: Callable[[int], ChatResponse],
    url: str,
    max_retries: int,
    sleep: Callable[[float], None],
) -> ChatResponse:
    """Call ``attempt(n)`` until it returns, retrying :class:`RetryableStatus` up to the bound.

    Raises:
        TransportError: ``rate_limited`` once the retries are spent, or whatever attempt raises.
    """
    for number in range(max_retries + 1):
        try:
            return attempt(number)
        except RetryableStatus as retry:
            if number == max_retries:
                raise TransportError(
                    "rate_limited",
                    f"{url} still answered HTTP {retry.status} after {max_retries} retries",
                    status=retry.status,
                    retries=number,
                ) from None
            sleep(retry_after_seconds(retry.retry_after, number))
    raise AssertionError("unreachable")  # pragma: no cover


def header_safe_key(key: str) -> bool:
    """Return True when ``key`` can be sent in an ``Authorization: Bearer`` header as it is:
    visible ASCII only (no line break, space, control or non-ASCII character)."""
    return bool(key) and all("!" <= char <= "~" for char in key)


def excerpt(text: str, secret: str) -> str:
    """Return a short quoted excerpt of ``text``, with ``secret`` removed before cutting."""
    flat = " ".join(redact_secret(text, secret).split())
    return repr(flat[:_EXCERPT] + ("..." if len(flat) > _EXCERPT else ""))


def connect_reason(exc: BaseException | None) -> str:
    """Return a plain-words reason for a connection failure."""
    text = str(exc).lower()
    if "refused" in text:
        return "connection refused (nothing is listening on that port)"
    if "name or service" in text or "nodename" in text or "getaddrinfo" in text:
        return "the host name does not resolve"
    if "unreachable" in text:
        return "the network is unreachable"
    return str(exc) or type(exc).__name__


def chat_payload(request: ChatRequest) -> dict[str, Any]:
    """Return the JSON body of a chat-completions request."""
    payload: dict[str, Any] = {
        "model": request.model,
        "messages": [{"role": "user", "content": request.prompt}],
        "max_tokens": request.max_tokens,
        "temperature": 0,
        "stream": request.stream,
    }
    if request.stream:
        payload["stream_options"] = {"include_usage": True}
    return payload


def carries_text(fields: dict[str, str]) -> bool:
    """Return True when an answer holds text a marker could have shown in (any field, not
    whitespace). An empty SSE stream, a stream of ``error`` events, ``{"choices": []}`` or an
    empty ``content`` hold none: such an answer tested nothing and is not a probe."""
    return any(text.strip() for text in fields.values())


def _collect_message(message: dict[str, Any], fields: dict[str, str]) -> None:
    """Append the text fields of a message or a streamed delta to ``fields``."""
    for name in ("content", "reasoning_content", "reasoning", "refusal"):
        value = message.get(name)
        if isinstance(value, str) and value:
            fields[name] = fields.get(name, "") + value
    for pos, call in enumerate(message.get("tool_calls") or []):
        if not isinstance(call, dict):
            continue
        index = call.get("index", pos)
        function = call.get("function") or {}
        for part in ("name", "arguments"):
            value = function.get(part) if isinstance(function, dict) else None
            if isinstance(value, str) and value:
                key = f"tool_calls[{index}].function.{part}"
                fields[key] = fields.get(key, "") + value


def _usage(body: dict[str, Any]) -> Usage:
    usage = body.get("usage")
    if not isinstance(usage, dict):
        return None, None
    p, c = usage.get("prompt_tokens"), usage.get("completion_tokens")
    return (p if isinstance(p, int) else None), (c if isinstance(c, int) else None)


def parse_completion(body: Any, fields: dict[str, str]) -> Usage:
    """Collect the text fields of a chat completion (or one stream chunk); return its usage.

    Raises:
        ValueError: when ``body`` is not a chat completion.
    """
    if not isinstance(body, dict) or not isinstance(body.get("choices"), list):
        raise ValueError("JSON without a 'choices' list")
    for choice in body["choices"]:
        if isinstance(choice, dict):
            _collect_message(choice.get("message") or choice.get("delta") or {}, fields)
            if isinstance(choice.get("text"), str):  # legacy completions shape
                fields["text"] = fields.get("text", "") + choice["text"]
    return _usage(body)


def _garbage(url: str, status: int, ctype: str, text: str, secret: str, why: str) -> TransportError:
    return TransportError(
        "garbage",
        f"{url}: the response (HTTP {status}, {ctype or 'no content-type'}) {why}: "
        f"{excerpt(text, secret)}",
        status=status,
        fatal=True,
    )


def check_status(
    status: int,
    url: str,
    raw: str,
    retry_after: str | None,
    secret: str,
    location: str | None = None,
) -> None:
    """Apply the status rules shared by every transport.

    Raises:
        RetryableStatus: on 429 and 503.
        TransportError: fatal on 3xx (redirects are never followed: one may send the request
            to another host, or turn the POST into a GET), 401/403 (auth), 404 (not found),
            405/501 (not an API); non-fatal on other 5xx.
    """
    if 300 <= status < 400:
        raise TransportError(
            "redirect",
            f"{url}: HTTP {status} redirect to {location or '(no Location)'}: not followed (a "
            "redirect may send the request to another host or turn the POST into a GET); "
            "nothing was answered at the endpoint given",
            status=status,
            fatal=True,
        )
    if status in (429, 503):
        raise RetryableStatus(status, retry_after)
    if status in (401, 403):
        raise TransportError(
            "auth", f"{url}: authentication failed (HTTP {status})", status=status, fatal=True
        )
    if status == 404:
        raise TransportError(
            "not_found", f"{url}: HTTP 404 {excerpt(raw, secret)}", status=404, fatal=True
        )
    if status in (405, 501):
        raise TransportError(
            "garbage",
            f"{url}: HTTP {status} to a POST: this is not a chat-completions endpoint "
            f"{excerpt(raw, secret)}",
            status=status,
            fatal=True,
        )
    if status >= 500:
        raise TransportError("server", f"{url}: server error HTTP {status} {excerpt(raw, secret)}")


def read_body(
    status: int, url: str, raw: str, ctype: str, secret: str
) -> tuple[dict[str, str], Usage]:
    """Return the text fields and usage of a non-streamed answer with status < 500.

    A 4xx rejection's message is returned as the field ``error.message`` (it is scanned too).

    Raises:
        TransportError: fatal ``garbage`` when a 200 is not JSON or not a chat completion.
    """
    try:
        body = json.loads(raw) if raw.strip() else None
    except ValueError:
        if status < 400:
            raise _garbage(url, status, ctype, raw, secret, "is not JSON") from None
        body = None
    fields: dict[str, str] = {}
    if status >= 400:
        err = body.get("error") if isinstance(body, dict) else None
        message = err.get("message") if isinstance(err, dict) else None
        fields["error.message"] = message if isinstance(message, str) else raw
        return fields, (None, None)
    try:
        usage = parse_completion(body, fields)
    except ValueError as exc:
        raise _garbage(
            url, status, ctype, raw, secret, f"is not a chat completion ({exc})"
        ) from None
    return fields, usage


def read_sse(
    lines: Iterable[str], url: str, status: int, ctype: str, secret: str, deadline: float
) -> tuple[dict[str, str], str, Usage]:
    """Join streamed deltas per field; return the fields, the raw stream and the usage.

    Raises:
        TransportError: ``garbage`` (fatal) for an event that is not JSON, ``timeout`` when the
            stream runs past ``deadline`` (a ``time.monotonic()`` value).
    """
    fields: dict[str, str] = {}
    raw_parts: list[str] = []
    usage: Usage = (None, None)
    for line in lines:
        raw_parts.append(line)
        if time.monotonic() > deadline:
            raise TransportError("timeout", f"{url}: the stream did not finish in time")
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            break
        try:
            event = json.loads(data)
            if not isinstance(event, dict):
                raise ValueError("not an object")
            for choice in event.get("choices") or []:
                if isinstance(choice, dict):
                    _collect_message(choice.get("delta") or {}, fields)
        except ValueError:
            raise _garbage(
                url, status, ctype, data, secret, "has a stream event that is not JSON"
            ) from None
        if event.get("usage"):
            usage = _usage(event)
    return fields, "\n".join(raw_parts), usage


def models_from_body(status: int, url: str, raw: str, ctype: str, secret: str) -> list[str] | None:
    """Return the model ids of a ``GET /models`` answer, None when there is no usable list.

    Raises:
        TransportError: fatal on 401/403, or on a 200 that is not JSON.
    """
    if status in (401, 403):
        check_status(status, url, raw, None, secret)
    if status != 200:
        return None
    try:
        body = json.loads(raw)
    except ValueError:
        raise _garbage(url, status, ctype, raw, secret, "is not JSON") from None
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        return None
    return [str(m.get("id")) for m in body["data"] if isinstance(m, dict) and "id" in m]
