"""Dotted paths into records: ``a.b.c`` for nested objects, ``a.0.b`` for a list index.

A key holding dots is found as written (CSV headers and Phoenix columns such as
``attributes.llm.model_name``, OTel attribute keys such as ``gen_ai.request.model``): where a
part is not a key, the longest run of the following parts joined by dots that is one is taken.
``[key.with.dots]`` names one key explicitly (``attributes[gen_ai.request.model]``); ``*`` stands
for any one key or item, the first in order where the rest is found (``ai.*.meta.request_model``:
Kong names that key after its plugin or provider). On a list of
``{key, value}`` pairs (OpenTelemetry attributes) a key selects the pair's value, an OTLP
``AnyValue`` (``{"stringValue": ...}``, ``intValue`` as a decimal string) unwrapped. A string
holding JSON (a CSV cell, a stringified ``metadata`` column) is traversed as well, and so is
JSON whose quotes were doubled once more than CSV needs (``{""k"":""v""}``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import orjson

from assess.scope.logs import exactjson

MISSING: Any = object()

#: The one-key objects of an OTLP ``AnyValue`` and how each is read.
_ANY_VALUE = ("stringValue", "intValue", "doubleValue", "boolValue", "arrayValue", "kvlistValue")
_BRACKETS = re.compile(r"\[([^\]]*)\]")


def _maybe_json(value: str) -> Any:
    text = value.lstrip()
    if not text or text[0] not in "{[":
        return MISSING
    try:
        return exactjson.loads(value)
    except orjson.JSONDecodeError:
        pass
    if '""' in text:  # JSON whose quotes were doubled once too often (Helicone's export CSV)
        try:
            return exactjson.loads(text.replace('""', '"'))
        except orjson.JSONDecodeError:
            pass
    return MISSING


@lru_cache(maxsize=4096)
def split_path(path: str) -> tuple[str, ...]:
    """Return the parts of ``path``: split at dots, a ``[bracketed]`` part kept whole."""
    if "[" not in path:
        return tuple(path.split("."))
    parts: list[str] = []
    position = 0
    for match in _BRACKETS.finditer(path):
        head = path[position : match.start()].strip(".")
        if head:
            parts.extend(head.split("."))
        parts.append(match.group(1))
        position = match.end()
    tail = path[position:].strip(".")
    if tail:
        parts.extend(tail.split("."))
    return tuple(parts)


def path_head(path: str) -> str:
    """Return the top-level key (column) a path starts at."""
    return split_path(path)[0]


def any_value(value: Any) -> Any:
    """Return an OTLP ``AnyValue`` object as its plain value (int64 text as int); else
    ``value`` unchanged."""
    if not isinstance(value, dict) or len(value) != 1:
        return value
    ((kind, inner),) = value.items()
    if kind not in _ANY_VALUE:
        return value
    if kind == "intValue" and isinstance(inner, str) and inner.lstrip("-").isdigit():
        return int(inner)
    if kind == "arrayValue" and isinstance(inner, dict):
        return [any_value(v) for v in inner.get("values", [])]
    if kind == "kvlistValue" and isinstance(inner, dict):
        return {p.get("key"): any_value(p.get("value")) for p in inner.get("values", [])}
    return inner


def _pair(node: list[Any], key: str) -> Any:
    """Return the value of the ``{key, value}`` item of ``node`` named ``key``, or MISSING."""
    for item in node:
        if isinstance(item, dict) and item.get("key") == key and "value" in item:
            return any_value(item["value"])
    return MISSING


def _any_child(node: Any, parts: tuple[str, ...], index: int) -> tuple[Any, int]:
    """``*``: the first child of ``node`` (in order) where the rest of the path is found."""
    children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
    for child in children:
        found = _walk(child, parts, index + 1)
        if found is not MISSING:
            return found, len(parts)
    return MISSING, index


def _step(node: Any, parts: tuple[str, ...], index: int) -> tuple[Any, int]:
    """Return the node the parts from ``index`` lead to in one step, and the next index (the
    longest run of parts joined by dots that is a key counts as one step)."""
    part = parts[index]
    if part == "*":
        return _any_child(node, parts, index)
    if isinstance(node, dict):
        if part in node:
            return node[part], index + 1
        for end in range(len(parts), index + 1, -1):  # a key holding dots
            joined = ".".join(parts[index:end])
            if joined in node:
                return node[joined], end
        return MISSING, index
    if isinstance(node, list):
        if part.isdigit():
            return (node[int(part)], index + 1) if int(part) < len(node) else (MISSING, index)
        for end in range(len(parts), index, -1):  # a key/value list (OTel attributes)
            found = _pair(node, ".".join(parts[index:end]))
            if found is not MISSING:
                return found, end
    return MISSING, index


def get_path(record: Any, path: str) -> Any:
    """Return the value at dotted ``path`` in ``record``, or :data:`MISSING` if absent."""
    if isinstance(record, dict):
        if path in record:
            return record[path]
        if "." not in path and "[" not in path:  # a plain key the record lacks (the common case)
            return MISSING
    return _walk(record, split_path(path), 0)


def _walk(node: Any, parts: tuple[str, ...], index: int) -> Any:
    """Return the value the parts from ``index`` lead to from ``node``, or MISSING."""
    while index < len(parts):
        if isinstance(node, dict) and parts[index] in node:  # the common case, inline
            node = node[parts[index]]
            index += 1
            continue
        if isinstance(node, str):
            node = _maybe_json(node)
        node, index = _step(node, parts, index)
        if node is MISSING:
            return MISSING
    return node
