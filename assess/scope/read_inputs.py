"""The log files of a run added to its accumulator: serially, or one process per file, to the
same document.

Each file is counted in an accumulator of its own, merged into the run's once the file is read:
a file whose content, once decompressed, is an earlier file's (an export and its ``.gz`` twin,
known only once read: the hash is taken in the one read) is then left out whole and named in
``inputs_not_read``. A file's accumulator sees the request ids counted before it, so a request
repeated across files is counted once (:mod:`assess.scope.duplicates`). Worker processes do not
see each other's ids: a file in which its worker counted a request id an earlier file also
counted is read again here, after the files before it (the serial reading of that file); the
other files are not read again, so the document is the serial one. A remote object is read
again from its worker's copy (see :func:`read_all`), not fetched again.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from assess.kernel.common import InputFile
from assess.kernel.output import ProgressCallback
from assess.scope.accumulator import ScopeAccumulator
from assess.scope.logs.identity import Contents
from assess.scope.models import InputNote

if TYPE_CHECKING:
    from assess.scope.logs import LogReader
    from assess.scope.logs.remote import RemoteFile


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
    the parent fetches then, each worker copies instead of fetching again).

    With workers, each keeps its copy of a remote object in the run's folder (deleted at the
    end, also on an error or Ctrl-C) and hands its name back: the object is read again from it
    or the copy deleted once merged; bytes past the copy (a text object's first ``spool.KEEP``)
    are fetched again, and named in ``reader.fetched_again``."""
    from assess.scope.parallel import workers

    processes = workers(reader.files, jobs, reader.preset)
    folder = None
    try:
        if processes <= 1:
            return read_serial(reader, acc, started)
        before_jobs()
        started()
        folder = tempfile.mkdtemp(prefix="assess-jobs-")  # the workers' copies of remote objects
        return _read_parallel(reader, acc, processes, progress, folder)
    except BaseException:  # an error or Ctrl-C: the local copies of remote objects go now
        reader.release()
        raise
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def _read_parallel(
    reader: LogReader,
    acc: ScopeAccumulator,
    processes: int,
    progress: ProgressCallback | None,
    folder: str,
) -> list[InputFile]:
    from assess.scope.logs import spool
    from assess.scope.logs.remote import RemoteFile
    from assess.scope.parallel import Job, scope_each, storage_env

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
            folder if isinstance(path, RemoteFile) else None,
            spool.KEEP,
        )
        for path in reader.files
    ]
    contents = Contents()
    inputs: list[InputFile] = []
    outcomes = scope_each(work, processes, progress)
    for path, (part, evidence, content, kept) in zip(reader.files, outcomes, strict=True):
        note = contents.twin(evidence[0].path, content[0]) if evidence else None
        again = note is None and acc.duplicates.shares(part.duplicates)
        if kept is not None and again and isinstance(path, RemoteFile):
            if fetched := path.adopt(kept):  # read again from the worker's copy
                reader.fetched_again.append(_fetched_again(path, fetched))
        elif kept is not None:
            os.unlink(kept[0])
        if note is not None:
            reader.input_notes.append(note)
            continue
        if again:  # its serial reading sees those ids counted
            part, evidence = _read_again(reader, acc, path)
        acc.merge(part)
        inputs.extend(evidence)
    return inputs


def _fetched_again(path: RemoteFile, fetched: int) -> InputNote:
    """The note of an object read again past the bytes its worker's copy holds."""
    return InputNote(
        path=path.display,
        reason="read again (a request id an earlier file counted) past the bytes its "
        "worker's copy holds (the first KEEP of a text object): those fetched again",
        bytes=fetched,
    )


def _read_again(
    reader: LogReader, acc: ScopeAccumulator, path: Path
) -> tuple[ScopeAccumulator, list[InputFile]]:
    """Read ``path`` here after the files merged into ``acc`` (as the serial run reads it),
    then delete the copy of a remote object it was read from."""
    progress, reader.progress = reader.progress, lambda done, total: None  # the workers' count
    try:
        part = ScopeAccumulator(acc.filter, acc.keep_text, after=acc.duplicates)
        for batch in reader.file_batches(path):
            part.add(batch)
    finally:
        reader.progress = progress
        if hasattr(path, "release"):
            path.release()
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
