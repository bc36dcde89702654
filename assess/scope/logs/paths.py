"""Dotted paths into records: ``a.b.c`` for nested objects, ``a.0.b`` for a list index.

A key equal to the whole dotted path wins (CSV headers such as ``metadata.user_api_key_hash``);
a string holding JSON (a CSV cell, a stringified ``metadata`` column) is traversed as well, and
so is JSON whose quotes were doubled once more than CSV needs (``{""k"":""v""}``).
"""

from __future__ import annotations

from typing import Any

import orjson

MISSING: Any = object()


def _maybe_json(value: str) -> Any:
    text = value.lstrip()
    if not text or text[0] not in "{[":
        return MISSING
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        pass
    if '""' in text:  # JSON whose quotes were doubled once too often (Helicone's export CSV)
        try:
            return orjson.loads(text.replace('""', '"'))
        except orjson.JSONDecodeError:
            pass
    return MISSING


def get_path(record: Any, path: str) -> Any:
    """Return the value at dotted ``path`` in ``record``, or :data:`MISSING` if absent."""
    if isinstance(record, dict):
        if path in record:
            return record[path]
        if "." not in path:  # a plain key the record lacks (the common case when detecting)
            return MISSING
    node = record
    parts = path.split(".")
    for index, part in enumerate(parts):
        if isinstance(node, str):
            node = _maybe_json(node)
        if isinstance(node, dict):
            if part in node:
                node = node[part]
                continue
            rest = ".".join(parts[index:])
            if rest in node:  # a flat key holding the remaining dots
                return node[rest]
            return MISSING
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
            continue
        return MISSING
    return node
