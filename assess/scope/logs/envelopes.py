"""API response envelopes around log records, unwrapped wherever they appear.

Users save what an API returned: a Cloudflare logs page ``{"result": [...], "result_info": ...,
"success": true}``, an OpenRouter generation ``{"data": {...}}``, a Langfuse or Helicone page
``{"data": [...], "meta": ...}``, a new-api page ``{"data": {"items": [...], "total": ...}}``, a
LangSmith runs query page ``{"runs": [...], "cursors": {...}}``.
An object is an envelope when its keys are one of :data:`ENVELOPE_KEYS` holding an object or a
list, plus only the bookkeeping keys of :data:`SIBLING_KEYS`; any other key makes it a record.
So ``{"success": false, "errors": [...], "result": null}`` stays a record (and is reported as an
error envelope, not silently dropped).

A log event wrapper is opened too: a CloudWatch Logs event (``filter-log-events`` /
``get-log-events`` output, keys of :data:`LOG_EVENT_KEYS` only) whose ``message`` is a JSON object
(Bedrock invocation logs delivered to CloudWatch) stands for that object.

An OpenTelemetry ``TracesData`` (the collector's file exporter and the OTLP File Exporter write
one per line; an OTLP/HTTP JSON body is one too) is opened into its spans: each span of
``resourceSpans[].scopeSpans[].spans[]`` (``instrumentationLibrarySpans`` in early exporters) is a
record, with its resource as ``resource`` and its instrumentation scope as ``scope``, so
``resource.attributes.service.name`` reads a resource attribute.

A file may hold one envelope per line, a JSON array of envelopes, or one pretty-printed envelope
(read whole, up to :data:`MAX_DOCUMENT_BYTES`; a logs API page is a few megabytes at most).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO

import orjson

from assess.scope.logs import exactjson
from assess.scope.logs.formats import NOT_READ_ON, Bad
from assess.scope.logs.sources import Format

ENVELOPE_KEYS = ("data", "result", "items", "events", "runs")
SIBLING_KEYS = frozenset(
    {
        "success",
        "errors",
        "error",
        "messages",
        "message",
        "result_info",
        "meta",
        "total",
        "page",
        "page_size",
        "total_pages",
        "size",
        "total_count",
        "limit",
        "offset",
        "object",
        "has_more",
        "next_cursor",
        "cursor",
        "searchedLogStreams",
        "nextToken",
        "nextForwardToken",
        "nextBackwardToken",
        "cursors",
    }
)
LOG_EVENT_KEYS = frozenset(
    {"timestamp", "message", "ingestionTime", "logStreamName", "logGroupName", "eventId"}
)
MAX_DEPTH = 3
#: The keys of an OTLP ``TracesData`` / ``ExportTraceServiceRequest``.
OTLP_KEYS = frozenset({"resourceSpans"})


def _spans(resource_spans: Any) -> list[Any]:
    """Return the spans of a ``TracesData``, each with its ``resource`` and ``scope``."""
    out: list[Any] = []
    for group in resource_spans if isinstance(resource_spans, list) else []:
        if not isinstance(group, dict):
            continue
        resource = group.get("resource", {})
        scopes = group.get("scopeSpans", group.get("instrumentationLibrarySpans", []))
        for scoped in scopes if isinstance(scopes, list) else []:
            if not isinstance(scoped, dict):
                continue
            scope = scoped.get("scope", scoped.get("instrumentationLibrary", {}))
            out.extend(
                {**span, "resource": resource, "scope": scope} if isinstance(span, dict) else span
                for span in scoped.get("spans", []) or []
            )
    return out


MAX_DOCUMENT_BYTES = 256 << 20


def unwrap(value: Any, depth: int = 0) -> list[Any] | None:
    """Return the records inside an envelope, or None when ``value`` is not an envelope."""
    if not isinstance(value, dict) or depth >= MAX_DEPTH:
        return None
    if set(value) == OTLP_KEYS:
        return _spans(value["resourceSpans"])
    event = _log_event(value)
    if event is not None:
        return [event]
    inner = [key for key in ENVELOPE_KEYS if key in value]
    if len(inner) != 1 or not set(value) - {inner[0]} <= SIBLING_KEYS:
        return None
    body = value[inner[0]]
    if isinstance(body, list):
        out: list[Any] = []
        for item in body:  # a page of log events: each one opened
            opened = _log_event(item) if isinstance(item, dict) else None
            out.append(item if opened is None else opened)
        return out
    if isinstance(body, dict):
        nested = unwrap(body, depth + 1)
        return [body] if nested is None else nested
    return None


def _log_event(value: dict[str, Any]) -> Any:
    """Return the JSON object a log event's ``message`` holds, or None if it is no such event."""
    message = value.get("message")
    if not isinstance(message, str) or not set(value) <= LOG_EVENT_KEYS:
        return None
    if not message.lstrip().startswith("{"):
        return None
    try:
        decoded = exactjson.loads(message)
    except orjson.JSONDecodeError:
        return None
    return decoded if isinstance(decoded, dict) else None


def expand(records: Iterator[tuple[int, Any]]) -> Iterator[tuple[int, Any]]:
    """Yield ``(line, record)`` with every envelope replaced by its records (same line)."""
    for line, value in records:
        inner = unwrap(value)
        if inner is None:
            yield line, value
        else:
            for item in inner:
                yield line, item


def refine(fmt: Format, head: bytes) -> Format:
    """Return ``json-document`` for a pretty-printed JSON object, ``ndjson-envelope`` for lines
    of envelopes, else ``fmt`` (the sniffed format of ``head``, the file's first bytes)."""
    if fmt != "ndjson":
        return fmt
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    first = text.split(b"\n", 1)[0].strip()
    if first == b"{":
        return "json-document"
    try:
        value = orjson.loads(exactjson.without_lone_surrogates(first))
    except orjson.JSONDecodeError:
        return fmt
    return "ndjson-envelope" if unwrap(value) is not None else fmt


def document_records(stream: BinaryIO) -> Iterator[tuple[int, Any]]:
    """Yield ``(1, record)`` for the records of one JSON document (unwrapped), or one
    :class:`Bad` when it cannot be read. Every record is reported at line 1, where it starts."""
    data = stream.read(MAX_DOCUMENT_BYTES + 1)
    if len(data) > MAX_DOCUMENT_BYTES:
        yield 1, Bad(f"JSON document larger than {MAX_DOCUMENT_BYTES >> 20} MB; {NOT_READ_ON}")
        return
    try:
        value = _document(data)
    except ValueError as exc:
        yield 1, Bad(f"invalid JSON document: {str(exc).split(':', 1)[0]}; {NOT_READ_ON}")
        return
    inner = unwrap(value)
    for item in [value] if inner is None else inner:
        yield 1, item


def _document(data: bytes) -> Any:
    """Parse a whole document: exactly where it may hold a number a double rounds, or when
    orjson refuses it for a number it cannot hold (over 4,300 digits: then kept as its text,
    refused by name by the field checks).

    Raises:
        ValueError: invalid JSON (orjson's message).
    """
    if not exactjson.LONG_FLOAT.search(data):
        try:
            return exactjson.loads(data)
        except orjson.JSONDecodeError as exc:
            first = exc
    else:
        first = None
    try:
        return exactjson.loads_exact(data)
    except RecursionError:
        raise ValueError("nested too deep") from None
    except ValueError:
        if first is not None:
            raise first from None
        return orjson.loads(data)  # raises orjson's own message
