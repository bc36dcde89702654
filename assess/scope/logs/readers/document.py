"""API responses saved whole: one pretty-printed JSON page, or one page per line.

Both are told from plain NDJSON by :func:`assess.scope.logs.envelopes.refine` and read by the
reference path, each page opened into its records (:mod:`assess.scope.logs.envelopes`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from assess.scope.logs import envelopes, formats
from assess.scope.logs.readers.base import FormatReader, ReadContext, Source, chunks
from assess.scope.models import LogBatch


class JsonDocumentReader(FormatReader):
    """One JSON object, pretty-printed (a saved logs API page): read whole, records at line 1."""

    def records(self, source: Source, ctx: ReadContext) -> Iterator[tuple[int, Any]]:
        assert source.stream is not None
        return envelopes.document_records(source.stream)

    def batches(self, source: Source, ctx: ReadContext) -> Iterator[LogBatch]:
        yield from chunks(ctx, source.name, self.records(source, ctx))


class EnvelopeLinesReader(FormatReader):
    """One API response per line (``{"data": {...}}``, ``{"result": [...]}``)."""

    def records(self, source: Source, ctx: ReadContext) -> Iterator[tuple[int, Any]]:
        assert source.stream is not None
        return envelopes.expand(formats.ndjson_records(source.stream, ctx.max_line_bytes))

    def batches(self, source: Source, ctx: ReadContext) -> Iterator[LogBatch]:
        yield from chunks(ctx, source.name, self.records(source, ctx))
