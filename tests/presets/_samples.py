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


def raw_records(path: Path) -> Iterator[Any]:
    """Yield each parsed record of ``path``; malformed lines/rows are left out."""
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
