"""Process tuning of the ``assess`` command, kept apart from the commands themselves.

:func:`main <assess.cli.main>` calls :func:`before_imports` before the command's modules are
imported, :func:`after_imports` once they are, and ends through :func:`leave`. What is left was
worth at least 3% in an interleaved A/B of 10 runs of the scope command of
``benchmarks/scope_bench.py --rows 1000000``: the allocator setting and the pandas blocker (CPU
-6% and -8%), and the pair that spares the interpreter's teardown (``gc.freeze`` after the
imports and ``os._exit``: each alone under 1%, as the other does the work; removed together
with the OpenBLAS default, +5.5% CPU). The ``OPENBLAS_NUM_THREADS=1`` default measured under 1%
at 1M rows and was removed, then put back: on a 2,000-line log it saves 23% CPU (numpy's idle
OpenBLAS threads spin at start-up). Figures: docs/PERFORMANCE.md.
Nothing here changes what a command computes or writes.
"""

from __future__ import annotations

import gc
import os
import sys
from typing import Any, NoReturn

#: Commands that read request logs through pyarrow.
READ_LOGS = frozenset({"scope", "report"})

#: glibc ``mallopt`` options (malloc.h) and the values :func:`reuse_freed_blocks` sets.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_ALLOCATOR = ((_M_MMAP_THRESHOLD, 64 << 20), (_M_TRIM_THRESHOLD, 1 << 30))


def before_imports(command: str | None) -> None:
    """Tune the process for ``command`` before its modules are imported (log commands: -6% CPU
    for the allocator, -8% for pandas, at 1M rows)."""
    # numpy (imported by pyarrow) starts OpenBLAS worker threads that spin on a 2-core machine;
    # assess does no linear algebra. Only a default: the user's own setting wins.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # the imports make objects that live for the whole run, not garbage: collecting while they
    # are made only slows start-up
    gc.disable()
    if command in READ_LOGS:
        reuse_freed_blocks()
        pyarrow_without_pandas()


def after_imports() -> None:
    """Keep the objects the imports made out of every collection, the interpreter's final one
    at exit included, and collect again."""
    gc.freeze()
    gc.enable()


def reuse_freed_blocks() -> bool:
    """Let glibc reuse the memory of freed 16 MB log blocks instead of mapping fresh pages.

    The NDJSON reader assembles one 16 MB block after another. By default glibc serves requests
    that size with fresh mappings (its mmap threshold follows the last block freed) or from
    per-thread heaps that it trims, and every page of fresh memory faults on first touch: 189,000
    page faults and 1.2 s of kernel time over 5M rows. A fixed 64 MB mmap threshold and trimming
    only above 1 GB keep freed blocks for the next ones. glibc only; returns whether the settings
    were applied.
    """
    try:
        if not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"):
            return False
    except (AttributeError, ValueError, OSError):  # not glibc, or no confstr on this system
        return False
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    return all(libc.mallopt(option, value) == 1 for option, value in _ALLOCATOR)


def pyarrow_without_pandas() -> None:
    """Let pyarrow find no pandas in this process.

    pyarrow imports pandas the first time ``pa.array`` or ``pa.table`` checks whether it was
    handed a pandas object: 0.2 s, holding the GIL that the log reader's threads need at the
    start of a run. assess never hands it one. pyarrow tries that import once and keeps the
    answer, so the try is made to fail here; ``import pandas`` itself works again afterwards.
    """
    if "pandas" in sys.modules:
        return
    import pyarrow as pa

    blocker = _NoPandas()
    sys.meta_path.insert(0, blocker)
    try:
        pa.array([0])
    finally:
        sys.meta_path.remove(blocker)


class _NoPandas:
    """An import finder (``sys.meta_path`` entry) that says pandas is not installed."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if fullname == "pandas":
            raise ModuleNotFoundError("pandas is kept out of this run", name=fullname)
        return None


def leave(code: object) -> NoReturn:
    """Exit with ``code`` (as ``sys.exit`` reads it) without tearing the interpreter down.

    Every output is written, closed and renamed into place before a command returns, so the
    teardown would only free memory the system takes back anyway, and it is not free. With
    :func:`after_imports` it is the pair of pieces that avoid the teardown's work: each alone
    measured under 1%; removing both (with the OpenBLAS default) cost 5.5% CPU at 1M rows, and
    this one alone 9% on a small log.
    """
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (assess ... | head): nothing left to say
            pass
    os._exit(status)
