"""Many log files scoped on every core: one worker process per file, totals merged in file order.

Each worker reads one file through the run's preset into its own
:class:`~assess.scope.accumulator.ScopeAccumulator`; the parent merges them in the order of the
files (:meth:`~assess.scope.accumulator.ScopeAccumulator.merge`), which is the order serial reading
adds batches in, so the document is the serial one exactly (counts, first skipped records, request
ids and their order). Workers are not forked from the caller (polars' thread pool and the progress
bar's thread do not survive a fork) but from a fork server that imported the readers once (where
there is none, they are spawned). The first pool of a process still costs a second or two of
imports, so a run goes parallel only when there are several files and enough bytes
(:data:`MIN_BYTES`). One file's read already keeps about two cores busy (inflating, parsing and
counting overlap), so processes pay off only on big inputs: on two cores
(``benchmarks/remote_bench.py``) 4 x 250,000 rows (161 MB) took 15.6 s serial and 20.8 s with
two processes, 4 x 1,000,000 rows (645 MB) 53.2 s serial and 36.8 s with two.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING

from assess.kernel.common import InputFile
from assess.kernel.output import ProgressCallback
from assess.scope.accumulator import ScopeAccumulator
from assess.scope.logs.presets import Preset
from assess.scope.models import ScopeFilter

if TYPE_CHECKING:  # multiprocessing is imported only when a run goes parallel
    from multiprocessing.context import BaseContext

#: A worker's copy of a remote object: (file, bytes in it, whether that is the whole object).
Kept = tuple[str, int, bool]
#: What a worker sends back: the file's accumulator, input evidence, content identity and its
#: copy of the object (None for a local file), which the parent reads again from or deletes.
Outcome = tuple[ScopeAccumulator, list[InputFile], list[str | None], Kept | None]

#: Below this many bytes in all, starting workers costs more than it saves (measured: see above).
MIN_BYTES = 256 << 20


@dataclass(frozen=True)
class Job:
    """What a worker needs to scope one file as the serial run would."""

    file: Path
    preset: Preset
    scope: ScopeFilter
    keep_text: bool
    fast: bool
    max_line_bytes: int
    #: The caller's ``--max-inflate-ratio``.
    max_inflate_ratio: int
    #: The caller's object-storage settings now: a fork server keeps the environment it started
    #: with, which may predate them (an API caller that set AWS_ENDPOINT_URL since).
    storage_env: tuple[tuple[str, str], ...] = ()
    #: The run's folder for the workers' copies of remote objects (deleted by the parent).
    keep_in: str | None = None
    #: The bytes of a text object a copy holds (``spool.KEEP`` of the caller).
    keep: int | None = None


def workers(files: Sequence[Path], jobs: int | None, preset: Preset) -> int:
    """Return how many processes to use: ``jobs`` when given (0 = one per core), else one per
    core when the files are several and large enough; 1 means serial.

    A preset with a joined side table reads every file before any row, so it stays serial.
    """
    if preset.join is not None or len(files) < 2:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = cores or 1
    if jobs is None:
        total = sum(f.stat().st_size for f in files)
        jobs = 0 if total >= MIN_BYTES else 1
    return min(jobs or cores, len(files))


def scope_one(job: Job) -> Outcome:
    """Return the accumulator, input evidence and content identity of one file (runs in a
    worker process)."""
    from assess.scope.logs.engine import LogReader
    from assess.scope.logs.remote import RemoteFile

    os.environ.update(dict(job.storage_env))
    remote = job.file if isinstance(job.file, RemoteFile) else None
    if remote is not None:
        remote.folder, remote.keep = job.keep_in, job.keep
    acc = ScopeAccumulator(job.scope, keep_text=job.keep_text)
    reader = LogReader([job.file], job.preset, fast=job.fast)
    reader.max_line_bytes = job.max_line_bytes
    reader.max_inflate_ratio = job.max_inflate_ratio
    try:
        for batch in reader.batches():
            acc.add(batch)  # loads the details of the rows it keeps
        acc.forget_masks()  # the last block's columns need not travel back
        kept = remote.spool().hand_back(job.keep_in) if remote and job.keep_in else None
    finally:
        reader.release()  # the spool's own file (a copy handed back is another name)
    return acc, reader.inputs, reader.contents, kept


_STORAGE_PREFIXES = ("AWS_", "GOOGLE_", "STORAGE_EMULATOR_HOST", "GCE_")


def storage_env() -> tuple[tuple[str, str], ...]:
    """Return the environment's object-storage settings (sent to workers over a local pipe)."""
    return tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith(_STORAGE_PREFIXES)))


def _context() -> BaseContext:
    from multiprocessing import get_all_start_methods, get_context

    if "forkserver" not in get_all_start_methods():
        return get_context("spawn")
    context = get_context("forkserver")
    # imported once by the server, not by every worker (forked from it, single-threaded)
    context.set_forkserver_preload(["assess.scope.parallel", "assess.scope.logs.engine"])
    return context


def scope_each(
    jobs: list[Job], processes: int, progress: ProgressCallback | None = None
) -> Iterator[Outcome]:
    """Scope each job's file in ``processes`` workers; yield each one's outcome in the order of
    ``jobs`` (the caller merges them, and deletes or reads again the object's copy).

    Jobs are sent ahead of the one merged next while fewer than ``processes`` are out, or while
    the copies of those out fit in :data:`HELD` bytes (an object's listed size): a slow object
    cannot make the copies of every later one wait on disk.

    Raises:
        AssessError: the first error a worker raised, in file order.
    """
    total = sum(job.file.stat().st_size for job in jobs)
    done = 0
    room = _room(jobs, processes)
    from concurrent.futures import Future, ProcessPoolExecutor

    with ProcessPoolExecutor(processes, mp_context=_context()) as pool:
        futures: list[Future[Outcome]] = []
        try:
            for index in range(len(jobs)):
                while len(futures) < len(jobs) and room(index, len(futures) + 1):
                    futures.append(pool.submit(scope_one, jobs[len(futures)]))
                outcome = futures[index].result()
                done += sum(item.bytes for item in outcome[1])
                if progress is not None:
                    progress(done, total)
                yield outcome
        except BaseException:  # an error, or the caller stopped early (GeneratorExit)
            for future in futures:
                future.cancel()
            raise


#: The bytes of the workers' copies of remote objects (see :func:`scope_each`) held on disk
#: while their objects wait to be merged, beyond ``processes`` objects (the ones being read).
HELD = 1 << 30


def _room(jobs: list[Job], processes: int) -> Callable[[int, int], bool]:
    """Return a test of whether ``jobs[first:end]`` (``first`` the next to merge) may all be out
    at once: at most ``processes`` of them, or their copies' listed sizes within :data:`HELD`
    (each size read once: the test runs for every job sent)."""
    held = accumulate(
        (job.file.stat().st_size if job.keep_in is not None else 0 for job in jobs), initial=0
    )
    before = list(held)  # before[i]: the copies' bytes of jobs[:i]

    def room(first: int, end: int) -> bool:
        return end - first <= processes or before[end] - before[first] <= HELD

    return room
