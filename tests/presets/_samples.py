"""Read the raw records of a sample log (independent of the engine) for preset checks."""

from __future__ import annotations

import csv
import gzip
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
EXPECTED = Path(__file__).resolve().parent / "expected"


def _opened(value: Any) -> Iterator[Any]:
    """Yield the records of an API response as each product documents it, else ``value``:
    Cloudflare {"result": [...]}, OpenRouter {"data": {...}}, Langfuse/Helicone {"data": [...]},
    new-api {"data": {"items": [...]}}, CloudWatch {"events": [{"message": "<JSON>"}]}, an OTLP
    TracesData {"resourceSpans": [{"resource", "scopeSpans": [{"scope", "spans": [...]}]}]}."""
    if isinstance(value, dict) and isinstance(value.get("resourceSpans"), list):
        for group in value["resourceSpans"]:
            for scoped in group.get("scopeSpans", []):
                for span in scoped.get("spans", []):
                    yield {**span, "resource": group.get("resource"), "scope": scoped.get("scope")}
        return
    if isinstance(value, dict) and isinstance(value.get("events"), list):
        for event in value["events"]:
            yield json.loads(event["message"])
        return
    body = value.get("result", value.get("data")) if isinstance(value, dict) else None
    if isinstance(value, dict) and ("id" in value or body is None):
        yield value
    elif isinstance(body, dict) and isinstance(body.get("items"), list):
        yield from body["items"]
    elif isinstance(body, dict):
        yield body
    elif isinstance(body, list):
        yield from body
    else:
        yield value


def raw_records(path: Path) -> Iterator[Any]:
    """Yield each parsed record of ``path`` (API pages opened); malformed lines are left out."""
    for value in _raw(path):
        yield from _opened(value)


def _raw(path: Path) -> Iterator[Any]:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    text = data.decode("utf-8", "replace")
    if path.name.endswith(".csv"):
        rows = list(csv.reader(io.StringIO(text)))
        header = rows[0]
        yield from (
            dict(zip(header, row, strict=True)) for row in rows[1:] if len(row) == len(header)
        )
    elif text.lstrip().startswith("["):
        yield from json.loads(text)
    elif text.lstrip().startswith("{\n"):  # one pretty-printed API response
        yield json.loads(text)
    else:
        for line in text.splitlines():
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                continue


def expectations() -> list[dict[str, Any]]:
    """Return every hand-written expected-counts document (``sample`` = its file stem)."""
    docs = [dict(json.loads(p.read_text()), sample=p.stem) for p in EXPECTED.glob("*.json")]
    return sorted(docs, key=lambda d: str(d["sample"]))
