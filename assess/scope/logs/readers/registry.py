"""The format readers, by the format :func:`~assess.scope.logs.sources.sniff_format` names.

A new format: a :class:`~assess.scope.logs.readers.base.FormatReader` in its own module, listed
here (and recognised by ``sniff_format``, or ``sniff_compression`` for a binary format).
"""

from __future__ import annotations

from assess.scope.logs.readers.base import FormatReader
from assess.scope.logs.readers.delimited import CsvReader
from assess.scope.logs.readers.document import EnvelopeLinesReader, JsonDocumentReader
from assess.scope.logs.readers.json_array import JsonArrayReader
from assess.scope.logs.readers.ndjson import NdjsonReader
from assess.scope.logs.readers.parquet import ParquetReader

READERS: dict[str, FormatReader] = {
    "ndjson": NdjsonReader(),
    "json-array": JsonArrayReader(),
    "csv": CsvReader(),
    "parquet": ParquetReader(),
    "json-document": JsonDocumentReader(),
    "ndjson-envelope": EnvelopeLinesReader(),
}
