"""llama.cpp's server (llama-cpp-python[server], built from its sdist) in a virtualenv of its own,
for the real-engine tests of tests/engines/ (made and cached by tests/cached_venv.py).

llama-cpp-python ships no binary wheel on PyPI for Linux: pip builds its sdist (the vendored
llama.cpp, with CMake; about ten minutes on two cores). The built wheel is kept under the user's
cache (``assess-tests/wheels/``), so a new venv (another Python, a wiped venv) reinstalls it in
seconds instead of rebuilding; the venv itself (``assess-tests/llama-cpp-python-<v>-py<xy>``,
with the ``gguf`` package the test writes its model with) is made once and reused. Neither ever
enters the project's venv.

`make test-engines` runs ``python -m tests.engines.llama_venv`` first (it fails when the engine
cannot be built: the target exists to run it); pytest alone calls :func:`ensure` and skips with
the reason instead.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from tests import cached_venv
from tests.cached_venv import cache_root, python_tag, run_step

#: The release the tests run (PyPI, sdist only for Linux).
LLAMA_CPP_VERSION = "0.3.36"
SPEC = f"llama-cpp-python=={LLAMA_CPP_VERSION}"
#: The model writer (ggml-org's gguf-py on PyPI), installed next to the server.
GGUF_SPEC = "gguf==0.19.0"
#: Portable CPU code (the wheel is cached and may outlive the CPU it was built on), no tests or
#: examples of llama.cpp: the server needs the library only.
CMAKE_ARGS = "-DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"
#: Bounds on the build and on one install, so a hung step cannot hold `make test-engines` for ever.
BUILD_SECONDS = 3600
INSTALL_SECONDS = 1200


def venv_dir() -> Path:
    """Return the cached venv's folder for this llama-cpp-python and Python version."""
    return cache_root() / f"llama-cpp-python-{LLAMA_CPP_VERSION}-{python_tag()}"


def wheel_dir() -> Path:
    """Return the folder the built wheel is kept in (one per Python version)."""
    return cache_root() / "wheels" / f"llama-cpp-python-{LLAMA_CPP_VERSION}-{python_tag()}"


def cached_wheel() -> Path | None:
    """Return the wheel built earlier, if any."""
    found = sorted(wheel_dir().glob(f"llama_cpp_python-{LLAMA_CPP_VERSION}-*.whl"))
    return found[-1] if found else None


def _install(folder: Path) -> str:
    """Build the wheel once (kept), then install it with the server extra and gguf."""
    python = str(folder / "bin" / "python")
    why = ""
    if cached_wheel() is None:
        env = dict(os.environ, CMAKE_ARGS=CMAKE_ARGS, CMAKE_BUILD_PARALLEL_LEVEL="2")
        build = [python, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-binary",
                 "llama-cpp-python", "-w", str(wheel_dir()), SPEC]  # fmt: skip
        why = run_step(build, BUILD_SECONDS, env)
    wheel = cached_wheel()
    if not why and wheel is None:
        why = f"pip wheel {SPEC} left no wheel in {wheel_dir()}"
    if not why and wheel is not None:
        install = [python, "-m", "pip", "install", "--quiet", f"{wheel}[server]", GGUF_SPEC]
        why = run_step(install, INSTALL_SECONDS)
    return why


def ensure() -> tuple[Path | None, str]:
    """Make the venv if it is not there; return (its python, "") or (None, why not)."""
    return cached_venv.ensure(venv_dir(), "python", f"{SPEC}[server]", _install, INSTALL_SECONDS)


def main() -> int:
    """Install (or find) the venv and say so; exit 1 when it cannot be made."""
    started = time.monotonic()
    python, why = ensure()
    if python is None:
        print(f"llama-cpp-python venv: {why}", file=sys.stderr)
        return 1
    print(
        f"llama-cpp-python venv: {python.parent.parent} ready in {time.monotonic() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
