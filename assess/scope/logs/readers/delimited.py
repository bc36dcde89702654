"""CSV and TSV: split by the csv module (exact line numbers); the needed columns built as Arrow.

The delimiter is the header line's commoner one of tab and comma. A preset path that walks into a
cell (a JSON cell, say) sends the file to the reference path, row by row.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from itertools import islice
from typing import Any

import pyarrow as pa

from assess.scope.logs import formats
from assess.scope.logs.fast.blocks import flat_columns
from assess.scope.logs.fast.columnar import ColumnPlan, NotColumnar
from assess.scope.logs.readers.base import (
    ROWS_PER_BATCH,
    SAMPLE,
    Builder,
    FormatReader,
    ReadContext,
    Source,
    chunks,
)
from assess.scope.logs.readers.columns import fast_rows
from assess.scope.models import TEXT, LogBatch


class CsvReader(FormatReader):
    """Comma- or tab-separated values with a header line."""

    def records(self, source: Source, ctx: ReadContext) -> Iterator[tuple[int, Any]]:
        assert source.stream is not None
        return formats.csv_records(source.stream)

    def batches(self, source: Source, ctx: ReadContext) -> Iterator[LogBatch]:
        if not ctx.fast:
            yield from chunks(ctx, source.name, self.records(source, ctx))
            return
        assert source.stream is not None
        name = source.name
        text = io.TextIOWrapper(source.stream, encoding="utf-8-sig", errors="replace", newline="")
        head = text.readline()
        if not head.strip():
            return
        delimiter = "\t" if head.count("\t") > head.count(",") else ","
        header = next(csv.reader([head], delimiter=delimiter))
        columns = flat_columns(ctx.preset, header)
        if columns is None:  # a path walks into a JSON cell: row by row
            yield from chunks(ctx, name, formats.csv_rows(text, header, delimiter))
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
                yield from chunks(ctx, name, iter(bad))
            if plan is None:
                sample = [formats.row_dict(header, cells) for _, cells in good[:SAMPLE]]
                try:
                    plan = ColumnPlan.build(ctx.preset, sample)
                except NotColumnar:
                    rest = ((n, formats.row_dict(header, c)) for n, c in good)
                    yield from chunks(ctx, name, rest)
                    yield from chunks(ctx, name, formats.csv_rows(text, header, delimiter))
                    return
            yield _batch(ctx, name, header, good, columns, plan)
            ctx.progress()


def _batch(
    ctx: ReadContext,
    name: str,
    header: list[str],
    good: list[tuple[int, list[str]]],
    columns: dict[str, bool],
    plan: ColumnPlan,
) -> LogBatch:
    def records_of(rows: list[int]) -> list[Any]:
        return [formats.row_dict(header, good[i][1]) for i in rows]

    def reference() -> LogBatch:
        builder = Builder(ctx, name)
        for index, (line, _) in enumerate(good):
            builder.add(line, records_of([index])[0])
        return builder.batch()

    arrays: dict[str, Any] = {}
    try:
        for column, is_tokens in columns.items():
            at = header.index(column)
            array = pa.array([cells[at] or None for _, cells in good], TEXT)
            arrays[column] = array.cast(pa.int64()) if is_tokens else array
        arrays["__row__"] = pa.nulls(len(good))  # keeps the row count without columns
        canon, slow = plan.extract(pa.table(arrays))
    except (pa.ArrowException, NotColumnar):
        return reference()
    return fast_rows(
        ctx, name, canon, slow, lambda: (lambda row: good[row][0], records_of), reference
    )
