"""Builders for scope tests: canonical records written in every supported format."""

from __future__ import annotations

import csv
import gzip
import io
import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import zstandard

from assess.advisories.catalogue import get_advisory
from assess.scope.accumulator import ScopeAccumulator, make_filter
from assess.scope.filter import with_preset
from assess.scope.logs import open_logs
from assess.scope.logs.presets import CANONICAL_FIELDS
from assess.scope.models import ScopeResult

FIELDS = list(CANONICAL_FIELDS)  # the canonical preset's columns, in order
#: canonical, our own format, has no shipped sample: this fixture is written from its definition
#: (docs/scope-formats.md, the preset table's ``canonical`` row: "this tool's own schema", fields
#: named as the canonical fields; docs/scope.md, "Canonical fields";
#: assess/scope/logs/presets/canonical.yaml), with affected, possibly affected, filtered,
#: repeated and skipped records (tests/scope/test_sql_presets.py checks which).
CANONICAL = Path(__file__).resolve().parents[1] / "assets" / "scope" / "canonical-round-trip.ndjson"


def in_scope(n: int, ids: str = "req-{i}") -> list[dict[str, Any]]:
    """Return ``n`` canonical glm-5.3 requests in the advisory's window, each over the trigger
    (``prompt_tokens`` 900,000 + i), with the request ids ``ids`` formatted with ``i``."""
    return [
        {
            "timestamp": "2026-09-01T10:00:00Z",
            "model": "glm-5.3",
            "prompt_tokens": 900_000 + i,
            "request_id": ids.format(i=i),
        }
        for i in range(n)
    ]


def ndjson(records: Sequence[dict[str, Any] | str]) -> bytes:
    """Return NDJSON bytes; a str item is written as a raw (possibly malformed) line."""
    return b"".join((r if isinstance(r, str) else json.dumps(r)).encode() + b"\n" for r in records)


def write(path: Path, records: Sequence[dict[str, Any]], fmt: str) -> Path:
    """Write ``records`` to ``path`` as ndjson, ndjson.gz, ndjson.zst, json, csv or parquet."""
    if fmt == "ndjson":
        path.write_bytes(ndjson(records))
    elif fmt == "ndjson.gz":
        path.write_bytes(gzip.compress(ndjson(records)))
    elif fmt == "ndjson.zst":
        path.write_bytes(zstandard.ZstdCompressor().compress(ndjson(records)))
    elif fmt == "json":
        path.write_text(json.dumps(list(records), indent=2))
    elif fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, FIELDS, lineterminator="\n")
        writer.writeheader()
        for r in records:
            writer.writerow({k: "" if r.get(k) is None else r.get(k) for k in FIELDS})
        path.write_text(out.getvalue())
    elif fmt == "parquet":
        columns = {k: [r.get(k) for r in records] for k in FIELDS}
        columns["prompt_tokens"] = pa.array(columns["prompt_tokens"], pa.int64())
        columns["status"] = pa.array([None if s is None else str(s) for s in columns["status"]])
        pq.write_table(pa.table(columns), path)
    else:
        raise ValueError(fmt)
    return path


def scope(
    paths: Sequence[str | Path], preset: str = "canonical", fast: bool = True, **options: Any
) -> ScopeResult:
    """Run the reader and the core the way the CLI does; return the result."""
    advisory = get_advisory("glm-5.3-kv-leak")
    platform = options.pop("platform_requests", None)
    mapping = options.pop("mapping", None)
    served_by = options.pop("served_by", None)
    limits = {k: options.pop(k) for k in ("max_line_bytes",) if k in options}
    reader = open_logs([str(p) for p in paths], preset, mapping, **limits)
    acc = ScopeAccumulator(with_preset(make_filter(advisory, **options), reader.preset, served_by))
    reader.want_text = acc.text_mask
    reader.fast = fast and reader.fast
    for batch in reader.batches():
        acc.add(batch)
    return acc.result(reader.preset.id, reader.inputs, platform)


def conserved(result: ScopeResult) -> None:
    """Assert every conservation equation of the scope document."""
    c, b = result.counts, result.breakdown
    assert c.records_read == b.requests + c.non_request_records + c.records_skipped
    assert b.requests == c.model_matched + b.model_not_matched
    assert c.model_matched == c.in_window + b.model_matched_outside_window
    assert c.in_window == c.over_threshold + c.at_or_under_threshold + c.unknown_tokens
    verdicts = b.by_verdict
    assert sum(verdicts.values()) == c.in_window
    assert result.affected.requests == verdicts["affected"] <= c.over_threshold
    assert result.possibly_affected.requests == verdicts["possibly_affected"]
    assert result.possibly_affected.by_reason.get("unknown prompt tokens", 0) <= c.unknown_tokens
    assert result.disclosed.requests <= c.at_or_under_threshold + c.unknown_tokens
    assert sum(b.skipped_reasons.values()) == c.records_skipped
    assert sum(b.non_request_reasons.values()) == c.non_request_records


@contextmanager
def serving(body: bytes, sent: int | None = None) -> Iterator[tuple[str, list[int]]]:
    """Serve ``body`` on 127.0.0.1 (any path); yield (URL of ``x.json.gz``, bytes sent per GET).
    A GET announces the whole body and sends ``sent`` bytes of it (all by default), then ends
    the connection: a server cut mid-object."""
    import http.server

    gets: list[int] = []
    count = len(body) if sent is None else sent

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_HEAD(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()

        def do_GET(self) -> None:
            self.do_HEAD()
            self.wfile.write(body[:count])
            self.wfile.flush()
            self.close_connection = True
            gets.append(count)

        def log_message(self, format: str, *args: object) -> None:
            return None

    with loopback(Handler) as base:
        yield f"{base}/x.json.gz", gets


@contextmanager
def loopback(handler: Any) -> Iterator[str]:
    """Run an HTTP server with ``handler`` on 127.0.0.1 in a thread; yield its base URL."""
    import http.server
    import threading

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
