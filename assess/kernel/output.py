"""Shared output helpers: a stdout console, stable versioned JSON, progress on stderr."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any, Protocol, cast

from pydantic import BaseModel
from rich.console import Console


class TrimmedLines:
    """A text stream that drops the spaces before each line break of what it passes on.

    rich pads every table cell to its column's width, centres titles and breaks long lines after
    a space, so piped output (a file, ``grep``, a diff of two runs) carried trailing spaces.
    Spaces at the end of a write are held until the next write shows whether a line break
    follows them (rich may print a line in several writes); what is left at the end is
    trailing, so dropped.
    """

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.held = ""

    def write(self, text: str) -> int:
        joined = self.held + text
        body = joined.rstrip(" ")
        self.held = joined[len(body) :]
        self.stream.write(_TRAILING.sub("\n", body))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:  # encoding, fileno, ... as the stream's
        return getattr(self.stream, name)


_TRAILING = re.compile(r" +\n")


def _trimmed(stream: IO[str] | None) -> IO[str] | None:
    """Return ``stream`` wrapped in :class:`TrimmedLines` when it is not a terminal, else None
    (rich's own default: the stream as it is when printing)."""
    if stream is None or stream.isatty():
        return None
    return cast(IO[str], TrimmedLines(stream))


def stdout_console() -> Console:
    """Return a console on stdout: no colour codes, and no trailing spaces, when not a
    terminal (:class:`TrimmedLines`)."""
    return Console(file=_trimmed(sys.stdout), highlight=False, soft_wrap=False)


def stderr_console() -> Console:
    """Return a console on stderr, for progress and warnings (trimmed as stdout's)."""
    return Console(file=_trimmed(sys.stderr), stderr=True, highlight=False)


def to_json(document: BaseModel | dict[str, Any]) -> str:
    """Return ``document`` as stable, indented JSON (field order as declared, UTF-8)."""
    if isinstance(document, BaseModel):
        return document.model_dump_json(indent=2) + "\n"
    return json.dumps(document, indent=2, ensure_ascii=False, default=str) + "\n"


class ProgressCallback(Protocol):
    """What the core calls to report progress: units done so far, total if known."""

    def __call__(self, done: int, total: int | None) -> None: ...


def _noop(done: int, total: int | None) -> None:
    return None


@contextmanager
def step(description: str) -> Iterator[None]:
    """Show ``description`` with a spinner on stderr while a long step runs; nothing when stderr
    is not a TTY (CI, a pipe, a file). Not inside a :func:`progress_bar` (one live display)."""
    if not sys.stderr.isatty():
        yield
        return
    with stderr_console().status(description):
        yield


@contextmanager
def progress_bar(description: str, unit_bytes: bool = True) -> Iterator[ProgressCallback]:
    """Yield a progress callback drawing a bar on stderr, or a no-op when stderr is not a TTY."""
    if not sys.stderr.isatty():
        yield _noop
        return
    # imported here: 40 ms that a run without a terminal (CI, a pipe) does not need
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    columns: list[Any] = [TextColumn("{task.description}"), BarColumn()]
    if unit_bytes:
        columns += [DownloadColumn(), TransferSpeedColumn()]
    columns.append(TimeRemainingColumn())
    with Progress(*columns, console=stderr_console(), transient=True) as progress:
        task = progress.add_task(description, total=None)

        def update(done: int, total: int | None) -> None:
            progress.update(task, completed=done, total=total)

        yield update


@contextmanager
def logged_steps(logger: str, description: str, steps: int) -> Iterator[ProgressCallback]:
    """Draw a bar on stderr over the ``steps`` numbered steps a library logs at INFO on
    ``logger`` as ``Step N ...`` (WeasyPrint's ``weasyprint.progress``: 7 steps, step 5 once per
    page laid out); nothing when stderr is not a TTY. Yields the bar's callback."""
    import logging
    import re

    with progress_bar(description, unit_bytes=False) as update:
        if update is _noop:
            yield update
            return
        step_number = re.compile(r"Step (\d+)")

        class _Steps(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                found = step_number.match(record.getMessage())
                if found:
                    update(int(found.group(1)), steps)

        log = logging.getLogger(logger)
        handler, level = _Steps(), log.level
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        try:
            update(0, steps)
            yield update
        finally:
            log.removeHandler(handler)
            log.setLevel(level)
