"""Issue 36's deploy-check inputs at full size: time, peak RSS and exit code of each.

    python benchmarks/deploy_bounds.py [--keep DIR]

1. a passing SGLang launch, 37 MB of NCCL lines, then the incident's failing prefill launch
   (expected: exit 1, the late launch's pool 681,280 found);
2. a 2 MB-class gzip of blank lines inflating past the 1 GiB cap (expected: exit 2, the cap named);
3. ``/dev/zero`` (expected: stops at once, binary data, inconclusive).
Each runs `assess deploy-check` in a fresh process.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples" / "serverlogs"
NCCL = (
    "gpu-node-0:{pid}:{tid} [{rank}] NCCL INFO Channel {ch:02d}/0 : {rank}[{rank}] -> "
    "{peer}[{peer}] via P2P/CUMEM/read\n"
)


def late_launch(path: Path, megabytes: int) -> Path:
    """Write a passing launch, ``megabytes`` of NCCL lines, then the failing prefill launch."""
    block = "".join(
        NCCL.format(pid=1000 + i % 7, tid=2000 + i, rank=i % 8, peer=(i + 1) % 8, ch=i % 32)
        for i in range(4096)
    ).encode()
    with path.open("wb") as out:
        out.write((SAMPLES / "sglang-aggregated.log").read_bytes())
        for _ in range(megabytes * (1 << 20) // len(block) + 1):
            out.write(block)
        out.write((SAMPLES / "sglang-prefill.log").read_bytes())
    return path


def blank_bomb(path: Path, gibibytes: float) -> Path:
    """Write a gzip of blank lines inflating to ``gibibytes`` GiB."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"\n" * (1 << 24)
    with path.open("wb") as out:
        for _ in range(int(gibibytes * 64)):
            out.write(compressor.compress(block))
        out.write(compressor.flush())
    return path


def run(label: str, *args: str) -> None:
    """Run `assess deploy-check ARGS` and print its exit code, wall time and peak RSS."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "assess", "deploy-check", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    wall = time.monotonic() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    last = (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-1:]
    print(
        f"{label}: exit {proc.returncode}, {wall:.1f} s, peak RSS >= {max(peak, before) >> 10} MB"
    )
    print(f"    {last[0][:160] if last else ''}")


def main() -> None:
    """Write the inputs and time each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()))
    folder = parser.parse_args().keep
    folder.mkdir(parents=True, exist_ok=True)
    print(
        f"{platform.node()} {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {sys.version.split()[0]}"
    )
    late = late_launch(folder / "late-launch.log", 37)
    print(f"late-launch.log: {late.stat().st_size / 1e6:.1f} MB")
    run("37 MB of NCCL lines, then a launch", str(late))
    bomb = blank_bomb(folder / "bomb.log.gz", 4)
    print(f"bomb.log.gz: {bomb.stat().st_size / 1e6:.1f} MB, inflating to 4 GiB")
    run("gzip bomb", str(bomb))
    run("/dev/zero", "/dev/zero")


if __name__ == "__main__":
    main()
