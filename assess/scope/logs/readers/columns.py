"""Batches of the columnar fast path, whose ids, status and texts load for the rows kept.

A columnar reader (NDJSON, CSV, Parquet) parses only the fields every row needs
(:data:`~assess.scope.fields.FAST_FIELDS`); :func:`fast_rows` sends the rows it is unsure of to
the reference path and hands back a batch whose loader reads the details of the rows the consumer
keeps: from planned text columns (:class:`~assess.scope.logs.fast.blocks.TextRows`) when there
are, else from the rows' records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from assess.scope.fields import LOADED_FIELDS
from assess.scope.logs import formats
from assess.scope.logs.fast.blocks import TextRows, spread
from assess.scope.logs.fast.columnar import needs_line
from assess.scope.logs.readers.base import Builder, ReadContext, fill_details
from assess.scope.models import LogBatch

#: (line number of a row, records of rows) of a parsed block.
Located = tuple[Callable[[int], int], Callable[[list[int]], list[Any]]]
#: Returns the located rows, or None when rows cannot be mapped to lines.
Locate = Callable[[], Located | None]


def fast_rows(
    ctx: ReadContext,
    name: str,
    canon: pa.Table,
    slow: Any,
    locate: Locate,
    fallback: Callable[[], LogBatch],
    texts: TextRows | None = None,
) -> LogBatch:
    """Return the batch of a columnar block; rows in ``slow`` go the reference path.

    ``locate`` maps rows to lines and records; when it cannot (None), the block is read by
    ``fallback`` (the reference path) instead. When ``texts`` gives every loaded field, only rows
    whose text came from a list or object are re-read from their line.
    """
    total = canon.num_rows
    slow_count = pc.sum(slow).as_py() or 0
    if not slow_count:
        loader = _Details(ctx, canon, None, locate, None, fallback, texts, None)
        return LogBatch(file=name, table=canon, records_read=total, details=loader)
    located = locate()
    if located is None:
        return fallback()
    line_of, records_of = located
    builder = Builder(ctx, name)
    slow_rows = pc.indices_nonzero(slow).to_pylist()
    for index, record in zip(slow_rows, records_of(slow_rows), strict=True):
        builder.add(line_of(index), record)
    keep = canon.filter(pc.invert(slow))
    loader = _Details(ctx, keep, slow, locate, located, fallback, texts, builder)
    return LogBatch(
        file=name,
        table=pa.concat_tables([keep, loader.slow_table]),
        records_read=total - slow_count + builder.read,  # a row sent here may be an API page
        non_request=dict(builder.non_request),
        skipped=builder.skipped,
        details=loader,
    )


@dataclass
class _Details:
    """Loads the details of the kept rows of a fast-path batch (its rows: ``keep`` then the
    reference-path rows of ``builder``)."""

    ctx: ReadContext
    keep: pa.Table
    slow: Any  # the block's reference-path mask when ``keep`` left those rows out, else None
    locate: Locate
    located: Located | None
    fallback: Callable[[], LogBatch]
    texts: TextRows | None
    builder: Builder | None

    def __post_init__(self) -> None:
        self.slow_table = self.builder.table() if self.builder is not None else None

    def __call__(self, mask: Any) -> pa.Table | LogBatch:
        if isinstance(mask, pa.ChunkedArray):
            mask = mask.combine_chunks()
        count = self.keep.num_rows
        keep = self._keep(mask.slice(0, count))
        if keep is None:
            return self.fallback()
        if self.builder is None or self.slow_table is None:
            return keep
        rest = self.builder.fill(self.slow_table, mask.slice(count))
        return pa.concat_tables([keep, rest])

    def _keep(self, mask: Any) -> pa.Table | None:
        """Return ``keep`` with the details of the ``mask`` rows; None if they cannot be read."""
        table = self.keep
        if not pc.any(mask).as_py():
            return table
        texts = self.texts
        mapped = {name for name in LOADED_FIELDS if self.ctx.preset.fields.get(name)}
        if texts is not None and mapped <= texts.names:  # an unmapped field stays null
            table, mask = _columnar_details(table, mask, self.slow, texts)
            if mask is None:
                return table
        located = self.located or self.locate()
        if located is None:
            return None
        records_of = located[1]
        kept: list[int] = []
        if self.slow is not None:
            kept = pc.indices_nonzero(pc.invert(self.slow)).to_pylist()

        def kept_records(rows: list[int]) -> list[Any]:
            found = records_of([kept[i] for i in rows] if kept else rows)
            return [{} if isinstance(r, formats.Bad) else r for r in found]

        return fill_details(self.ctx.preset, table, kept_records, LOADED_FIELDS, mask)


def _columnar_details(
    keep: pa.Table, mask: Any, slow: Any, texts: TextRows
) -> tuple[pa.Table, Any]:
    """Fill the texts (ids, status, prompt, response) of the ``mask`` rows of ``keep`` from
    ``texts``; return the table and the mask of rows still to re-read from their line (a text that
    came from a list or object), or None.

    ``keep``'s loaded columns are all null on this path, so each becomes the texts read, spread
    over the rows asked for (:func:`~assess.scope.logs.fast.blocks.spread`).
    ``slow``: the block's reference-path mask when ``keep`` left those rows out, else None.
    """
    import numpy as np

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
