"""What every format reader shares: the interface, the run's settings, and the reference path.

A reader turns one file into :class:`~assess.scope.models.LogBatch` es. Rows whose details (ids,
status, prompt, response) are not read yet carry a loader (``LogBatch.details``): the consumer
(the accumulator) decides which rows it keeps and loads only theirs, so nothing here asks the
consumer anything.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, BinaryIO

import pyarrow as pa
import pyarrow.compute as pc

from assess.scope.fields import LATE_FIELDS, ROW_FIELDS
from assess.scope.logs import envelopes, formats
from assess.scope.logs.presets import Preset
from assess.scope.logs.records import Row, classify, details
from assess.scope.models import BATCH_SCHEMA, TEXT, LogBatch, SkippedRecord

ROWS_PER_BATCH = 50_000
#: Records sampled from the start of a file to plan its columns.
SAMPLE = 200
#: What a broken compressed stream raises (see :mod:`assess.scope.logs.compression`).
STREAM_ERRORS = (EOFError, OSError, ValueError)


def _no_progress() -> None:
    return None


@dataclass(frozen=True)
class ReadContext:
    """The settings of one run that every reader needs."""

    preset: Preset
    #: The join's side table (key -> canonical fields), or None without a join.
    side: dict[str, dict[str, Any]] | None = None
    #: The columnar fast path may be taken (the reference path is used otherwise).
    fast: bool = True
    max_line_bytes: int = 16 << 20
    #: NDJSON block size of the fast path.
    block_size: int = 16 << 20
    #: Called after each batch: reports the bytes read so far.
    progress: Callable[[], None] = _no_progress
    #: Read every column of a columnar file, not only the preset's (the sample that
    #: ``--preset auto`` scores must see what each preset looks for).
    every_column: bool = False


@dataclass(frozen=True)
class Source:
    """One input file: its name as reported, its path and, for text formats, the decompressed
    stream (None for formats read from the path, such as Parquet)."""

    name: str
    path: Path
    stream: BinaryIO | None = None


class FormatReader(ABC):
    """Reads one file format; implementations are listed in ``readers/registry.py``."""

    #: True when the reader opens the file itself (``Source.stream`` is None), e.g. Parquet.
    by_path: bool = False

    @abstractmethod
    def batches(self, source: Source, ctx: ReadContext) -> Iterator[LogBatch]:
        """Yield the canonical batches of ``source``; malformed records become skipped ones."""

    @abstractmethod
    def records(self, source: Source, ctx: ReadContext) -> Iterator[tuple[int, Any]]:
        """Yield ``(line, record or Bad)`` of ``source`` by the reference path."""


def fill_details(
    preset: Preset,
    table: pa.Table,
    records_of: Callable[[list[int]], list[Any]],
    names: tuple[str, ...],
    mask: Any,
) -> pa.Table:
    """Return ``table`` with the fields ``names`` of the ``mask`` rows read from their records."""
    if isinstance(mask, pa.ChunkedArray):
        mask = mask.combine_chunks()
    wanted = pc.indices_nonzero(mask).to_pylist()
    if not wanted:
        return table
    values = [details(record, preset, names) for record in records_of(wanted)]
    for position, name in enumerate(names):
        column = pa.array([v[position] for v in values], TEXT)
        index = table.schema.get_field_index(name)
        filled = pc.replace_with_mask(table.column(index).combine_chunks(), mask, column)
        table = table.set_column(index, name, filled)
    return table


class Builder:
    """Collects reference-path outcomes of one file into a :class:`LogBatch`."""

    def __init__(self, ctx: ReadContext, file: str) -> None:
        self.ctx, self.file = ctx, file
        self.rows: list[Row] = []
        self.records: list[Any] = []
        self.non_request: Counter[str] = Counter()
        self.skipped: list[SkippedRecord] = []
        self.read = 0

    def add(self, line: int, record: Any) -> None:
        """Classify one record (or Bad) of line ``line``; an API page counts as its records."""
        inner = envelopes.unwrap(record)
        if inner is not None:  # a {"data": ...} line the columnar path sent here
            for item in inner:
                self.add(line, item)
            return
        self.read += 1
        if isinstance(record, formats.Bad):
            self.skipped.append(SkippedRecord(file=self.file, line=line, reason=record.reason))
            return
        outcome = classify(record, self.ctx.preset, self.ctx.side)
        if outcome.row is not None:
            self.rows.append(outcome.row)
            self.records.append(record)
        elif outcome.non_request is not None:
            self.non_request[outcome.non_request] += 1
        else:
            self.skipped.append(SkippedRecord(file=self.file, line=line, reason=outcome.skip or ""))

    def table(self) -> pa.Table:
        """Return the rows as a canonical table, texts not read (see :meth:`fill`)."""
        columns: dict[str, list[Any]] = {name: [] for name in BATCH_SCHEMA.names}
        for row in self.rows:
            for name in ROW_FIELDS:
                columns[name].append(getattr(row, name))
        for name in LATE_FIELDS:
            columns[name] = [None] * len(self.rows)
        return pa.table(columns, schema=BATCH_SCHEMA)

    def fill(self, table: pa.Table, mask: Any) -> pa.Table:
        """Return ``table`` (from :meth:`table`) with the texts of the ``mask`` rows."""
        records = self.records
        return fill_details(
            self.ctx.preset, table, lambda rows: [records[i] for i in rows], LATE_FIELDS, mask
        )

    def batch(self) -> LogBatch:
        """Return the batch; the texts of the rows kept load on demand."""
        table = self.table()
        return LogBatch(
            file=self.file,
            table=table,
            records_read=self.read,
            non_request=dict(self.non_request),
            skipped=self.skipped,
            details=(lambda mask: self.fill(table, mask)) if self.rows else None,
        )


def chunks(ctx: ReadContext, name: str, records: Iterator[tuple[int, Any]]) -> Iterator[LogBatch]:
    """Yield batches of ``records`` (``(line, record or Bad)``) by the reference path."""
    records = guard(records)
    while True:
        builder = Builder(ctx, name)
        for line, record in islice(records, ROWS_PER_BATCH):
            builder.add(line, record)
        if builder.read == 0:
            return
        ctx.progress()
        yield builder.batch()


def skipped_only(name: str, line: int, reason: str) -> LogBatch:
    """Return a batch of one skipped record (a file or stream that broke at ``line``)."""
    bad = SkippedRecord(file=name, line=line, reason=reason)
    return LogBatch(file=name, table=BATCH_SCHEMA.empty_table(), records_read=1, skipped=[bad])


def with_skipped(batch: LogBatch, other: LogBatch) -> LogBatch:
    """Return ``batch`` with the records of ``other`` (same file, no request rows) counted."""
    assert other.table.num_rows == 0, "only records that are not requests are merged"
    reasons = Counter(batch.non_request)
    reasons.update(other.non_request)
    return LogBatch(
        file=batch.file,
        table=batch.table,
        records_read=batch.records_read + other.records_read,
        non_request=dict(reasons),
        skipped=sorted([*batch.skipped, *other.skipped], key=lambda s: s.line),
        details=batch.details,
    )


def guard(records: Iterator[tuple[int, Any]]) -> Iterator[tuple[int, Any]]:
    """Turn a broken compressed stream into one final Bad record instead of a crash."""
    line = 0
    try:
        for line, record in records:
            yield line, record
    except STREAM_ERRORS as exc:
        yield line + 1, formats.Bad(break_reason(exc, line))


def break_reason(error: BaseException, last_line: int) -> str:
    """Return the skip reason of a compressed stream that broke after line ``last_line``.

    It ends with :data:`~assess.scope.logs.formats.NOT_READ_ON`: the bytes after the break are
    never read, so the file backs no all-clear (``evidence._not_read_on``, one rule for every
    input not read to its end).
    """
    last = f"last good line {last_line}" if last_line else "no line before it"
    return f"compressed stream is corrupt or truncated ({error}); {last}; {formats.NOT_READ_ON}"
