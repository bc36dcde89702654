"""A server the tests start on 127.0.0.1 as a process of its own, and stop after (llama.cpp's
server in tests/engines, the LiteLLM proxy in tests/scope).

:func:`running` starts the command with its output (stdout and stderr) read by a thread into a
log, asks ``ready(log)`` every 0.2 s for the server's URL (``None``: not yet), and fails the test
with the log's tail when the process exits or ``seconds`` pass first; after the test it
terminates the process (killed when it does not stop within 30 s).
"""

from __future__ import annotations

import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest


@dataclass(frozen=True)
class Server:
    """A running server: its URL and every line it has said so far."""

    url: str
    log: list[str] = field(default_factory=list)


def answers(url: str) -> bool:
    """Return True when ``url`` answers 200 (a server's health or listing endpoint)."""
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def _drain(stream: Iterator[str], log: list[str]) -> None:
    log.extend(stream)  # line by line as the server says them: extend appends each as read


@contextmanager
def running(
    command: list[str],
    ready: Callable[[str], str | None],
    seconds: float,
    name: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[Server]:
    """Start ``command``; yield the :class:`Server` once ``ready`` gives its URL (see above)."""
    server = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    log: list[str] = []
    assert server.stdout is not None
    threading.Thread(target=_drain, args=(server.stdout, log), daemon=True).start()
    try:
        yield Server(_wait(server, ready, seconds, name, log), log)
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _wait(
    server: subprocess.Popen[str],
    ready: Callable[[str], str | None],
    seconds: float,
    name: str,
    log: list[str],
) -> str:
    deadline = time.monotonic() + seconds
    while True:
        url = ready("".join(log))
        if url:
            return url
        if server.poll() is not None:
            pytest.fail(f"{name} exited ({server.returncode}):\n{''.join(log)[-3000:]}")
        if time.monotonic() > deadline:
            pytest.fail(f"{name} did not start within {seconds} s:\n{''.join(log)[-3000:]}")
        time.sleep(0.2)
