"""NDJSON (JSON lines): the common, big case, read by the columnar fast path in blocks.

Blocks of whole lines: ISA-L inflates in a background thread while polars parses a block with an
explicit schema holding only the columns every row needs (the filter's fields). Ids, status,
prompt and response are read as text, again by polars, only from the lines of the rows the
accumulator keeps (see :mod:`assess.scope.logs.readers.columns`). Rows the fast path is unsure of,
texts that came from a list or object, and blocks that do not fit the plan, are read line by line
through :func:`assess.scope.logs.records.classify`.
``tests/scope/test_fast_equals_reference.py`` holds the two paths to one answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import orjson
import pyarrow as pa

from assess.scope.logs import envelopes, exactjson, formats
from assess.scope.logs.fast.blocks import TextRows, line_numbers, parse_block
from assess.scope.logs.fast.columnar import ColumnPlan, NotColumnar
from assess.scope.logs.lines import LineBlock, line_blocks
from assess.scope.logs.readers.base import (
    SAMPLE,
    STREAM_ERRORS,
    Builder,
    FormatReader,
    ReadContext,
    Source,
    break_reason,
    chunks,
    skipped_only,
    with_skipped,
)
from assess.scope.logs.readers.columns import fast_rows
from assess.scope.logs.sources import Prefetch
from assess.scope.models import LogBatch

#: Blocks each background stage runs ahead of the next.
DEPTH = 2


class NdjsonReader(FormatReader):
    """JSON lines; over-long lines are skipped (``ReadContext.max_line_bytes``)."""

    def records(self, source: Source, ctx: ReadContext) -> Iterator[tuple[int, Any]]:
        assert source.stream is not None
        return envelopes.expand(formats.ndjson_records(source.stream, ctx.max_line_bytes))

    def batches(self, source: Source, ctx: ReadContext) -> Iterator[LogBatch]:
        if not ctx.fast:
            yield from chunks(ctx, source.name, self.records(source, ctx))
            return
        assert source.stream is not None
        lines_done = 0
        # three stages on two cores: inflate + newline scan, parse (both release the GIL), and
        # the Python work on the previous block here
        raw_blocks = Prefetch(line_blocks(source.stream, ctx.block_size, ctx.max_line_bytes), DEPTH)
        blocks = iter(Prefetch(_parsed(ctx, iter(raw_blocks)), DEPTH))
        while True:
            try:
                item = next(blocks, None)
            except STREAM_ERRORS as exc:
                reason = break_reason(exc, lines_done)
                yield skipped_only(source.name, lines_done + 1, reason)
                return
            if item is None:
                return
            block, parsed = item
            yield _block(ctx, source.name, block, parsed)
            lines_done = block.first_line + block.line_count
            ctx.progress()


@dataclass(frozen=True)
class Parsed:
    """A block's canonical columns, its reference-path mask and, when bad lines were taken out
    before parsing, the line index of each row and the bad lines (index, value or Bad)."""

    canon: pa.Table
    slow: Any
    lines: list[int] | None = None
    bad: list[tuple[int, Any]] = field(default_factory=list)
    texts: dict[str, list[str]] = field(default_factory=dict)


def _plan(ctx: ReadContext, block: bytes) -> ColumnPlan | None:
    sample = []
    for line in block.split(b"\n", SAMPLE + 1)[:SAMPLE]:
        try:
            sample.append(orjson.loads(line))  # the block is read unpaired already
        except orjson.JSONDecodeError:
            continue
    try:
        return ColumnPlan.build(ctx.preset, sample, details=True)
    except NotColumnar:
        return None


def _parsed(
    ctx: ReadContext, blocks: Iterator[LineBlock]
) -> Iterator[tuple[LineBlock, Parsed | None]]:
    """Yield each block with its canonical columns, or None when the block does not fit the
    columnar plan (runs in a background thread)."""
    plan: ColumnPlan | None = None
    for number, block in enumerate(blocks):
        block = _unpaired_read(block)
        if number == 0:
            plan = _plan(ctx, block.data)
        parsed = None
        if plan is not None:
            try:
                table = parse_block(block.data, plan)
                if plan.may_round(table) and exactjson.LONG_FLOAT.search(block.data):
                    yield block, None  # a number a double rounds: read exactly, line by line
                    continue
                canon, slow = plan.extract(table)
                parsed = Parsed(canon, slow, texts=plan.texts)
            except (pa.ArrowException, NotColumnar):
                parsed = _without_bad_lines(block, plan)
        yield block, parsed


def _unpaired_read(block: LineBlock) -> LineBlock:
    """Return ``block`` with each lone surrogate escape written ``\\ufffd``, as every path reads
    it (:mod:`~assess.scope.logs.exactjson`): polars took one for U+0000 and lost the record's
    texts. The rewrite keeps every line's length, so the block's newline offsets hold."""
    data = exactjson.without_lone_surrogates(block.data)
    if data is block.data:
        return block
    return LineBlock(data, block.first_line, block.newlines, block.at_eof)


def _block(ctx: ReadContext, name: str, block: LineBlock, parsed: Parsed | None) -> LogBatch:
    if parsed is None:
        return _reference(ctx, name, block)
    fast = fast_rows(
        ctx,
        name,
        parsed.canon,
        parsed.slow,
        partial(_locate, block, parsed),
        partial(_reference, ctx, name, block),
        _text_rows(block, parsed),
    )
    if not parsed.bad:
        return fast
    # rows are mapped to lines whenever bad lines were taken out (``Parsed.lines``), so ``fast``
    # is the fast path's batch, never the reference one
    builder = Builder(ctx, name)
    for index, value in parsed.bad:
        builder.add(block.first_line + index + 1, value)
    return with_skipped(fast, builder.batch())


def _reference(ctx: ReadContext, name: str, block: LineBlock) -> LogBatch:
    """Return the block read line by line by the reference path."""
    builder = Builder(ctx, name)
    lines = block.data.split(b"\n")
    last = len(lines) - 1
    for index, line in enumerate(lines):
        if line.strip():
            final = block.at_eof and index == last
            builder.add(block.first_line + index + 1, formats.json_line(line, final))
    return builder.batch()


def _text_rows(block: LineBlock, parsed: Parsed) -> TextRows | None:
    """Return the reader of the planned texts of a parsed block's rows (None: none planned, or
    rows and lines disagree)."""
    if not parsed.texts:
        return None
    numbers = _line_numbers(block, parsed)
    return None if numbers is None else TextRows(block, numbers, parsed.texts)


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
