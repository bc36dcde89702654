"""Issue 36, items 2 and 14 (deploy-check part): the whole log is read, in bounded memory.

Before: only the first 32 MiB of startup text were kept (64 MB of UTF-16, unnoted), so a launch
after 37 MB of NCCL lines was never seen and the run said "pass", exit 0; ``deploy-check -`` and
``/dev/zero`` read without end (the whole input into memory first), and a 2 MB gzip bomb took
4-7 GB. Now the log streams in bounded lines to its end; past the budget, lines repeating one
shape are thinned per launch; input of unknown size and inflated gzip bytes are capped with a
clear error (exit 2).
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest

from assess.deploy.serverlogs import source as source_module
from assess.deploy.serverlogs import stream
from assess.deploy.serverlogs.registry import LAUNCH_MARKERS
from assess.deploy.serverlogs.source import read_log
from tests.deploy.conftest import sample

NCCL = (
    "gpu-node-0:{pid}:{tid} [{rank}] NCCL INFO Channel {ch:02d}/0 : {rank}[{rank}] -> "
    "{peer}[{peer}] via P2P/CUMEM/read\n"
)


def _nccl_lines(megabytes: int) -> bytes:
    line = b"".join(
        NCCL.format(
            pid=1000 + i % 7, tid=2000 + i, rank=i % 8, peer=(i + 1) % 8, ch=i % 32
        ).encode()
        for i in range(4096)
    )
    return line * (megabytes * (1 << 20) // len(line) + 1)


def late_launch_log(path: Path, megabytes: int) -> Path:
    """A passing launch, ``megabytes`` of NCCL lines, then the incident's failing prefill launch
    (benchmarks/deploy_bounds.py writes the issue's 37 MB one)."""
    path.write_bytes(
        sample("sglang-aggregated.log").read_bytes()
        + _nccl_lines(megabytes)
        + sample("sglang-prefill.log").read_bytes()
    )
    return path


def test_a_launch_after_the_budget_of_nccl_lines_is_found(
    run_cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The issue's 37 MB over a 32 MiB cut, scaled: 4 MB of NCCL lines over a 1 MiB budget."""
    monkeypatch.setattr(source_module, "MAX_KEPT_BYTES", 1 << 20)
    path = late_launch_log(tmp_path / "two.log", 4)
    result = run_cli("deploy-check", str(path), "--json", "-")
    doc = json.loads(result.stdout)
    assert result.exit_code == 1, result.stdout
    assert doc["verdict"] == "flag"
    pools = [node["pool_tokens"] for node in doc["nodes"]]
    assert 681280 in pools, pools
    assert any("were skipped" in note for node in doc["nodes"] for note in node["notes"])


def test_utf16_is_read_to_its_end(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The old UTF-16 path stopped at twice the kept budget (64 MB); lowered here to 1 MiB."""
    monkeypatch.setattr(source_module, "MAX_KEPT_BYTES", 1 << 20)
    head = sample("sglang-aggregated.log").read_text()
    filler = "".join(f"filler line {i}\n" for i in range(300_000))
    path = tmp_path / "u16.log"
    path.write_bytes((head + filler + "THE-LAST-LINE\n").encode("utf-16"))  # ~10 MB
    source = read_log(str(path), LAUNCH_MARKERS)
    assert source.problem is None
    assert source.text.rstrip().endswith("THE-LAST-LINE")
    assert "UTF-16 text, converted" in " ".join(source.notes)


def test_dev_zero_stops_at_once_with_binary(run_cli: Any) -> None:
    result = run_cli("deploy-check", "/dev/zero", "--json", "-")
    assert result.exit_code == 1 and "Traceback" not in result.output
    node = json.loads(result.stdout)["nodes"][0]
    assert node["verdict"] == "inconclusive"
    assert "binary data" in json.dumps(node)


def test_endless_stdin_stops_at_the_documented_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """An endless text stream: the cap (lowered here) ends it with a clear InputError."""
    monkeypatch.setattr(source_module, "MAX_STREAM_BYTES", 8 << 20)
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys\nwhile True: sys.stdout.write('INFO hello\\n' * 4096)"],
        stdout=subprocess.PIPE,
    )
    assert proc.stdout is not None
    try:
        with pytest.raises(Exception, match="more than 8 MiB of input of unknown size"):
            source_module._read_stream("<stdin>", "-", proc.stdout, (LAUNCH_MARKERS, ()))
    finally:
        proc.kill()
        proc.wait()


def test_endless_stdin_in_a_subprocess_is_exit_2() -> None:
    """`yes | assess deploy-check -` with the cap lowered through the module: exit 2, no trace."""
    code = (
        "import sys\n"
        "import assess.deploy.serverlogs.source as s\n"
        "s.MAX_STREAM_BYTES = 4 << 20\n"
        "from assess.cli import main\n"
        "sys.argv = ['assess', 'deploy-check', '-']\n"
        "main()\n"
    )
    feeder = subprocess.Popen(["yes", "INFO still starting"], stdout=subprocess.PIPE)
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code], stdin=feeder.stdout, capture_output=True, timeout=120
        )
    finally:
        feeder.kill()
        feeder.wait()
    assert proc.returncode == 2, proc.stderr
    assert b"more than 4 MiB of input of unknown size" in proc.stderr
    assert b"Traceback" not in proc.stderr


def test_a_gzip_bomb_is_capped_on_inflated_bytes(tmp_path: Path) -> None:
    """Blank lines compress about 1000:1; the cap counts what they inflate to."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"\n" * (1 << 20)
    data = b"".join(compressor.compress(block) for _ in range(64)) + compressor.flush()
    path = tmp_path / "bomb.log.gz"
    path.write_bytes(data)  # ~64 KB inflating to 64 MiB
    assert path.stat().st_size < 1 << 20
    cap = stream.MAX_INFLATED_BYTES
    try:
        stream.MAX_INFLATED_BYTES = 16 << 20
        source_module.MAX_INFLATED_BYTES = 16 << 20
        with pytest.raises(Exception, match="inflates past 16 MiB"):
            read_log(str(path))
    finally:
        stream.MAX_INFLATED_BYTES = cap
        source_module.MAX_INFLATED_BYTES = cap


def test_one_endless_line_is_cut_not_held(tmp_path: Path) -> None:
    path = tmp_path / "long.log"
    path.write_bytes(b"x" * (3 * stream.MAX_LINE_BYTES) + b"\n" + b"sglang ok\n")
    source = read_log(str(path))
    assert source.text.endswith("sglang ok\n")
    assert any("longer than 1 MiB were cut" in note for note in source.notes)


def test_distinct_text_past_twice_the_budget_is_inconclusive(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(source_module, "MAX_KEPT_BYTES", 1 << 20)
    path = tmp_path / "distinct.log"
    # digits spelt as letters: every line has a shape of its own
    lines = ("".join(chr(97 + int(d)) for d in f"{i:07d}") * 4 + "\n" for i in range(200_000))
    path.write_text("".join(lines))
    source = read_log(str(path))
    assert source.problem is not None and "not read to its end" in source.problem


def test_gzip_log_still_streams(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(source_module, "MAX_KEPT_BYTES", 1 << 20)
    path = tmp_path / "late.log.gz"
    path.write_bytes(gzip.compress(late_launch_log(tmp_path / "two.log", 4).read_bytes(), 1))
    source = read_log(str(path), LAUNCH_MARKERS)
    assert "max_total_num_tokens=681280" in source.text
