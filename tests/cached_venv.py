"""A virtualenv of its own, cached on disk, for a tool the tests run that must stay out of the
project's venv (LiteLLM's proxy pins conflicting versions; llama.cpp's server is a native build).

One venv per tool, version and Python under ``$XDG_CACHE_HOME/assess-tests`` (default
``~/.cache``), made once and reused: :func:`ensure` takes a lock (two test runs at once, from two
worktrees, say: the second waits, then finds the venv made), makes the venv in place with the
tool's own install steps, and marks it ``.installed`` last, so a run cut short is made again. A
venv that cannot be made is removed and the reason returned, for the test to skip with (or
``make`` to fail with). Used by tests/scope/litellm_venv.py and tests/engines/llama_venv.py.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

#: What a venv's ``install(folder)`` does: its steps after ``python -m venv``; "" or why it failed.
Install = Callable[[Path], str]


def cache_root() -> Path:
    """Return the folder every test venv lives in (``$XDG_CACHE_HOME/assess-tests``)."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "assess-tests"


def python_tag() -> str:
    """Return ``pyXY`` for this interpreter (a venv is made per Python version)."""
    return f"py{sys.version_info.major}{sys.version_info.minor}"


def run_step(step: list[str], seconds: int, env: dict[str, str] | None = None) -> str:
    """Run one install step; return "" or the last lines of what it said when it failed."""
    try:
        done = subprocess.run(
            step, capture_output=True, text=True, timeout=seconds, check=False, env=env
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{type(exc).__name__}: {exc}"
    if done.returncode == 0:
        return ""
    tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
    return f"{' '.join(step[:4])}...: {' | '.join(tail)}"


def ensure(
    folder: Path, entry: str, spec: str, install: Install, seconds: int
) -> tuple[Path | None, str]:
    """Make the venv ``folder`` if it is not there; return (its ``bin/ENTRY``, "") or (None, why
    not). ``install`` runs in the new venv; ``seconds`` bounds ``python -m venv``."""
    path = folder / "bin" / entry

    def ready() -> bool:
        return (folder / ".installed").is_file() and path.is_file()

    if ready():
        return path, ""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with (folder.parent / f"{folder.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if ready():
            return path, ""
        shutil.rmtree(folder, ignore_errors=True)
        started = time.monotonic()
        why = run_step([sys.executable, "-m", "venv", str(folder)], seconds) or install(folder)
        if why:
            shutil.rmtree(folder, ignore_errors=True)
            return None, f"cannot install {spec} into {folder}: {why}"
        (folder / ".installed").write_text(f"{spec} in {time.monotonic() - started:.0f} s\n")
        return path, ""
