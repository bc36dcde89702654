"""Property: whatever the encoding, compression, duplication and cell size, every record is read
once (issue 36: encodings, archives, duplicates, huge cells, bombs).

Each example writes the same records as UTF-8 (with or without BOM), UTF-16 or UTF-32, through
no compression, gzip, zstd, xz or bzip2, as NDJSON or CSV, with one prompt cell of up to 300,000
characters over up to 3,000 lines, and names the file once or several times (also through a
link): the counts are those of the records, read once.
"""

from __future__ import annotations

import bz2
import codecs
import csv
import gzip
import io
import lzma
from pathlib import Path
from typing import Any

import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.scope.helpers import FIELDS, conserved, ndjson, scope

ENCODINGS = {
    "utf-8": lambda text: text.encode(),
    "utf-8-bom": lambda text: codecs.BOM_UTF8 + text.encode(),
    "utf-16": lambda text: text.encode("utf-16"),
    "utf-32": lambda text: text.encode("utf-32"),
}
COMPRESSIONS = {
    "none": lambda data: data,
    "gzip": gzip.compress,
    "zstd": lambda data: zstandard.ZstdCompressor().compress(data),
    "xz": lambda data: lzma.compress(data, preset=0),
    "bz2": bz2.compress,
}


def _records(n: int, prompt: str) -> list[dict[str, Any]]:
    return [
        {
            "timestamp": "2026-09-01T10:00:00Z",
            "model": "zai-org/GLM-5.3-FP8",
            "prompt_tokens": 700_000 + i,
            "request_id": f"req-{i}",
            "prompt": prompt if i == 1 else "short",
        }
        for i in range(n)
    ]


def _text(records: list[dict[str, Any]], fmt: str) -> str:
    if fmt == "ndjson":
        return ndjson(records).decode()
    out = io.StringIO()
    writer = csv.DictWriter(out, FIELDS, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for record in records:
        writer.writerow({k: record.get(k, "") for k in FIELDS})
    return out.getvalue()


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    n=st.integers(min_value=2, max_value=30),
    encoding=st.sampled_from(sorted(ENCODINGS)),
    compression=st.sampled_from(sorted(COMPRESSIONS)),
    fmt=st.sampled_from(["ndjson", "csv"]),
    cell=st.tuples(st.integers(0, 3000), st.integers(1, 60)),
    names=st.integers(min_value=1, max_value=3),
    fast=st.booleans(),
)
def test_every_record_is_read_once(
    tmp_path_factory: Any,
    n: int,
    encoding: str,
    compression: str,
    fmt: str,
    cell: tuple[int, int],
    names: int,
    fast: bool,
) -> None:
    lines, width = cell
    prompt = "\n".join(['é, "q" ' * width] * lines) if fmt == "csv" else "x" * (lines * width)
    records = _records(n, prompt)
    folder: Path = tmp_path_factory.mktemp("enc")
    path = folder / f"log.{fmt}"
    path.write_bytes(COMPRESSIONS[compression](ENCODINGS[encoding](_text(records, fmt))))
    paths = [path]
    for k in range(1, names):
        link = folder / f"link{k}.{fmt}"
        link.symlink_to(path)
        paths.append(link)
    result = scope(paths, fast=fast)
    conserved(result)
    assert result.counts.records_read == n
    assert result.counts.over_threshold == n
    if names > 1:  # the reader says so too (scope_run copies its notes into the document)
        from assess.scope.logs import open_logs

        notes = open_logs([str(p) for p in paths], "canonical").input_notes
        assert [n.same_as for n in notes] == [str(path)] * (names - 1)
