"""A compressed log cut short or corrupt is not read to its end: it backs no all-clear (issue 36).

Measured before the fix: 2,000 LiteLLM NDJSON records (the first 1,000 at 1,000 prompt tokens,
the rest at 900,000), gzipped, the first third of the bytes kept: ``assess scope cut.ndjson.gz
--preset litellm`` read 624, skipped 1 ("compressed stream is corrupt or truncated ...; last good
line 623") and said **not affected, exit 0**: the 1,000 affected requests were never read. The
break now ends "the rest of the file is not read" (``formats.NOT_READ_ON``), the same rule as a
JSON array that cannot be read on (``evidence._not_read_on``).
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
from collections.abc import Callable
from hashlib import sha256
from pathlib import Path
from typing import Any

import pytest
import zstandard

from assess.scope.logs.formats import NOT_READ_ON
from tests.scope.helpers import conserved, scope


def _litellm(i: int, tokens: int) -> bytes:
    record = {
        "id": f"req-{i}",
        "call_type": "acompletion",
        "status": "success",
        "startTime": 1788256860.0 + i,
        "endTime": 1788256865.0 + i,
        "model": "@cf/zai-org/glm-5.3",
        "custom_llm_provider": "cloudflare",
        "metadata": {
            "user_api_key_hash": f"hash-{i % 3}",
            "pad": sha256(b"%d" % i).hexdigest() * 2,
        },
        "prompt_tokens": tokens,
        "completion_tokens": 10,
    }
    return json.dumps(record).encode() + b"\n"


def _log(small: int, big: int) -> bytes:
    head = [_litellm(i, 1_000) for i in range(small)]
    return b"".join([*head, *(_litellm(small + i, 900_000) for i in range(big))])


def _compress(codec: str, plain: bytes) -> bytes:
    if codec == "gzip":
        return gzip.compress(plain)
    if codec == "zstd":
        return zstandard.ZstdCompressor(write_checksum=True).compress(plain)  # as the zstd CLI
    if codec == "xz":
        return lzma.compress(plain)
    return bz2.compress(plain, compresslevel=1)  # 100 kB blocks: a cut keeps whole blocks


def _broken(codec: str, how: str, plain: bytes) -> bytes:
    """``plain`` compressed with ``codec``: its first third (``cut``), 64 zero bytes at a third
    of it (``corrupt``), or (gzip) two members, the first a sixth of the lines, the second corrupt
    at a fifth of it (``member``): each breaks before the middle of the lines."""
    if how == "member":
        lines = plain.splitlines(keepends=True)
        first, rest = lines[: len(lines) // 6], lines[len(lines) // 6 :]
        second = bytearray(gzip.compress(b"".join(rest)))
        second[len(second) // 5 : len(second) // 5 + 64] = bytes(64)
        return gzip.compress(b"".join(first)) + bytes(second)
    whole = _compress(codec, plain)
    if how == "cut":
        return whole[: len(whole) // 3]
    broken = bytearray(whole)
    broken[len(whole) // 3 : len(whole) // 3 + 64] = bytes(64)
    return bytes(broken)


CASES = [
    *((codec, "cut") for codec in ("gzip", "zstd", "xz", "bz2")),
    *((codec, "corrupt") for codec in ("gzip", "zstd", "xz", "bz2")),
    ("gzip", "member"),
]
#: the breaks after which lines were inflated (a corrupt 100 kB stream fails in its first piece)
KEEPING = [case for case in CASES if case[1] != "corrupt"]


@pytest.mark.parametrize(("codec", "how"), CASES)
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_broken_compressed_log_gives_not_assessable_never_not_affected(
    tmp_path: Path, run_cli: Callable[..., Any], codec: str, how: str, jobs: str
) -> None:
    path = tmp_path / "cut.ndjson.x"
    path.write_bytes(_broken(codec, how, _log(1_000, 1_000)))
    result = run_cli("scope", str(path), "--preset", "litellm", "--jobs", jobs, "--json", "-")
    assert "Traceback" not in result.stdout + result.stderr
    doc = json.loads(result.stdout)
    assert (result.exit_code, doc["verdict"]) == (2, "not_assessable")
    [skipped] = doc["skipped"]
    assert skipped["reason"].startswith("compressed stream is corrupt or truncated")
    assert skipped["reason"].endswith(NOT_READ_ON)
    assert doc["counts"]["records_read"] - 1 < 1_000  # the break is among the small ones
    assert skipped["line"] == doc["counts"]["records_read"]
    reasons = doc["assessment"]["reasons"]
    assert any("not read to the end" in r and f"{path} at line" in r for r in reasons), reasons


@pytest.mark.parametrize(("codec", "how"), KEEPING)
@pytest.mark.parametrize("fast", [True, False])
def test_records_before_the_break_are_counted_and_affected_ones_still_count(
    tmp_path: Path, codec: str, how: str, fast: bool
) -> None:
    """Affected requests read before the break: "affected" (exit 1) stands, with the reason that
    the rest of the file could not be read; every record read is counted (conservation)."""
    path = tmp_path / "cut.ndjson.x"
    path.write_bytes(_broken(codec, how, _log(0, 2_000)))
    result = scope([path], preset="litellm", fast=fast)
    conserved(result)
    assert result.verdict == "affected"
    assert 0 < result.affected.requests == result.counts.records_read - 1
    assert result.counts.records_skipped == 1
    assert any("not read to the end" in r for r in result.assessment.reasons)


def test_a_whole_compressed_log_still_gives_not_affected(tmp_path: Path) -> None:
    """The positive control of the tests above: the same log, whole, reads to its end."""
    for codec in ("gzip", "zstd", "xz", "bz2"):
        path = tmp_path / f"whole.{codec}"
        path.write_bytes(_compress(codec, _log(1_000, 0)))
        result = scope([path], preset="litellm")
        assert (result.verdict, result.counts.records_read) == ("not_affected", 1_000), codec
