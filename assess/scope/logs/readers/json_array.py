"""A JSON document holding one array of records, read element by element (reference path)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from assess.scope.logs import envelopes, formats
from assess.scope.logs.readers.base import FormatReader, ReadContext, Source, chunks
from assess.scope.models import LogBatch


class JsonArrayReader(FormatReader):
    """``[{...}, {...}]``: a malformed element ends the file (reported once, where it starts)."""

    def records(self, source: Source, ctx: ReadContext) -> Iterator[tuple[int, Any]]:
        assert source.stream is not None
        return envelopes.expand(formats.json_array_records(source.stream))

    def batches(self, source: Source, ctx: ReadContext) -> Iterator[LogBatch]:
        yield from chunks(ctx, source.name, self.records(source, ctx))
