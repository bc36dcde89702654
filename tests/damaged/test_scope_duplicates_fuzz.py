"""Property: repeated requests, overlapping pages and compressed twins are each counted once
(issue 36, item 7: the hypothesis strategies gain duplicates, with encodings, compressions and
huge cells beside them).

Each example writes ``n`` requests, some repeated (same id, same content) and some reusing an id
with other content (conflicts), shuffled, cut into up to three files whose edges overlap (the
last records of one page are the first of the next, as overlapping API pages are), in an
encoding, with one prompt of up to 200,000 characters, and adds a compressed twin of the first
file. The document counts every request once, every repeat as a duplicate, every conflict as
a request, and leaves the twin out by name.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import random
from pathlib import Path
from typing import Any

import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assess.scope.api import scope_run
from tests.scope.helpers import conserved, ndjson

TWINS = {
    "gzip": gzip.compress,
    "zstd": lambda data: zstandard.ZstdCompressor().compress(data),
    "xz": lambda data: lzma.compress(data, preset=0),
    "bz2": bz2.compress,
}


def _record(i: int, tokens: int, prompt: str) -> dict[str, Any]:
    return {
        "timestamp": "2026-09-01T10:00:00Z",
        "model": "glm-5.3",
        "prompt_tokens": tokens,
        "request_id": f"req-{i}",
        "prompt": prompt,
    }


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    n=st.integers(min_value=1, max_value=40),
    repeats=st.lists(st.integers(0, 39), max_size=30),
    conflicts=st.lists(st.integers(0, 39), max_size=5, unique=True),
    files=st.integers(min_value=1, max_value=3),
    overlap=st.integers(min_value=0, max_value=4),
    encoding=st.sampled_from(["utf-8", "utf-16"]),
    twin=st.sampled_from([None, *sorted(TWINS)]),
    huge=st.integers(min_value=0, max_value=200_000),
    seed=st.integers(0, 2**16),
)
def test_each_request_is_counted_once(
    tmp_path_factory: Any,
    n: int,
    repeats: list[int],
    conflicts: list[int],
    files: int,
    overlap: int,
    encoding: str,
    twin: str | None,
    huge: int,
    seed: int,
) -> None:
    base = [_record(i, 700_000 + i, "p" * huge if i == 0 else f"prompt {i}") for i in range(n)]
    variants = {c % n for c in conflicts}
    stream = base + [base[i % n] for i in repeats]
    stream += [_record(i, 900_000 + i, f"other {i}") for i in variants]
    random.Random(seed).shuffle(stream)
    files = min(files, len(stream))
    cuts = sorted(random.Random(seed + 1).sample(range(1, len(stream)), files - 1))
    edges = [0, *cuts, len(stream)]
    spans = list(zip(edges, edges[1:], strict=False))
    pages = [stream[max(0, a - overlap) if k else a : b] for k, (a, b) in enumerate(spans)]
    folder: Path = tmp_path_factory.mktemp("dups")
    paths, written, seen = [], 0, set()
    for k, page in enumerate(pages):
        path = folder / f"page-{k}.ndjson"
        data = ndjson(page).decode().encode(encoding)
        path.write_bytes(data)
        paths.append(path)
        if data not in seen:  # two pages of identical bytes are one input (read once)
            seen.add(data)
            written += len(page)
    if twin is not None:
        copy = folder / "page-0.ndjson.twin"
        copy.write_bytes(TWINS[twin](paths[0].read_bytes()))
        paths.append(copy)
    result = scope_run(paths, preset="canonical").result
    conserved(result)
    distinct = n + len(variants)  # a conflict (same id, other content) is a request of its own
    assert result.counts.records_read == written
    assert result.counts.in_window == distinct
    assert result.duplicates.requests == written - distinct
    assert result.duplicates.conflicts == len(variants)
    assert result.counts.non_request_records == written - distinct
    if twin is not None:
        twins = [x for x in result.inputs_not_read if x.path == str(paths[-1])]
        assert len(twins) == 1 and twins[0].same_as == str(paths[0])
