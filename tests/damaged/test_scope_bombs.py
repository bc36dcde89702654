"""Decompression bombs given to `assess scope` (issue 36, item 14, the scope part).

Measured before the change: zstd pieces had no inflate cap (65 KB inflated to 6.5 GB), a 261 KB
gzip of blank lines took 1.7 GB and 39 s, a 5 KB zstd of ``{}`` lines ran past 300 s. The bounds
are on inflated bytes (per piece, so memory stays bounded), with a clear error naming the file.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import resource
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import zstandard

from assess.kernel.errors import InputError
from tests.scope.helpers import scope, write


def _zstd_stream(line: bytes, total: int) -> bytes:
    out = io.BytesIO()
    with zstandard.ZstdCompressor(level=3).stream_writer(out, closefd=False) as writer:
        block = line * ((1 << 20) // len(line))
        for _ in range(total // len(block)):
            writer.write(block)
    return out.getvalue()


def _bombs(tmp_path: Path) -> list[Path]:
    zst = tmp_path / "objects.ndjson.zst"
    zst.write_bytes(_zstd_stream(b"{}\n", 600 << 20))  # 600 MB of {} lines, a few hundred KB
    gz = tmp_path / "blank.ndjson.gz"
    gz.write_bytes(gzip.compress(b"\n" * (64 << 20), 6))  # 64 MB of blank lines, 65 KB
    return [zst, gz]


def test_bombs_are_refused_by_name_fast_and_bounded(tmp_path: Path) -> None:
    for path in _bombs(tmp_path):
        assert path.stat().st_size < 1 << 20
        before = resource.getrusage(resource.RUSAGE_SELF)
        with pytest.raises(
            InputError, match=f"{path.name}: refused: it inflates more than 1,000 times"
        ):
            scope([path])
        after = resource.getrusage(resource.RUSAGE_SELF)
        assert after.ru_utime - before.ru_utime < 20  # CPU seconds, not wall time
        assert after.ru_maxrss < 1_500_000  # KB: well under the 1.7 GB measured before


def test_bombs_through_the_cli_exit_2_with_jobs_too(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    good = write(tmp_path / "good.ndjson", [_good()], "ndjson")
    for path in _bombs(tmp_path):
        for jobs in ("1", "2"):
            result = run_cli("scope", str(good), str(path), "--jobs", jobs)
            assert result.exit_code == 2
            assert f"{path}: refused" in result.output
            assert "Traceback" not in result.output


def _good() -> dict[str, Any]:
    return {"timestamp": "2026-09-01T10:00:00Z", "model": "glm-5.3", "prompt_tokens": 900_000}


def test_a_log_that_compresses_well_is_read(tmp_path: Path) -> None:
    """Repetitive, real-shaped records (the same prompt each time) stay under the ratio."""
    records = [
        {**_good(), "request_id": f"req-{i:07d}", "prompt": "the same prompt " * 40}
        for i in range(60_000)
    ]
    body = b"".join(json.dumps(r).encode() + b"\n" for r in records)
    for path, data in (
        (tmp_path / "log.ndjson.gz", gzip.compress(body, 9)),
        (tmp_path / "log.ndjson.zst", zstandard.ZstdCompressor(level=19).compress(body)),
    ):
        path.write_bytes(data)
        assert len(body) > 32 << 20 and len(body) / len(data) > 30  # past RATIO_FROM, ratio high
        assert scope([path]).counts.over_threshold == len(records)


def test_the_absolute_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from assess.scope.logs import compression

    monkeypatch.setattr(compression, "MAX_INFLATED", 1000)
    path = write(tmp_path / "log.ndjson.gz", [_good()] * 100, "ndjson.gz")
    with pytest.raises(InputError, match="inflates past 1,000 bytes"):
        scope([path])


def _repetitive_log(path: Path) -> int:
    """Write 330,000 real-shaped records (35 MB, only the ids differ) as zstd: about 120 times
    smaller; return the record count."""
    line = (
        b'{"timestamp": "2026-09-01T10:00:00Z", "model": "glm-5.3", "prompt_tokens": 900000, '
        b'"request_id": "req-%07d"}\n'
    )
    count = 330_000
    body = b"".join(line % i for i in range(count))
    path.write_bytes(zstandard.ZstdCompressor(level=3).compress(body))
    assert len(body) > 32 << 20 and 60 < len(body) / path.stat().st_size < 1000
    return count


def test_max_inflate_ratio_refuses_by_name_ratio_and_option(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    """``--max-inflate-ratio`` (issue 36, items 9/14): the bound is the user's, the refusal names
    the file, the ratio reached and the option; the default (1000) reads the same file."""
    log = tmp_path / "ids.ndjson.zst"
    count = _repetitive_log(log)
    good = write(tmp_path / "good.ndjson", [_good()], "ndjson")
    for jobs in ("1", "2"):
        result = run_cli("scope", str(good), str(log), "--max-inflate-ratio", "50", "--jobs", jobs)
        assert result.exit_code == 2, result.output
        text = " ".join(result.output.split())
        assert f"{log}: refused: it inflates more than 50 times its compressed size" in text
        assert "(--max-inflate-ratio)" in text and "raise --max-inflate-ratio (now 50)" in text
        ratio = re.search(r"bytes from the first [\d,]+, ([\d,]+) times", text)
        assert ratio is not None and 50 < int(ratio[1].replace(",", "")) < 1000
        assert "Traceback" not in result.output
    doc = json.loads(run_cli("scope", str(log), "--json", "-").stdout)
    assert doc["counts"]["over_threshold"] == count  # read whole under the default bound


def _one_record_over_and_over(path: Path) -> int:
    """Write one real-shaped record repeated to 40 MB as one zstd frame (about 10,000 times
    smaller: acc36b's rep.ndjson.zst); return the record count."""
    line = (
        b'{"timestamp": "2026-09-01T10:00:00Z", "model": "glm-5.3", "prompt_tokens": 900000, '
        b'"request_id": "req-1"}\n'
    )
    count = (40 << 20) // len(line)
    path.write_bytes(zstandard.ZstdCompressor(level=3).compress(line * count))
    return count


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_max_inflate_ratio_holds_under_preset_auto(
    tmp_path: Path, run_cli: Callable[..., Any], jobs: str
) -> None:
    """acc36b m6: under the default ``--preset auto`` the format sniff read with the fixed bound
    (1,000) whatever ``--max-inflate-ratio`` said, and the refusal always said "1,000 times"."""
    log = tmp_path / "rep.ndjson.zst"
    count = _one_record_over_and_over(log)
    for ratio in ("5", "2000"):
        result = run_cli("scope", str(log), "--max-inflate-ratio", ratio, "--jobs", jobs)
        text = " ".join(result.output.split())
        assert result.exit_code == 2, text
        assert f"inflates more than {int(ratio):,} times" in text
        assert f"(now {int(ratio):,})" in text
    result = run_cli(
        "scope", str(log), "--max-inflate-ratio", "1000000", "--jobs", jobs, "--json", "-"
    )
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    assert doc["counts"]["records_read"] == count and doc["verdict"] == "affected"
