"""Parquet: only the columns the preset reads, batch by batch, through the columnar plan.

The file is opened by path (row groups are read where they lie, nothing is inflated by us); a
batch that does not fit the plan goes row by row, and a file that breaks is one skipped record
at the row where it broke.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from assess.scope.logs import formats
from assess.scope.logs.fast.columnar import ColumnPlan, NotColumnar
from assess.scope.logs.paths import path_head
from assess.scope.logs.presets import Preset
from assess.scope.logs.readers.base import (
    SAMPLE,
    Builder,
    FormatReader,
    ReadContext,
    Source,
    chunks,
    skipped_only,
)
from assess.scope.logs.readers.columns import fast_rows
from assess.scope.models import LogBatch

PARQUET_BATCH = 65536


def parquet_columns(preset: Preset) -> list[str]:
    """Return the top-level columns the preset's fields and non-request rules read."""
    columns = {path_head(p) for ps in preset.fields.values() for p in ps}
    columns |= {p for ps in preset.fields.values() for p in ps}
    columns |= {path_head(rule.when.path) for rule in preset.non_request}
    return sorted(columns)


class ParquetReader(FormatReader):
    """Apache Parquet files (recognised by their ``PAR1`` magic)."""

    by_path = True

    def records(self, source: Source, ctx: ReadContext) -> Iterator[tuple[int, Any]]:
        try:
            if ctx.every_column:  # a sample for --preset auto: every column, a small batch
                yield from formats.parquet_records(source.path, None, batch_size=1024)
            else:
                yield from formats.parquet_records(source.path, parquet_columns(ctx.preset))
        except (OSError, pa.ArrowException) as exc:
            yield 0, formats.Bad(f"unreadable Parquet: {exc}; {formats.NOT_READ_ON}")

    def batches(self, source: Source, ctx: ReadContext) -> Iterator[LogBatch]:
        if not ctx.fast:
            yield from chunks(ctx, source.name, self.records(source, ctx))
            return
        import pyarrow.parquet as pq

        plan: ColumnPlan | None = None
        first_row = 0
        broken: BaseException | None = None
        try:
            handle = pq.ParquetFile(source.path)
            present = [c for c in parquet_columns(ctx.preset) if c in handle.schema_arrow.names]
            batches = handle.iter_batches(batch_size=PARQUET_BATCH, columns=present or None)
            batch = next(batches, None)
        except (OSError, pa.ArrowException) as exc:
            batch, broken = None, exc
        while batch is not None:
            table = formats.plain_types(pa.Table.from_batches([batch]))
            if first_row == 0:
                try:
                    plan = ColumnPlan.build(ctx.preset, rows_of(table.slice(0, SAMPLE)))
                except NotColumnar:
                    plan = None
            yield _batch(ctx, source.name, table, first_row, plan)
            first_row += table.num_rows
            try:
                batch = next(batches, None)
            except (OSError, pa.ArrowException) as exc:
                batch, broken = None, exc
        if broken is not None:
            reason = f"unreadable Parquet: {broken}; {formats.NOT_READ_ON}"
            yield skipped_only(source.name, first_row + 1, reason)


def rows_of(table: pa.Table | pa.RecordBatch) -> list[dict[str, Any]]:
    """Return the rows as dicts; a map column (Langfuse's ``usage_details`` in its Parquet
    export) becomes a dict too, not a list of pairs, so ``usage_details.input`` finds its value
    (a duplicate key keeps its last value)."""
    return table.to_pylist(maps_as_pydicts="lossy")  # type: ignore[no-any-return]


def _batch(
    ctx: ReadContext, name: str, table: pa.Table, first_row: int, plan: ColumnPlan | None
) -> LogBatch:
    def records_of(rows: list[int]) -> list[Any]:
        return rows_of(table.take(pa.array(rows, pa.int64())))

    def reference() -> LogBatch:
        builder = Builder(ctx, name)
        for row, record in enumerate(rows_of(table)):
            builder.add(first_row + row + 1, record)
        return builder.batch()

    if plan is None:
        return reference()
    try:
        canon, slow = plan.extract(table)
    except (pa.ArrowException, NotColumnar):
        return reference()
    return fast_rows(
        ctx,
        name,
        canon,
        slow,
        lambda: (lambda row: first_row + row + 1, records_of),
        reference,
    )
