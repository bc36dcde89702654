"""The report's long steps show progress on stderr when it is a terminal, and nothing when not."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
from pathlib import Path

from tests.conftest import REPO

ARGS = ["report", "-a", "samples/vendors/well-run.yaml", "--format", "json"]


def _run(out: Path, stderr: int) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
    return subprocess.run(
        [sys.executable, "-m", "assess", *ARGS, "--out", str(out)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=env,
        check=False,
    )


def _read_all(fd: int) -> bytes:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the terminal's other end is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def test_progress_is_shown_on_a_terminal(tmp_path: Path) -> None:
    main, side = pty.openpty()
    read: list[bytes] = []
    # read while the command runs: a full terminal buffer would block its writes
    reader = threading.Thread(target=lambda: read.append(_read_all(main)))
    reader.start()
    try:
        done = _run(tmp_path / "review", side)
    finally:
        os.close(side)
        reader.join(timeout=60)
        os.close(main)
    shown = b"".join(read).decode("utf-8", "replace")
    assert done.returncode == 0, shown
    assert "reading the inputs" in shown
    assert "writing the review (json)" in shown
    assert b"writing the review" not in done.stdout  # stdout keeps only the summary


def test_no_progress_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    done = _run(tmp_path / "review", subprocess.PIPE)
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    assert b"Wrote:" in done.stdout
