"""Encodings and archives given to `assess scope` (issue 36, item 8).

Measured before the change: xz, zip, bz2 and ``.tar.gz`` inputs beside a good file shrank to a
few "skipped lines" (30 affected records in the xz lost), alone they were "no known log format";
UTF-16 likewise; a UTF-8 byte order mark on NDJSON dropped the first record.
"""

from __future__ import annotations

import bz2
import codecs
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

from tests.scope.helpers import FIELDS, conserved, scope

N = 30


def _body() -> bytes:
    records = [
        {
            "timestamp": "2026-09-01T10:00:00Z",
            "model": "glm-5.3",
            "prompt_tokens": 900_000 + i,
            "request_id": f"req-{i}",
            "prompt": "ünïcode 你好 🙂",
        }
        for i in range(N)
    ]
    return b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in records)


def _csv() -> str:
    rows = [",".join(FIELDS)]
    rows += [
        f"2026-09-01T10:00:00Z,glm-5.3,{900_000 + i}" + "," * (len(FIELDS) - 3) for i in range(N)
    ]
    return "\n".join(rows) + "\n"


READ = {
    "log.ndjson.xz": lambda: lzma.compress(_body()),
    "two-streams.ndjson.xz": lambda: lzma.compress(_body()[:500]) + lzma.compress(_body()[500:]),
    "log.ndjson.bz2": lambda: bz2.compress(_body()),
    "utf16le.ndjson": lambda: _body().decode().encode("utf-16"),
    "utf16be.ndjson": lambda: codecs.BOM_UTF16_BE + _body().decode().encode("utf-16-be"),
    "utf32.ndjson": lambda: _body().decode().encode("utf-32"),
    "utf8-bom.ndjson": lambda: codecs.BOM_UTF8 + _body(),
    "utf16.ndjson.gz": lambda: gzip.compress(_body().decode().encode("utf-16")),
    "utf16.csv": lambda: _csv().encode("utf-16"),
    "utf8-bom.csv": lambda: codecs.BOM_UTF8 + _csv().encode(),
    "utf8-bom.json": lambda: (
        codecs.BOM_UTF8 + json.dumps([json.loads(x) for x in _body().splitlines()]).encode()
    ),
}


@pytest.mark.parametrize("name", sorted(READ))
@pytest.mark.parametrize("fast", [True, False])
def test_compressed_and_encoded_inputs_are_read_whole(
    tmp_path: Path, name: str, fast: bool
) -> None:
    path = tmp_path / name
    path.write_bytes(READ[name]())
    result = scope([path], fast=fast)
    conserved(result)
    assert result.counts.records_read == N
    assert result.counts.over_threshold == N
    assert result.counts.records_skipped == 0


def _zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("log.ndjson", _body())
    return out.getvalue()


def _tar(mode: str) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode=mode) as archive:
        info = tarfile.TarInfo("log.ndjson")
        info.size = len(_body())
        archive.addfile(info, io.BytesIO(_body()))
    return out.getvalue()


REFUSED = {
    "logs.zip": (_zip, "a zip archive"),
    "logs.tar": (lambda: _tar("w"), "a tar archive"),
    "logs.tar.gz": (lambda: _tar("w:gz"), "a tar archive"),
    "logs.tar.xz": (lambda: _tar("w:xz"), "a tar archive"),
    "logs.7z": (lambda: b"7z\xbc\xaf\x27\x1c" + b"\0" * 64, "a 7z archive"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_archives_beside_a_good_file_are_refused_by_name(
    tmp_path: Path, run_cli: Callable[..., Any], name: str
) -> None:
    make, what = REFUSED[name]
    good = tmp_path / "good.ndjson"
    good.write_bytes(_body())
    path = tmp_path / name
    path.write_bytes(make())
    result = run_cli("scope", str(good), str(path))
    assert result.exit_code == 2
    assert f"{path}: is {what}; its members are not read" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("fast", [True, False])
def test_a_cut_xz_keeps_the_lines_before_the_cut(tmp_path: Path, fast: bool) -> None:
    whole = lzma.compress(_body() * 40, preset=0)
    path = tmp_path / "cut.ndjson.xz"
    path.write_bytes(whole[: len(whole) * 2 // 3])
    result = scope([path], fast=fast)
    conserved(result)
    assert result.counts.records_skipped == 1
    assert "compressed stream is corrupt or truncated" in result.skipped[0].reason
    assert result.counts.over_threshold > 0
