"""The log files of a run added to its accumulator: serially, or one process per file, to the
same document.

Each file is counted in an accumulator of its own, merged into the run's once the file is read:
a file whose content, once decompressed, is an earlier file's (an export and its ``.gz`` twin,
known only once read: the hash is taken in the one read) is then left out whole and named in
``inputs_not_read``. A file's accumulator sees the request ids counted before it, so a request
repeated across files is counted once (:mod:`assess.scope.duplicates`). Worker processes do not
see each other's ids: when two of them counted the same request, the files are read again in
one process (the document is the serial one).
"""

from __future__ import annotations

from collections.abc import Callable
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
    from assess.scope.parallel import Job, scope_parallel, storage_env, workers

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
    merged, inputs, notes = scope_parallel(work, processes, progress)
    if merged.duplicates.overlap:  # requests counted in two workers: counted once serially
        return read_serial(reader, acc, started)
    reader.input_notes.extend(notes)
    acc.merge(merged)
    return inputs


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
