"""The log files of a run added to its accumulator: serially, or one process per file, to the
same document.

Each file is counted in an accumulator of its own, merged into the run's once the file is read:
a file whose content, once decompressed, is an earlier file's (an export and its ``.gz`` twin,
known only once read: the hash is taken in the one read) is then left out whole and named in
``inputs_not_read``. A file's accumulator sees the request ids counted before it, so a request
repeated across files is counted once (:mod:`assess.scope.duplicates`). Worker processes do not
see each other's ids: a file in which its worker counted a request id an earlier file also
counted is read again here, after the files before it (the serial reading of that file); the
other files are not read again, so the document is the serial one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from assess.kernel.common import InputFile
from assess.kernel.output import ProgressCallback
from assess.scope.accumulator import ScopeAccumulator
from assess.scope.logs.identity import Contents

if TYPE_CHECKING:
    from assess.scope.logs import LogReader


def read_all(
    reader: LogReader,
    acc: ScopeAccumulator,
    jobs: int | None,
    progress: ProgressCallback | None,
    started: Callable[[], None] = lambda: None,
    before_jobs: Callable[[], None] = lambda: None,
) -> list[InputFile]:
    """Add every file of ``reader`` to ``acc``; return the evidence of the files counted.
    ``started`` is called once the reading is under way (after the first batch, or once the
    worker processes run); ``before_jobs`` before worker processes are sent their files (what
    the parent fetches then, each worker copies instead of fetching again)."""
    from assess.scope.parallel import Job, scope_each, storage_env, workers

    processes = workers(reader.files, jobs, reader.preset)
    if processes <= 1:
        return read_serial(reader, acc, started)
    before_jobs()
    started()
    work = [
        Job(
            path,
            reader.preset,
            acc.filter,
            acc.keep_text,
            reader.fast,
            reader.max_line_bytes,
            reader.max_inflate_ratio,
            storage_env(),
        )
        for path in reader.files
    ]
    contents = Contents()
    inputs: list[InputFile] = []
    outcomes = scope_each(work, processes, progress)
    for path, (part, evidence, content) in zip(reader.files, outcomes, strict=True):
        note = contents.twin(evidence[0].path, content[0]) if evidence else None
        if note is not None:
            reader.input_notes.append(note)
            continue
        if acc.duplicates.shares(part.duplicates):  # its serial reading sees those ids counted
            part, evidence = _read_again(reader, acc, path)
        acc.merge(part)
        inputs.extend(evidence)
    return inputs


def _read_again(
    reader: LogReader, acc: ScopeAccumulator, path: Path
) -> tuple[ScopeAccumulator, list[InputFile]]:
    """Read ``path`` here after the files merged into ``acc`` (as the serial run reads it)."""
    progress, reader.progress = reader.progress, lambda done, total: None  # the workers' count
    try:
        part = ScopeAccumulator(acc.filter, acc.keep_text, after=acc.duplicates)
        for batch in reader.file_batches(path):
            part.add(batch)
    finally:
        reader.progress = progress
    return part, [reader.inputs[-1]]


def read_serial(
    reader: LogReader, acc: ScopeAccumulator, started: Callable[[], None] = lambda: None
) -> list[InputFile]:
    """Add the files of ``reader`` to ``acc`` one after the other (see the module's text)."""
    contents = Contents()
    inputs: list[InputFile] = []
    for path in reader.start():
        part = ScopeAccumulator(acc.filter, acc.keep_text, after=acc.duplicates)
        for batch in reader.file_batches(path):
            part.add(batch)  # loads the details of the rows it keeps (``LogBatch.details``)
            started()
        evidence = reader.inputs[-1]
        note = contents.twin(evidence.path, reader.contents[-1])
        if note is not None:
            reader.input_notes.append(note)
            continue
        acc.merge(part)
        inputs.append(evidence)
    return inputs
