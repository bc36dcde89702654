"""Property: a run of several inputs, some of them compressed twins, archives or small bombs
(issue 36: the hypothesis strategies over "encodings, archives, duplicates, huge cells, bombs";
encodings and huge cells are in ``test_scope_inputs_fuzz.py``, duplicates in
``test_scope_duplicates_fuzz.py``).

Each example names up to five inputs through the CLI, in order: good NDJSON logs (each its own
requests), a gzip, zstd, xz or bzip2 twin of an earlier one, a path named again, a zip or tar
(plain, .gz or .xz) holding a good log, and small bombs (blank or ``{}`` lines through each
compression, 1 to 3 MiB inflated; the ratio bound starts at 64 KiB here, not 32 MiB, and
``--max-inflate-ratio 200`` is given, so a bomb is small and fast). The invariants: no
traceback; with an archive or a bomb, exit 2 naming the first one (it is read in order, and
nothing counts as clean); otherwise exit 1 (every request is affected), every good request
counted once (no intact record lost, twins and names again read once and listed), and
conservation.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.scope.helpers import in_scope, ndjson

COMPRESS: dict[str, Callable[[bytes], bytes]] = {
    "gz": lambda data: gzip.compress(data, 6),
    "zst": lambda data: zstandard.ZstdCompressor().compress(data),
    "xz": lambda data: lzma.compress(data, preset=0),
    "bz2": bz2.compress,
}

good = st.tuples(st.just("good"), st.integers(1, 12))
twin = st.tuples(st.just("twin"), st.sampled_from(sorted(COMPRESS)))
again = st.tuples(st.just("again"), st.integers(0, 9))
archive = st.tuples(st.just("archive"), st.sampled_from(["zip", "tar", "tar.gz", "tar.xz"]))
bomb = st.tuples(
    st.just("bomb"),
    st.tuples(
        st.sampled_from(sorted(COMPRESS)), st.sampled_from(["\n", "{}\n"]), st.integers(1, 3)
    ),
)


def _archive(kind: str, member: bytes) -> bytes:
    out = io.BytesIO()
    if kind == "zip":
        with zipfile.ZipFile(out, "w") as archive_file:
            archive_file.writestr("log.ndjson", member)
        return out.getvalue()
    info = tarfile.TarInfo("log.ndjson")
    info.size = len(member)
    with tarfile.open(fileobj=out, mode="w") as tar:
        tar.addfile(info, io.BytesIO(member))
    wrap = {"tar": lambda data: data, "tar.gz": gzip.compress, "tar.xz": lzma.compress}
    return wrap[kind](out.getvalue())


class _Run:
    """The inputs of one example, written to ``folder``, and what the document must say."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.paths: list[str] = []
        self.goods: list[Path] = []  # the good logs written (twins and names again point here)
        self.requests = 0  # distinct requests in the good logs
        self.not_read: list[tuple[str, str]] = []  # (path, same_as)
        self.bad: list[str] = []  # archives and bombs, in order
        self.twins: dict[bytes, Path] = {}  # a twin's bytes -> the first file of them

    def add(self, kind: str, arg: Any) -> None:
        k = len(self.paths)
        if kind == "good" or (kind in ("twin", "again") and not self.goods):
            n = arg if kind == "good" else 3
            path = self.folder / f"log-{k}.ndjson"
            path.write_bytes(ndjson(in_scope(n, f"req-{k}-{{i}}")))
            self.goods.append(path)
            self.requests += n
        elif kind == "twin":
            source = self.goods[-1]
            path = self.folder / f"log-{k}.ndjson.{arg}"
            data = COMPRESS[arg](source.read_bytes())
            path.write_bytes(data)
            # the same twin twice is the same bytes: known the same before either is read
            first = self.twins.setdefault(data, path)
            self.not_read.append((str(path), str(source if first == path else first)))
        elif kind == "again":
            path = self.goods[arg % len(self.goods)]
            self.not_read.append((str(path), str(path)))
        elif kind == "archive":
            path = self.folder / f"logs-{k}.{arg}"
            path.write_bytes(_archive(arg, ndjson(in_scope(2, f"req-{k}-{{i}}"))))
            self.bad.append(str(path))
        else:
            compression, line, mib = arg
            path = self.folder / f"bomb-{k}.ndjson.{compression}"
            path.write_bytes(COMPRESS[compression](line.encode() * ((mib << 20) // len(line))))
            self.bad.append(str(path))
        self.paths.append(str(path))


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(inputs=st.lists(st.one_of(good, twin, again, archive, bomb), min_size=1, max_size=5))
def test_twins_archives_and_bombs_among_good_inputs(
    tmp_path_factory: Any,
    run_cli: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
    inputs: list[tuple[str, Any]],
) -> None:
    from assess.scope.logs import compression

    monkeypatch.setattr(compression, "RATIO_FROM", 64 << 10)  # small bombs, the same bound
    run = _Run(tmp_path_factory.mktemp("hostile"))
    for kind, arg in inputs:
        run.add(kind, arg)
    out = run.folder / "scope.json"
    args = ["scope", *run.paths, "--preset", "canonical", "--max-inflate-ratio", "200"]
    result = run_cli(*args, "--json", str(out))  # an exception fails the test (no traceback)
    text = " ".join(result.output.split())
    assert "Traceback" not in text
    if run.bad:
        assert result.exit_code == 2, text
        assert f"error: {run.bad[0]}: " in text
        return
    assert result.exit_code == 1, text  # every request is in scope: affected
    doc = json.loads(out.read_text(encoding="utf-8"))
    counts, breakdown = doc["counts"], doc["breakdown"]
    assert (
        counts["records_read"]
        == breakdown["requests"] + counts["non_request_records"] + (counts["records_skipped"])
    )
    assert counts["records_read"] == run.requests and counts["records_skipped"] == 0
    assert counts["over_threshold"] == run.requests  # no intact record lost, none twice
    assert sorted((n["path"], n["same_as"]) for n in doc["inputs_not_read"]) == sorted(run.not_read)
