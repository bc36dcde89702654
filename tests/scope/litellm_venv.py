"""The LiteLLM proxy from PyPI in a virtualenv of its own, for tests/scope/test_litellm_proxy.py
(made and cached by tests/cached_venv.py).

litellm[proxy] pins versions that conflict with this project's (fastapi, pydantic, boto3, rich...),
so it never enters the project's venv: it lives under the user's cache, one venv per LiteLLM and
Python version, made once (about 4 minutes and 750 MB on a fresh machine, measured) and reused.

`make test` runs ``python -m tests.scope.litellm_venv`` first, so a clean machine (CI) installs it
before the suite; the test calls :func:`ensure` too, so running pytest alone works. When the
package cannot be installed (no registry, no wheel for this platform) the test is skipped with
the reason; the next run tries again.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tests import cached_venv
from tests.cached_venv import cache_root, python_tag, run_step

#: The release the test runs (1.107.0 was a compromised release, withdrawn from PyPI; 1.108 and
#: later need a `litellm-proxy` package for the proxy extra that PyPI does not carry).
LITELLM_VERSION = "1.106.12"
SPEC = f"litellm[proxy]=={LITELLM_VERSION}"
#: A bound on one install, so a hung download cannot hold `make test` for ever.
INSTALL_SECONDS = 1200


def venv_dir() -> Path:
    """Return the cached venv's folder for this LiteLLM and Python version."""
    return cache_root() / f"litellm-{LITELLM_VERSION}-{python_tag()}"


def _install(folder: Path) -> str:
    return run_step([str(folder / "bin" / "python"), "-m", "pip", "install", "--quiet", SPEC],
                    INSTALL_SECONDS)  # fmt: skip


def ensure() -> tuple[Path | None, str]:
    """Make the venv if it is not there; return (the `litellm` script, "") or (None, why not)."""
    return cached_venv.ensure(venv_dir(), "litellm", SPEC, _install, INSTALL_SECONDS)


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
