"""Where the test suite's time goes: run pytest, then print the slowest tests and files.

    python benchmarks/test_times.py [--top 30] [PYTEST ARGS...]   (default: the whole suite)

It prints the wall time, the load average before and after (two cores are often shared: the
wall time moves with the load), the sum of every test's own time (setup, call and teardown, from
pytest's JUnit XML) and the CPU time used, which move less with the load, then the slowest tests
and modules. The project keeps `make test` under about eight minutes on two cores; this is how
to see which tests to look at when it is not.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_ARGS = ["tests"]  # as make test runs it


def times(junit: Path) -> dict[str, float]:
    """Return each test's seconds (setup, call and teardown) from pytest's JUnit XML."""
    found: dict[str, float] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        # classname is the dotted module (and class, for a test in a class)
        found[f"{case.get('classname', '')}::{case.get('name', '')}"] = float(case.get("time", "0"))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=30, help="how many tests and files to list")
    ours, pytest_args = parser.parse_known_args()
    with tempfile.TemporaryDirectory() as folder:
        junit = Path(folder) / "junit.xml"
        load_before = os.getloadavg()
        started = time.monotonic()
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly"]
        command += [
            *(pytest_args or DEFAULT_ARGS),
            f"--junitxml={junit}",
            "-o",
            "junit_family=xunit1",
        ]
        done = subprocess.run(command, cwd=REPO, check=False)
        wall = time.monotonic() - started
        load_after = os.getloadavg()
        if not junit.is_file():
            print(f"pytest wrote no report (exit {done.returncode})", file=sys.stderr)
            return 2
        found = times(junit)
    by_file: dict[str, float] = defaultdict(float)
    for name, seconds in found.items():
        by_file[name.split("::")[0]] += seconds
    print(f"\npytest exit {done.returncode}; {len(found)} tests; wall {wall:.0f} s")
    loads = f"load average before {load_before[0]:.1f}, after {load_after[0]:.1f}"
    print(f"{loads} ({os.cpu_count()} cpus)")
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"sum of the tests' own times: {sum(found.values()):.0f} s")
    print(f"CPU time of pytest and its subprocesses: {used.ru_utime + used.ru_stime:.0f} s")
    print(f"\nslowest {ours.top} tests:")
    for name, seconds in sorted(found.items(), key=lambda kv: -kv[1])[: ours.top]:
        print(f"{seconds:8.1f} s  {name}")
    print(f"\nslowest {ours.top} modules (summed):")
    for name, seconds in sorted(by_file.items(), key=lambda kv: -kv[1])[: ours.top]:
        print(f"{seconds:8.1f} s  {name}")
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
