"""The report's long steps show progress on stderr when it is a terminal, and nothing when not."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from assess.kernel import output
from tests.conftest import REPO

ARGS = ["report", "-a", "samples/vendors/well-run.yaml", "--format", "json"]


def _run(out: Path, stderr: int, args: list[str] = ARGS) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
    return subprocess.run(
        [sys.executable, "-m", "assess", *args, "--out", str(out)],
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


def _on_a_terminal(out: Path, args: list[str] = ARGS) -> tuple[Any, str]:
    """Run the report with stderr on a pseudo-terminal; return the run and what it showed."""
    main, side = pty.openpty()
    read: list[bytes] = []
    # read while the command runs: a full terminal buffer would block its writes
    reader = threading.Thread(target=lambda: read.append(_read_all(main)))
    reader.start()
    try:
        done = _run(out, side, args)
    finally:
        os.close(side)
        reader.join(timeout=120)
        os.close(main)
    return done, b"".join(read).decode("utf-8", "replace")


def test_progress_is_shown_on_a_terminal(tmp_path: Path) -> None:
    done, shown = _on_a_terminal(tmp_path / "review")
    assert done.returncode == 0, shown
    assert "reading the inputs" in shown
    assert "writing the review (json)" in shown
    assert b"writing the review" not in done.stdout  # stdout keeps only the summary


def test_no_progress_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    done = _run(tmp_path / "review", subprocess.PIPE)
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    assert b"Wrote:" in done.stdout


def test_the_pdf_rendering_shows_a_bar_on_a_terminal(tmp_path: Path) -> None:
    args = ["report", "-a", "samples/vendors/well-run.yaml", "--format", "pdf"]
    done, shown = _on_a_terminal(tmp_path / "review", args)
    assert done.returncode == 0, shown
    assert "writing the review (pdf)" in shown
    # a bar on the writing step's line (the spinner of a run without a PDF has none)
    assert re.search(r"writing the review \(pdf\)[^\r\n]*━", shown), shown[-2000:]
    assert b"writing the review" not in done.stdout


def test_the_bar_follows_weasyprint_rendering_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    """The installed WeasyPrint logs its steps as the bar reads them (1 to 7, 5 per page)."""
    from weasyprint import HTML

    seen: list[tuple[int, int | None]] = []

    @contextmanager
    def recording(description: str, unit_bytes: bool = True) -> Iterator[Any]:
        yield lambda done, total: seen.append((done, total))

    monkeypatch.setattr(output, "progress_bar", recording)
    with output.logged_steps("weasyprint.progress", "rendering", 7):
        HTML(string="<p>one</p><p style='break-before: page'>two</p>").write_pdf()
    steps = [done for done, total in seen if total == 7]
    assert steps[0] == 0 and steps[-1] == 7
    assert steps.count(5) == 2  # one per page laid out
    assert steps == sorted(steps)
    with output.logged_steps("weasyprint.progress", "rendering", 7):
        pass
    before = len(seen)
    HTML(string="<p>after</p>").write_pdf()
    assert len(seen) == before  # the handler is removed when the step ends
