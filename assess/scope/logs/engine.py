"""Read request logs through a preset into canonical batches, streaming, bounded memory.

NDJSON (the common, big case) goes through the columnar fast path in blocks of whole lines: ISA-L
inflates in a background thread while polars parses a block with an explicit schema holding only
the columns every row needs (the filter's fields). Ids, status, prompt and response are read as
text, again by polars, only from the lines of the rows the core asks for. Rows the fast path is
unsure of, texts that came from a list or object, and blocks that do not fit the plan, are re-read
line by line through :func:`assess.scope.logs.records.classify`. Other formats go through that
reference path directly. ``tests/scope/test_fast_equals_reference.py`` holds the two paths to one
answer.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any, BinaryIO

import orjson
import pyarrow as pa
import pyarrow.compute as pc

from assess.kernel.common import InputFile, hash_file
from assess.kernel.output import ProgressCallback
from assess.scope.logs import formats
from assess.scope.logs.fast.blocks import TextRows, flat_columns, line_numbers, parse_block, spread
from assess.scope.logs.fast.columnar import (
    DETAIL_FIELDS,
    TEXT_FIELDS,
    ColumnPlan,
    NotColumnar,
    needs_line,
)
from assess.scope.logs.presets import Preset
from assess.scope.logs.records import Row, classify, details, side_fields
from assess.scope.logs.sources import (
    MAX_LINE_BYTES,
    HashingReader,
    LineBlock,
    Prefetch,
    line_blocks,
    open_stream,
    sniff_compression,
    sniff_format,
)
from assess.scope.models import BATCH_SCHEMA, TEXT, LogBatch, SkippedRecord

#: Given a canonical table, return the mask of rows whose prompt/response text is needed.
WantText = Callable[[pa.Table], Any]

#: NDJSON block size: 16 MB was 6-15% faster than 8 MB (fewer per-block steps) for about 100 MB
#: more peak RSS (360-410 MB in the benchmark); see docs/PERFORMANCE.md.
BLOCK = 16 << 20
DEPTH = 2
_DETAILS = (*DETAIL_FIELDS, *TEXT_FIELDS)
ROWS_PER_BATCH = 50_000
SAMPLE = 200
_STREAM_ERRORS = (EOFError, OSError, ValueError)


def _no_progress(done: int, total: int | None) -> None:
    return None


class _Builder:
    """Collects reference-path outcomes of one file into a :class:`LogBatch`."""

    def __init__(self, reader: LogReader, file: str) -> None:
        self.reader, self.file = reader, file
        self.rows: list[Row] = []
        self.records: list[Any] = []
        self.non_request: Counter[str] = Counter()
        self.skipped: list[SkippedRecord] = []
        self.read = 0

    def add(self, line: int, record: Any) -> None:
        self.read += 1
        if isinstance(record, formats.Bad):
            self.skipped.append(SkippedRecord(file=self.file, line=line, reason=record.reason))
            return
        outcome = classify(record, self.reader.preset, self.reader.side)
        if outcome.row is not None:
            self.rows.append(outcome.row)
            self.records.append(record)
        elif outcome.non_request is not None:
            self.non_request[outcome.non_request] += 1
        else:
            self.skipped.append(SkippedRecord(file=self.file, line=line, reason=outcome.skip or ""))

    def table(self) -> pa.Table:
        columns: dict[str, list[Any]] = {name: [] for name in BATCH_SCHEMA.names}
        for row in self.rows:
            for name in (
                "timestamp",
                "model",
                "prompt_tokens",
                "request_id",
                "account_id",
                "session_id",
                "status",
            ):
                columns[name].append(getattr(row, name))
        columns["prompt"] = columns["response"] = [None] * len(self.rows)
        table = pa.table(columns, schema=BATCH_SCHEMA)
        records = self.records
        return self.reader.fill_details(
            table, lambda rows: [records[i] for i in rows], ("prompt", "response")
        )

    def batch(self) -> LogBatch:
        return LogBatch(
            file=self.file,
            table=self.table(),
            records_read=self.read,
            non_request=dict(self.non_request),
            skipped=self.skipped,
        )


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
        self.files = list(files)
        self.preset = preset
        self.want_text = want_text
        self.progress = progress
        self.fast = fast and preset.join is None
        self.side: dict[str, dict[str, Any]] | None = None
        self.max_line_bytes = MAX_LINE_BYTES
        self.inputs: list[InputFile] = []
        self._total = sum(f.stat().st_size for f in self.files)
        self._done = 0

    # -- text ---------------------------------------------------------------------------------
    def fill_details(
        self,
        table: pa.Table,
        records_of: Callable[[list[int]], list[Any]],
        names: tuple[str, ...],
        mask: Any = None,
    ) -> pa.Table:
        """Return ``table`` with the fields ``names`` filled for the rows ``want_text`` selects.

        The fast path parses only the fields every row needs; ids, status and texts are read
        again from the records of the few rows the core asks for (in scope, over or unknown).
        """
        if self.want_text is None or table.num_rows == 0:
            return table
        if mask is None:
            mask = pc.fill_null(self.want_text(table), False)
        if isinstance(mask, pa.ChunkedArray):
            mask = mask.combine_chunks()
        wanted = pc.indices_nonzero(mask).to_pylist()
        if not wanted:
            return table
        values = [details(record, self.preset, names) for record in records_of(wanted)]
        for position, name in enumerate(names):
            column = pa.array([v[position] for v in values], TEXT)
            index = table.schema.get_field_index(name)
            filled = pc.replace_with_mask(table.column(index).combine_chunks(), mask, column)
            table = table.set_column(index, name, filled)
        return table

    # -- files --------------------------------------------------------------------------------
    def batches(self) -> Iterator[LogBatch]:
        """Yield canonical batches of every file in order.

        Raises:
            InputError: when a file cannot be opened or read at all.
        """
        if self.preset.join is not None and self.side is None:
            self.side = self._side_table()
        self.inputs = []
        self._done = 0
        for path in self.files:
            yield from self._file(path)

    def _side_table(self) -> dict[str, dict[str, Any]]:
        side: dict[str, dict[str, Any]] = {}
        join = self.preset.join
        assert join is not None
        for path in self.files:
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
            if self.fast:
                yield from self._parquet_fast(name, path)
            else:
                yield from self._chunks(name, self._parquet(path), None)
            evidence = hash_file(path)
            self.inputs.append(evidence)
            self._done += evidence.bytes
            self._report(None)
            return
        raw = HashingReader(path)
        try:
            with open_stream(raw, kind) as stream:
                head = _peek(stream)
                if isinstance(head, formats.Bad):  # broken before a first block could be read
                    yield from self._chunks(name, iter([(1, head)]), raw)
                    fmt = "empty"
                else:
                    fmt = sniff_format(head, path)
                if fmt == "empty":
                    pass
                elif fmt == "ndjson" and self.fast:
                    yield from self._ndjson_fast(name, stream, raw)
                elif fmt == "csv" and self.fast:
                    yield from self._csv_fast(name, stream, raw)
                else:
                    yield from self._chunks(name, self._iter(stream, fmt), raw)
            self.inputs.append(raw.finish())
        finally:
            raw.release()
        self._done += self.inputs[-1].bytes
        self._report(None)

    def _parquet_columns(self) -> list[str]:
        columns = {p.split(".")[0] for ps in self.preset.fields.values() for p in ps}
        columns |= {p for ps in self.preset.fields.values() for p in ps}
        columns |= {rule.when.path.split(".")[0] for rule in self.preset.non_request}
        return sorted(columns)

    def _parquet_fast(self, name: str, path: Path) -> Iterator[LogBatch]:
        """Parquet through the columnar plan, batch by batch; misfits go row by row."""
        import pyarrow.parquet as pq

        plan: ColumnPlan | None = None
        first_row = 0
        try:
            handle = pq.ParquetFile(path)
            present = [c for c in self._parquet_columns() if c in handle.schema_arrow.names]
            batches = handle.iter_batches(batch_size=65536, columns=present or None)
            batch = next(batches, None)
        except (OSError, pa.ArrowException) as exc:
            batch, broken = None, exc
        else:
            broken = None
        while batch is not None:
            table = pa.Table.from_batches([batch])
            if first_row == 0:
                try:
                    plan = ColumnPlan.build(self.preset, table.slice(0, SAMPLE).to_pylist())
                except NotColumnar:
                    plan = None
            yield self._parquet_batch(name, table, first_row, plan)
            first_row += table.num_rows
            try:
                batch = next(batches, None)
            except (OSError, pa.ArrowException) as exc:
                batch, broken = None, exc
        if broken is not None:
            reason = f"unreadable Parquet: {broken}"
            bad = SkippedRecord(file=name, line=first_row + 1, reason=reason)
            yield LogBatch(
                file=name, table=BATCH_SCHEMA.empty_table(), records_read=1, skipped=[bad]
            )

    def _parquet_batch(
        self, name: str, table: pa.Table, first_row: int, plan: ColumnPlan | None
    ) -> LogBatch:
        def records_of(rows: list[int]) -> list[Any]:
            return table.take(pa.array(rows, pa.int64())).to_pylist()  # type: ignore[no-any-return]

        if plan is not None:
            try:
                canon, slow = plan.extract(table)
            except (pa.ArrowException, NotColumnar):
                pass
            else:
                fast = self._fast_rows(
                    name, canon, slow, lambda: (lambda row: first_row + row + 1, records_of)
                )
                if fast is not None:
                    return fast
        builder = _Builder(self, name)
        for row, record in enumerate(table.to_pylist()):
            builder.add(first_row + row + 1, record)
        return builder.batch()

    def _parquet(self, path: Path) -> Iterator[tuple[int, Any]]:
        try:
            yield from formats.parquet_records(path, self._parquet_columns())
        except (OSError, pa.ArrowException) as exc:
            yield 0, formats.Bad(f"unreadable Parquet: {exc}")

    def _iter(self, stream: BinaryIO, fmt: str) -> Iterator[tuple[int, Any]]:
        if fmt == "json-array":
            return formats.json_array_records(stream)
        if fmt == "csv":
            return formats.csv_records(stream)
        return formats.ndjson_records(stream, self.max_line_bytes)

    def records(self, path: Path) -> Iterator[tuple[int, Any]]:
        """Yield ``(line, record or Bad)`` of ``path`` by the reference path (no hashing kept)."""
        kind = sniff_compression(path)
        if kind == "parquet":
            yield from self._parquet(path)
            return
        raw = HashingReader(path)
        try:
            with open_stream(raw, kind) as stream:
                head = _peek(stream)
                if isinstance(head, formats.Bad):
                    yield 1, head
                elif (fmt := sniff_format(head, path)) != "empty":
                    yield from _guard(self._iter(stream, fmt))
        finally:
            raw.release()

    def _chunks(
        self, name: str, records: Iterator[tuple[int, Any]], raw: HashingReader | None
    ) -> Iterator[LogBatch]:
        records = _guard(records)
        while True:
            builder = _Builder(self, name)
            for line, record in islice(records, ROWS_PER_BATCH):
                builder.add(line, record)
            if builder.read == 0:
                return
            self._report(raw)
            yield builder.batch()

    # -- CSV fast path -----------------------------------------------------------------------
    def _csv_fast(self, name: str, stream: BinaryIO, raw: HashingReader) -> Iterator[LogBatch]:
        """CSV split by the csv module (exact line numbers), needed columns built as Arrow."""
        text = io.TextIOWrapper(stream, encoding="utf-8-sig", errors="replace", newline="")
        head = text.readline()
        if not head.strip():
            return
        delimiter = "\t" if head.count("\t") > head.count(",") else ","
        header = next(csv.reader([head], delimiter=delimiter))
        columns = flat_columns(self.preset, header)
        if columns is None:  # a path walks into a JSON cell: row by row
            yield from self._chunks(name, formats.csv_rows(text, header, delimiter), raw)
            return
        rows = formats.csv_lists(text, header, delimiter)
        plan: ColumnPlan | None = None
        while True:
            chunk = list(islice(rows, ROWS_PER_BATCH))
            if not chunk:
                return
            good: list[tuple[int, list[str]]] = []
            bad: list[tuple[int, Any]] = []
            for line, cells in chunk:
                if isinstance(cells, formats.Bad):
                    bad.append((line, cells))
                else:
                    good.append((line, cells))
            if bad:
                yield from self._chunks(name, iter(bad), raw)
            if plan is None:
                sample = [formats.row_dict(header, cells) for _, cells in good[:SAMPLE]]
                try:
                    plan = ColumnPlan.build(self.preset, sample)
                except NotColumnar:
                    rest = ((n, formats.row_dict(header, c)) for n, c in good)
                    yield from self._chunks(name, rest, raw)
                    yield from self._chunks(name, formats.csv_rows(text, header, delimiter), raw)
                    return
            yield self._csv_batch(name, header, good, columns, plan)
            self._report(raw)

    def _csv_batch(
        self,
        name: str,
        header: list[str],
        good: list[tuple[int, list[str]]],
        columns: dict[str, bool],
        plan: ColumnPlan,
    ) -> LogBatch:
        def records_of(rows: list[int]) -> list[Any]:
            return [formats.row_dict(header, good[i][1]) for i in rows]

        arrays: dict[str, Any] = {}
        try:
            for column, is_tokens in columns.items():
                at = header.index(column)
                array = pa.array([cells[at] or None for _, cells in good], TEXT)
                arrays[column] = array.cast(pa.int64()) if is_tokens else array
            arrays["__row__"] = pa.nulls(len(good))  # keeps the row count without columns
            canon, slow = plan.extract(pa.table(arrays))
        except (pa.ArrowException, NotColumnar):
            builder = _Builder(self, name)
            for index, (line, _) in enumerate(good):
                builder.add(line, records_of([index])[0])
            return builder.batch()
        fast = self._fast_rows(name, canon, slow, lambda: (lambda row: good[row][0], records_of))
        assert fast is not None
        return fast

    # -- NDJSON fast path ---------------------------------------------------------------------
    def _ndjson_fast(self, name: str, stream: BinaryIO, raw: HashingReader) -> Iterator[LogBatch]:
        lines_done = 0
        # three stages on two cores: inflate + newline scan, parse (both release the GIL), and
        # the Python work on the previous block here
        blocks = iter(
            Prefetch(
                self._parsed(
                    iter(Prefetch(line_blocks(stream, BLOCK, self.max_line_bytes), DEPTH))
                ),
                DEPTH,
            )
        )
        while True:
            try:
                item = next(blocks, None)
            except _STREAM_ERRORS as exc:
                bad = SkippedRecord(
                    file=name, line=lines_done + 1, reason=break_reason(exc, lines_done)
                )
                yield LogBatch(
                    file=name, table=BATCH_SCHEMA.empty_table(), records_read=1, skipped=[bad]
                )
                return
            if item is None:
                return
            block, parsed = item
            yield self._block(name, block, parsed)
            lines_done = block.first_line + block.line_count
            self._report(raw)

    def _plan(self, block: bytes) -> ColumnPlan | None:
        sample = []
        for line in block.split(b"\n", SAMPLE + 1)[:SAMPLE]:
            try:
                sample.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                continue
        try:
            return ColumnPlan.build(self.preset, sample, details=True)
        except NotColumnar:
            return None

    def _parsed(self, blocks: Iterator[LineBlock]) -> Iterator[tuple[LineBlock, Parsed | None]]:
        """Yield each block with its canonical columns, or None when the block does not fit the
        columnar plan (runs in a background thread)."""
        plan: ColumnPlan | None = None
        for number, block in enumerate(blocks):
            if number == 0:
                plan = self._plan(block.data)
            parsed = None
            if plan is not None:
                try:
                    canon, slow = plan.extract(parse_block(block.data, plan))
                    parsed = Parsed(canon, slow, texts=plan.texts)
                except (pa.ArrowException, NotColumnar):
                    parsed = _without_bad_lines(block, plan)
            yield block, parsed

    def _block(self, name: str, block: LineBlock, parsed: Parsed | None) -> LogBatch:
        if parsed is not None:
            fast = self._fast_rows(
                name,
                parsed.canon,
                parsed.slow,
                partial(_locate, block, parsed),
                _text_rows(block, parsed),
            )
            if fast is not None:
                if not parsed.bad:
                    return fast
                builder = _Builder(self, name)
                for index, value in parsed.bad:
                    builder.add(block.first_line + index + 1, value)
                return _merge(fast, builder.batch())
        builder = _Builder(self, name)
        lines = block.data.split(b"\n")
        last = len(lines) - 1
        for index, line in enumerate(lines):
            if line.strip():
                final = block.at_eof and index == last
                builder.add(block.first_line + index + 1, formats.json_line(line, final))
        return builder.batch()

    def _fast_rows(
        self,
        name: str,
        canon: pa.Table,
        slow: Any,
        locate: Callable[[], tuple[Callable[[int], int], Callable[[list[int]], list[Any]]] | None],
        texts: TextRows | None = None,
    ) -> LogBatch | None:
        """Return the batch of a columnar block; rows in ``slow`` go the reference path.

        ``locate`` returns (line number of a row, records of rows), or None when rows cannot be
        mapped to lines (the caller then reads the block by the reference path). When ``texts``
        gives every detail field, only rows whose text came from a list or object are re-read
        from their line.
        """
        total = canon.num_rows
        slow_count = pc.sum(slow).as_py() or 0
        keep = canon.filter(pc.invert(slow)) if slow_count else canon
        mask = None
        if self.want_text is not None and keep.num_rows:
            mask = pc.fill_null(self.want_text(keep), False)
            if not pc.any(mask).as_py():
                mask = None
            elif texts is not None and set(_DETAILS) <= texts.names:
                keep, mask = _columnar_details(keep, mask, slow if slow_count else None, texts)
        if not slow_count and mask is None:
            return LogBatch(file=name, table=keep, records_read=total)
        located = locate()
        if located is None:
            return None
        line_of, records_of = located
        builder = _Builder(self, name)
        slow_rows = pc.indices_nonzero(slow).to_pylist() if slow_count else []
        for index, record in zip(slow_rows, records_of(slow_rows), strict=True):
            builder.add(line_of(index), record)
        if mask is not None:
            kept: list[int] = pc.indices_nonzero(pc.invert(slow)).to_pylist() if slow_count else []

            def kept_records(rows: list[int]) -> list[Any]:
                found = records_of([kept[i] for i in rows] if kept else rows)
                return [{} if isinstance(r, formats.Bad) else r for r in found]

            keep = self.fill_details(keep, kept_records, _DETAILS, mask)
        return LogBatch(
            file=name,
            table=pa.concat_tables([keep, builder.table()]),
            records_read=total,
            non_request=dict(builder.non_request),
            skipped=builder.skipped,
        )


@dataclass(frozen=True)
class Parsed:
    """A block's canonical columns, its reference-path mask and, when bad lines were taken out
    before parsing, the line index of each row and the bad lines (index, value or Bad)."""

    canon: pa.Table
    slow: Any
    lines: list[int] | None = None
    bad: list[tuple[int, Any]] = field(default_factory=list)
    texts: dict[str, list[str]] = field(default_factory=dict)


def _text_rows(block: LineBlock, parsed: Parsed) -> TextRows | None:
    """Return the reader of the planned texts of a parsed block's rows (None: none planned, or
    rows and lines disagree)."""
    if not parsed.texts:
        return None
    numbers = _line_numbers(block, parsed)
    return None if numbers is None else TextRows(block, numbers, parsed.texts)


def _columnar_details(
    keep: pa.Table, mask: Any, slow: Any, texts: TextRows
) -> tuple[pa.Table, Any]:
    """Fill the texts (ids, status, prompt, response) of the ``mask`` rows of ``keep`` from
    ``texts``; return the table and the mask of rows still to re-read from their line (a text that
    came from a list or object), or None.

    ``keep``'s detail columns are all null on this path, so each becomes the texts read, spread
    over the rows asked for (:func:`~assess.scope.logs.fast.blocks.spread`).
    ``slow``: the block's reference-path mask when ``keep`` left those rows out, else None.
    """
    import numpy as np

    if isinstance(mask, pa.ChunkedArray):
        mask = mask.combine_chunks()
    wanted = pc.indices_nonzero(mask)
    rows = pc.indices_nonzero(pc.invert(slow)).take(wanted) if slow is not None else wanted
    found = texts(rows)
    if found is None:
        return keep, mask
    flags = mask.to_numpy(zero_copy_only=False)
    picked = {
        name: values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
        for name, values in found.items()
    }
    for name, values in picked.items():
        keep = keep.set_column(keep.schema.get_field_index(name), name, spread(values, flags))
    again = needs_line(pa.table(picked), picked)
    if not pc.any(again).as_py():
        return keep, None
    redo = np.zeros(keep.num_rows, dtype=bool)
    redo[wanted.filter(again).to_numpy()] = True
    return keep, pa.array(redo)


def _without_bad_lines(block: LineBlock, plan: ColumnPlan) -> Parsed | None:
    """Find the lines that are not JSON objects and parse the others; None if still refused."""
    lines = block.data.split(b"\n")
    last = len(lines) - 1
    good: list[int] = []
    bad: list[tuple[int, Any]] = []
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        value = formats.json_line(line, block.at_eof and index == last)
        if isinstance(value, dict):
            good.append(index)
        else:
            bad.append((index, value))  # Bad, or a list/scalar the reference rules reject
    if not bad or not good:
        return None
    try:
        cleaned = b"\n".join(lines[i] for i in good) + b"\n"
        canon, slow = plan.extract(parse_block(cleaned, plan))
    except (pa.ArrowException, NotColumnar):
        return None
    return Parsed(canon, slow, good, bad, plan.texts)


def _line_numbers(block: LineBlock, parsed: Parsed) -> Any | None:
    """Return the 0-based line index in ``block`` of each row (numpy int64 array); None if rows
    and lines disagree."""
    if parsed.lines is not None:
        import numpy as np

        return np.asarray(parsed.lines, dtype=np.int64)
    return line_numbers(block, parsed.canon.num_rows)


def _locate(
    block: LineBlock, parsed: Parsed
) -> tuple[Callable[[int], int], Callable[[list[int]], list[Any]]] | None:
    """Return (line number of a row, records of rows) for a parsed NDJSON block."""
    numbers = _line_numbers(block, parsed)
    if numbers is None:
        return None
    index: Callable[[int], int] = numbers.tolist().__getitem__
    return (
        lambda row: block.first_line + index(row) + 1,
        lambda rows: [formats.json_line(block.line(index(r))) for r in rows],
    )


def _merge(first: LogBatch, second: LogBatch) -> LogBatch:
    """Return one batch holding both (same file)."""
    reasons = Counter(first.non_request)
    reasons.update(second.non_request)
    return LogBatch(
        file=first.file,
        table=pa.concat_tables([first.table, second.table]),
        records_read=first.records_read + second.records_read,
        non_request=dict(reasons),
        skipped=sorted([*first.skipped, *second.skipped], key=lambda s: s.line),
    )


def _peek(stream: BinaryIO) -> bytes | formats.Bad:
    """Return the first bytes of ``stream`` (a buffered reader) without consuming them.

    A compressed stream that breaks before its first block decompresses (a small truncated
    gzip) is returned as one Bad record, like a break later in the file.
    """
    try:
        head: bytes = stream.peek(65536)[:65536]  # type: ignore[attr-defined]
    except _STREAM_ERRORS as exc:
        return formats.Bad(break_reason(exc, 0))
    return head


def _guard(records: Iterator[tuple[int, Any]]) -> Iterator[tuple[int, Any]]:
    """Turn a broken compressed stream into one final Bad record instead of a crash."""
    line = 0
    try:
        for line, record in records:
            yield line, record
    except _STREAM_ERRORS as exc:
        yield line + 1, formats.Bad(break_reason(exc, line))


def break_reason(error: BaseException, last_line: int) -> str:
    """Return the skip reason of a compressed stream that broke after line ``last_line``."""
    last = f"last good line {last_line}" if last_line else "no line before it"
    return f"compressed stream is corrupt or truncated ({error}); {last}"
