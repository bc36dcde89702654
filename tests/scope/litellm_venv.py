"""The LiteLLM proxy from PyPI in a virtualenv of its own, for tests/scope/test_litellm_proxy.py.

litellm[proxy] pins versions that conflict with this project's (fastapi, pydantic, boto3, rich...),
so it never enters the project's venv: it lives under the user's cache, one venv per LiteLLM and
Python version, made once (about 4 minutes and 750 MB on a fresh machine, measured) and reused.

`make test` runs ``python -m tests.scope.litellm_venv`` first, so a clean machine (CI) installs it
before the suite; the test calls :func:`ensure` too, so running pytest alone works. When the
package cannot be installed (no registry, no wheel for this platform) the test is skipped with
the reason; the next run tries again.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

#: The release the test runs (1.107.0 was a compromised release, withdrawn from PyPI; 1.108 and
#: later need a `litellm-proxy` package for the proxy extra that PyPI does not carry).
LITELLM_VERSION = "1.106.12"
SPEC = f"litellm[proxy]=={LITELLM_VERSION}"
#: A bound on one install, so a hung download cannot hold `make test` for ever.
INSTALL_SECONDS = 1200


def venv_dir() -> Path:
    """Return the cached venv's folder for this LiteLLM and Python version."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    python = f"py{sys.version_info.major}{sys.version_info.minor}"
    return Path(cache) / "assess-tests" / f"litellm-{LITELLM_VERSION}-{python}"


def litellm_command(folder: Path | None = None) -> Path:
    """Return the `litellm` console script of the venv (it may not exist yet)."""
    return (folder or venv_dir()) / "bin" / "litellm"


def _ready(folder: Path) -> bool:
    return (folder / ".installed").is_file() and litellm_command(folder).is_file()


def ensure() -> tuple[Path | None, str]:
    """Make the venv if it is not there; return (the `litellm` script, "") or (None, why not).

    The venv is made in place and marked ``.installed`` last, so a run cut short is made again.
    """
    folder = venv_dir()
    if _ready(folder):
        return litellm_command(folder), ""
    folder.parent.mkdir(parents=True, exist_ok=True)
    # two test runs at once (two worktrees, say): the second waits, then finds the venv made
    with (folder.parent / f"{folder.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _ready(folder):
            return litellm_command(folder), ""
        return _install(folder)


def _install(folder: Path) -> tuple[Path | None, str]:
    shutil.rmtree(folder, ignore_errors=True)
    started = time.monotonic()
    steps = [
        [sys.executable, "-m", "venv", str(folder)],
        [str(folder / "bin" / "python"), "-m", "pip", "install", "--quiet", SPEC],
    ]
    try:
        for step in steps:
            done = subprocess.run(
                step, capture_output=True, text=True, timeout=INSTALL_SECONDS, check=False
            )
            if done.returncode != 0:
                tail = (done.stderr or done.stdout).strip().splitlines()[-2:]
                return None, _failed(folder, f"{' '.join(step[-3:])}: {' | '.join(tail)}")
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, _failed(folder, f"{type(exc).__name__}: {exc}")
    (folder / ".installed").write_text(f"{SPEC} in {time.monotonic() - started:.0f} s\n")
    return litellm_command(folder), ""


def _failed(folder: Path, why: str) -> str:
    shutil.rmtree(folder, ignore_errors=True)
    return f"cannot install {SPEC} into {folder}: {why}"


def main() -> int:
    """Install (or find) the venv and say so; never fail `make test`: the test skips instead."""
    started = time.monotonic()
    script, why = ensure()
    if script is None:
        print(f"litellm venv: {why} (tests/scope/test_litellm_proxy.py will be skipped)")
    else:
        print(f"litellm venv: {script.parent.parent} ready in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
