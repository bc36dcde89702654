"""Time `assess report --format pdf` on answers whose note is one long run without a space.

    python benchmarks/pdf_long_text.py [--chars 200000] [--keep DIR]

Issue 36: the PDF took 45 s for a 20,000-character note without spaces and over ten minutes for
200,000 (WeasyPrint measured a break at every character). It prints the seconds and the PDF's
size; the run needs no network and writes into a temporary folder unless --keep.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ANSWERS = REPO / "samples" / "vendors" / "incident-like.yaml"


def main() -> None:
    """Write the answers, render the PDF, print the time."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=200_000)
    parser.add_argument("--keep", type=Path, default=None)
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="pdf-long-"))
    folder.mkdir(parents=True, exist_ok=True)
    note = ("Qx7" * (args.chars // 3 + 1))[: args.chars]
    text = ANSWERS.read_text(encoding="utf-8").replace(
        "note: security questionnaire reply", f"note: {note}"
    )
    answers = folder / "answers.yaml"
    answers.write_text(text, encoding="utf-8")
    out = folder / "review"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "assess", "report", "-q", str(answers), "--format", "pdf",
         "--out", str(out), "--force"],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    wall = time.monotonic() - started
    pdf = out / "report.pdf"
    size = pdf.stat().st_size if pdf.exists() else 0
    print(f"{platform.node()}, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    print(f"{args.chars:,}-character note: exit {proc.returncode}, {wall:.1f} s, PDF {size:,} B")
    if proc.returncode:
        print(proc.stderr[-2000:])


if __name__ == "__main__":
    main()
