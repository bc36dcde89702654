"""CPU cost of matching our prompts in over-length responses (``own_overlap``): `assess scope`
on the generated log of :mod:`benchmarks.scope_bench`, with and without ``--no-own-overlap``, in
interleaved pairs (A B, then B A), each in a fresh process; prints the median CPU seconds (user +
system) of each and the median of the pairwise ratios (docs/exposure.md "Cost of the details").

    python -m benchmarks.overlap_cost --rows 300000 --pairs 5 [--keep DIR]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from benchmarks.scope_bench import _scope_cmd, _timed, generate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()))
    args = parser.parse_args()
    log = args.keep / f"overlap-bench-{args.rows}.ndjson.gz"
    if not log.exists():
        generate(log, args.rows)
    on = _scope_cmd(log, args.keep / "overlap-on.json")
    off = [*_scope_cmd(log, args.keep / "overlap-off.json")[:-2], "--no-own-overlap"]
    off += ["--json", str(args.keep / "overlap-off.json")]
    for cmd in (on, off):  # warm-up
        _timed(cmd, ok=(0, 1))
    cpu: dict[str, list[float]] = {"on": [], "off": []}
    ratios = []
    for i in range(args.pairs):
        order = [("on", on), ("off", off)] if i % 2 == 0 else [("off", off), ("on", on)]
        for name, cmd in order:
            cpu[name].append(_timed(cmd, ok=(0, 1))[3])
        ratios.append(cpu["on"][-1] / cpu["off"][-1])
    print(
        f"rows {args.rows:,}, pairs {args.pairs}: CPU s with own_overlap "
        f"{statistics.median(cpu['on']):.3f}, --no-own-overlap "
        f"{statistics.median(cpu['off']):.3f}; "
        f"median pair ratio {statistics.median(ratios):.3f} "
        f"(min {min(ratios):.3f}, max {max(ratios):.3f})"
    )


if __name__ == "__main__":
    main()
