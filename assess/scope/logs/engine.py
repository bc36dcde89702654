"""Read request logs through a preset into canonical batches, streaming, bounded memory.

:class:`LogReader` opens each file (hashing it while it is read), sniffs its compression and
format, and hands it to the format's reader (``readers/registry.py``: NDJSON, JSON array, CSV,
Parquet). Batches come out with the fields every row needs; the details (ids, status, prompt,
response) of the rows a consumer keeps load on demand (``LogBatch.details``), so the reader never
asks its consumer anything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, cast

import pyarrow as pa

from assess.kernel.common import InputFile
from assess.kernel.output import ProgressCallback
from assess.scope.logs import envelopes, formats, textcodec
from assess.scope.logs.identity import check_unchanged, file_state
from assess.scope.logs.presets import Preset
from assess.scope.logs.readers.base import (
    ROWS_PER_BATCH,
    SAMPLE,
    STREAM_ERRORS,
    ReadContext,
    Source,
    break_reason,
    chunks,
    guard,
)
from assess.scope.logs.readers.base import Builder as _Builder
from assess.scope.logs.readers.registry import READERS
from assess.scope.logs.records import side_fields
from assess.scope.logs.remote import evidence as file_evidence
from assess.scope.logs.remote import parquet_source

if TYPE_CHECKING:
    from assess.scope.logs.infer import Inference
from assess.scope.logs.sources import (
    MAX_LINE_BYTES,
    MAX_RATIO,
    HashingReader,
    open_stream,
    sniff_compression,
    sniff_format,
)
from assess.scope.models import InputNote, LogBatch

# Importable from here as before the split (tests count the reference path's ``_Builder`` calls).
__all__ = [
    "BLOCK",
    "MAX_LINE_BYTES",
    "ROWS_PER_BATCH",
    "SAMPLE",
    "LogReader",
    "WantText",
    "_Builder",
    "break_reason",
]

#: Given a canonical table, return the mask of rows whose details are needed (see
#: ``LogReader.want_text``).
WantText = Callable[[pa.Table], Any]

#: NDJSON block size: 16 MB was 6-15% faster than 8 MB (fewer per-block steps) for about 100 MB
#: more peak RSS (360-410 MB in the benchmark); see docs/PERFORMANCE.md.
BLOCK = 16 << 20


def _no_progress(done: int, total: int | None) -> None:
    return None


class LogReader:
    """Streams canonical batches from log files; ``inputs`` holds their hashes afterwards."""

    def __init__(
        self,
        files: Sequence[Path],
        preset: Preset,
        want_text: WantText | None = None,
        progress: ProgressCallback = _no_progress,
        fast: bool = True,
    ) -> None:
        """``want_text``: for callers that consume batches themselves, not through an
        accumulator; when given, batches come out with the details of those rows loaded."""
        self.files = list(files)
        self.preset = preset
        self.want_text = want_text
        self.progress = progress
        self.fast = fast
        self.side: dict[str, dict[str, Any]] | None = None
        self.max_line_bytes = MAX_LINE_BYTES
        #: Past 32 MiB inflated, a compressed input may inflate at most this many times the
        #: bytes it was read from (``--max-inflate-ratio``).
        self.max_inflate_ratio = MAX_RATIO
        self.block_size = BLOCK
        self.inputs: list[InputFile] = []
        #: Per input read, its content identity: the SHA-256 of its bytes once decompressed
        #: (None when a compressed stream did not read to a clean end).
        self.contents: list[str | None] = []
        #: Inputs named but not read (duplicates, broken symlinks), set by ``open_logs``.
        self.input_notes: list[InputNote] = []
        #: Remote objects read again past a --jobs worker's copy (see read_inputs.read_all).
        self.fetched_again: list[InputNote] = []
        self.inference: Inference | None = None  # the mapping --preset auto inferred
        self._total = sum(f.stat().st_size for f in self.files)
        self._done = 0

    def _context(self, raw: HashingReader | None = None) -> ReadContext:
        return ReadContext(
            preset=self.preset,
            side=self.side,
            fast=self.fast,
            max_line_bytes=self.max_line_bytes,
            block_size=self.block_size,
            progress=lambda: self._report(raw),
        )

    def batches(self) -> Iterator[LogBatch]:
        """Yield canonical batches of every file in order.

        Raises:
            InputError: when a file cannot be opened or read at all.
        """
        for path in self.start():
            yield from self.file_batches(path)

    def start(self) -> list[Path]:
        """Make ready to read (a join's side table first); return the files in order."""
        if self.preset.join is not None and self.side is None:
            self.side = self._side_table()
        if self.side:  # a join's fields are filled row by row: no columnar path
            self.fast = False
        self.inputs = []
        self.contents = []
        self._done = 0
        return self.files

    def file_batches(self, path: Path) -> Iterator[LogBatch]:
        """Yield the batches of one file; then ``inputs[-1]`` and ``contents[-1]`` are its."""
        for batch in self._file(path):
            yield batch if self.want_text is None else batch.with_details(self.want_text)

    def release(self) -> None:
        """Delete the local copies of remote objects kept while the run reads them."""
        for path in self.files:
            if hasattr(path, "release"):
                path.release()

    def _side_table(self) -> dict[str, dict[str, Any]]:
        side: dict[str, dict[str, Any]] = {}
        join = self.preset.join
        assert join is not None
        for path in self.files:
            head = [r for _, r in islice(self.records(path), SAMPLE)]
            if not any(isinstance(r, dict) and join.detect.matches(r) for r in head):
                continue  # no side rows at its start: not a side table, not read twice
            for _, record in self.records(path):
                if isinstance(record, dict) and join.detect.matches(record):
                    key, found = side_fields(record, self.preset)
                    if key is not None:
                        side.setdefault(key, {}).update(found)
        return side

    def _report(self, raw: HashingReader | None, extra: int = 0) -> None:
        self.progress(self._done + (raw.bytes_read if raw else 0) + extra, self._total)

    def _file(self, path: Path) -> Iterator[LogBatch]:
        kind = sniff_compression(path)
        name = str(path)
        if kind == "parquet":
            # a remote Parquet file is opened for random access (RemoteFile stands in for a Path)
            source = Source(name, cast(Path, parquet_source(path)))
            before = file_state(path)
            yield from READERS["parquet"].batches(source, self._context())
            evidence = file_evidence(path)
            check_unchanged(path, before, evidence.bytes)  # as HashingReader.finish does
            self.inputs.append(evidence)
            self.contents.append(evidence.sha256)
            self._done += evidence.bytes
            self._report(None)
            return
        raw = HashingReader(path)
        try:
            with open_stream(raw, kind, self.max_inflate_ratio) as opened:
                ctx = self._context(raw)
                stream, head = _text(opened, path)
                if isinstance(head, formats.Bad):  # broken before a first block could be read
                    yield from chunks(ctx, name, iter([(1, head)]))
                elif (fmt := envelopes.refine(sniff_format(head, path), head)) != "empty":
                    yield from READERS[fmt].batches(Source(name, path, stream), ctx)
                inflated = getattr(opened, "content_sha256", None)
            self.inputs.append(raw.finish())
            self.contents.append(inflated() if inflated else self.inputs[-1].sha256)
        finally:
            raw.release()
        self._done += self.inputs[-1].bytes
        self._report(None)

    def records(self, path: Path, every_column: bool = False) -> Iterator[tuple[int, Any]]:
        """Yield ``(line, record or Bad)`` of ``path`` by the reference path (no hashing kept);
        ``every_column``: a Parquet file's every column, not only the preset's."""
        kind = sniff_compression(path)
        if kind == "parquet":
            source = Source(str(path), cast(Path, parquet_source(path)))
            ctx = replace(self._context(), every_column=every_column)
            yield from READERS["parquet"].records(source, ctx)
            return
        raw = HashingReader(path)
        try:
            with open_stream(raw, kind, self.max_inflate_ratio) as opened:
                stream, head = _text(opened, path)
                if isinstance(head, formats.Bad):
                    yield 1, head
                elif (fmt := envelopes.refine(sniff_format(head, path), head)) != "empty":
                    source = Source(str(path), path, stream)
                    yield from guard(READERS[fmt].records(source, self._context()))
        finally:
            raw.release()


def _text(stream: BinaryIO, path: Path) -> tuple[BinaryIO, bytes | formats.Bad]:
    """Return the stream as UTF-8 text bytes (see :func:`textcodec.text_stream`) and its head."""
    head = _peek(stream)
    if isinstance(head, formats.Bad):
        return stream, head
    stream = textcodec.text_stream(stream, path, head)
    return stream, _peek(stream)


def _peek(stream: BinaryIO) -> bytes | formats.Bad:
    """Return the first bytes of ``stream`` (a buffered reader) without consuming them.

    A compressed stream that breaks before its first block decompresses (a small truncated
    gzip) is returned as one Bad record, like a break later in the file.
    """
    try:
        head: bytes = stream.peek(65536)[:65536]  # type: ignore[attr-defined]
    except STREAM_ERRORS as exc:
        return formats.Bad(break_reason(exc, 0))
    return head
