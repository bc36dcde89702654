"""Record iterators per text format: NDJSON lines, JSON arrays, CSV rows, Parquet rows.

Each yields ``(line, record)`` where ``record`` is a parsed value or a :class:`Bad` naming why the
line or row is malformed. Memory stays bounded: nothing reads a whole file.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import orjson
import pyarrow as pa

from assess.scope.logs import exactjson
from assess.scope.logs.sources import MAX_LINE_BYTES, OVERLONG, line_blocks

CHUNK = 1 << 20
_MAX_ELEMENT = 64 << 20
#: The most digits an integer in a JSON array is read with (Python refuses to convert more than
#: 4,300; a longer one is kept as its text, which the token and timestamp checks refuse by name).
MAX_INT_DIGITS = exactjson.MAX_INT_DIGITS
_bounded_int = exactjson.bounded_int


@dataclass(frozen=True)
class Bad:
    """A malformed line or row and the reason."""

    reason: str


def json_line(line: bytes, final_without_newline: bool = False) -> Any:
    """Parse one NDJSON line; return the value or a :class:`Bad`. A line that may hold a
    number a double rounds is read exactly (:mod:`~assess.scope.logs.exactjson`)."""
    if exactjson.LONG_FLOAT.search(line):
        try:
            return exactjson.loads_exact(line)
        except (ValueError, RecursionError):
            pass  # orjson names the fault below
    try:
        return exactjson.loads(line)
    except orjson.JSONDecodeError as exc:
        if line.startswith(OVERLONG):
            size = line[len(OVERLONG) :].decode(errors="replace")
            return Bad(f"line longer than --max-line-bytes ({size}); not read")
        if final_without_newline:
            return Bad("truncated final line (invalid JSON, no newline at end of file)")
        if b"\x00" in line:
            return Bad("binary data, not JSON")
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            return Bad("binary data, not UTF-8 JSON")
        return Bad(f"invalid JSON: {str(exc).split(':', 1)[0]}")


def ndjson_records(stream: BinaryIO, max_line: int = MAX_LINE_BYTES) -> Iterator[tuple[int, Any]]:
    """Yield ``(line, value or Bad)`` for each non-blank line (over-long lines are Bad)."""
    for block in line_blocks(stream, CHUNK, max_line):
        lines = block.data.split(b"\n")
        last = len(lines) - 1
        for index, line in enumerate(lines):
            if line.strip():
                final = block.at_eof and index == last
                yield block.first_line + index + 1, json_line(line, final)


#: The words of a skip reason after which a file is not read on: the verdict from such a run is
#: never an all-clear (:func:`assess.scope.evidence.assess`).
NOT_READ_ON = "the rest of the file is not read"
_TOKEN = re.compile(r'[\[\]{}"]')
_STRING_END = re.compile(r'(?:[^"\\]|\\.)*"', re.DOTALL)


def element_end(text: str, pos: int) -> int | None:
    """Return the index after the array or object starting at ``text[pos]`` (brackets counted,
    strings passed over, nothing parsed: no recursion however deep), or None when ``text`` ends
    inside it."""
    depth = 0
    while (token := _TOKEN.search(text, pos)) is not None:
        pos = token.end()
        if token.group() == '"':
            string = _STRING_END.match(text, pos)
            if string is None:
                return None
            pos = string.end()
            continue
        depth += 1 if token.group() in "[{" else -1
        if depth == 0:
            return pos
    return None


class _ArrayText:
    """The decoded text of a JSON array read piece by piece: ``buf[pos:]`` is what is left."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.text_of = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
        self.buf, self.pos, self.line, self.eof = "", 0, 1, False

    def more(self) -> bool:
        """Read the next piece (the text left kept); False at the end of the file or past
        :data:`_MAX_ELEMENT` characters left."""
        if self.eof or len(self.buf) - self.pos >= _MAX_ELEMENT:
            return False
        chunk = self.stream.read(CHUNK)
        self.eof = not chunk
        self.buf = self.buf[self.pos :] + self.text_of.decode(chunk, final=self.eof)
        self.pos = 0
        return True

    def advance(self, end: int) -> None:
        """Move past the element ending at ``end``, counting its lines."""
        self.line += self.buf.count("\n", self.pos, end)
        self.pos = end

    def skip_space(self) -> None:
        """Move past blanks and commas between elements."""
        buf, pos = self.buf, self.pos
        while pos < len(buf) and buf[pos] in " \t\r\n,":
            self.line += buf[pos] == "\n"
            pos += 1
        self.pos = pos


def _too_deep(text: _ArrayText) -> Bad | None:
    """Pass over an element nested too deep for the parser; return its Bad (None past it: read
    on), or a Bad ending the file when its end is not found."""
    while (end := element_end(text.buf, text.pos)) is None:
        if not text.more():
            reason = "truncated JSON array element" if text.eof else "invalid JSON array element"
            return Bad(f"{reason} (nested too deep); {NOT_READ_ON}")
    text.advance(end)
    return None


def json_array_records(stream: BinaryIO) -> Iterator[tuple[int, Any]]:
    """Yield ``(line, value or Bad)`` for each element of a top-level JSON array.

    An element nested too deep for the parser is one Bad (its brackets counted to find its end)
    and reading goes on after it. Any other malformed element ends the file (the rest cannot be
    resynchronised): it is reported once, at the line where it starts, its reason ending with
    :data:`NOT_READ_ON`.
    """
    decoder = json.JSONDecoder(
        parse_int=_bounded_int,
        parse_float=exactjson.exact_float,
        object_pairs_hook=exactjson.first_key,
    )
    text, opened = _ArrayText(stream), False
    while True:
        text.skip_space()
        if text.pos >= len(text.buf) or (not text.eof and len(text.buf) - text.pos < 2):
            if not text.more():  # a closing ']' returns below: the end without one is a cut
                yield text.line, Bad("truncated JSON array (no closing ']')")
                return
            continue
        if not opened:
            if text.buf[text.pos] != "[":
                yield text.line, Bad(f"not a JSON array; {NOT_READ_ON}")
                return
            opened, text.pos = True, text.pos + 1
            continue
        if text.buf[text.pos] == "]":
            return
        line = text.line
        try:
            value, end = decoder.raw_decode(text.buf, text.pos)
        except RecursionError:  # orjson's limit for a line is 1,024 levels; Python's is lower
            bad = _too_deep(text)
            yield line, bad or Bad("JSON array element nested too deep for the parser; skipped")
            if bad is not None:
                return
            continue
        except json.JSONDecodeError:
            if text.more():
                continue
            reason = "truncated JSON array element" if text.eof else "invalid JSON array element"
            yield line, Bad(f"{reason}; {NOT_READ_ON}")
            return
        if text.buf.find("\\u", text.pos, end) >= 0:  # json keeps a lone surrogate: U+FFFD
            piece = text.buf[text.pos : end]
            fixed = exactjson.without_lone_surrogates(piece)
            if fixed is not piece:
                value = decoder.decode(fixed)
        yield line, value
        text.advance(end)


def csv_records(stream: BinaryIO) -> Iterator[tuple[int, Any]]:
    """Yield ``(line, row dict or Bad)``; a row with the wrong number of fields is Bad."""
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", errors="replace", newline="")
    head = text.readline()
    if not head.strip():
        return
    delimiter = "\t" if head.count("\t") > head.count(",") else ","
    header = next(csv.reader([head], delimiter=delimiter))
    yield from csv_rows(text, header, delimiter)


def csv_rows(text: Iterator[str], header: list[str], delimiter: str) -> Iterator[tuple[int, Any]]:
    """Yield ``(line, row dict or Bad)`` for the rows after the header line."""
    for line, row in csv_lists(text, header, delimiter):
        if isinstance(row, Bad):
            yield line, row
        else:
            yield line, row_dict(header, row)


def row_dict(header: list[str], row: list[str]) -> dict[str, str | None]:
    """Return a CSV row as a dict; empty cells are null."""
    return {k: (v if v != "" else None) for k, v in zip(header, row, strict=True)}


#: The most characters one CSV record (and so one cell) may hold: the csv module's own limit
#: (131,072) lost the 2.7 MB prompts of the very requests scoped. A record read past it is one
#: skipped record, reading resumes at its second line (a quote that never closes reads this far).
MAX_RECORD_CHARS = 64 << 20


class _Runaway(Exception):
    """A CSV record ran past :data:`MAX_RECORD_CHARS` characters (a cell over the limit, or an
    unbalanced quote)."""


class _Lines:
    """The lines a ``csv.reader`` reads: lines to re-read first, then the file; the lines of the
    record being read are kept, so a record that turns out broken can be re-read after its first
    line."""

    def __init__(self, text: Iterator[str]) -> None:
        self._text = iter(text)
        self.pending: list[str] = []  # lines to re-read, last first
        self.record: list[str] = []
        self.chars = 0  # characters of the record being read
        self.start = 2  # the line number of the record being read (the header is line 1)

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        if self.chars > MAX_RECORD_CHARS:
            raise _Runaway
        line = self.pending.pop() if self.pending else next(self._text)
        self.record.append(line)
        self.chars += len(line)
        return line

    def next_record(self) -> None:
        """Start the next record after the current one."""
        self.start += len(self.record)
        self.record, self.chars = [], 0

    def resync(self) -> None:
        """Drop the current record's first line and re-read the lines after it."""
        self.pending.extend(reversed(self.record[1:]))
        self.start += 1
        self.record, self.chars = [], 0


def _unbalanced(lines: list[str], count: int, width: int) -> bool:
    """Return whether a record read over several lines is a runaway quote (its quotes do not
    pair up, or it has the wrong number of fields)."""
    return len(lines) > 1 and (count != width or sum(x.count('"') for x in lines) % 2 == 1)


def _too_long(spans: int, start: int) -> Bad:
    return Bad(
        f"CSV record longer than {MAX_RECORD_CHARS:,} characters (over {spans:,} lines: a cell "
        "over the limit, or a quote that never closes); this line is not read, reading resumes "
        f"at line {start + 1}"
    )


def _limit(message: str) -> str:
    if "field larger than field limit" in message:
        return f"a cell longer than {MAX_RECORD_CHARS:,} characters (the limit); not read"
    return message


def csv_lists(
    text: Iterator[str], header: list[str], delimiter: str
) -> Iterator[tuple[int, list[str] | Bad]]:
    """Yield ``(line, cells or Bad)`` for the rows after the header line (blank rows skipped).

    A quote that never closes (or closes rows later, leaving the wrong number of fields) would
    make the rest of the file one field: such a record is reported as one Bad line, at the line
    where it starts, and reading resumes at the line after it.
    """
    csv.field_size_limit(MAX_RECORD_CHARS)  # (process-wide; no other reader wants less)
    source = _Lines(text)
    width = len(header)
    reader = csv.reader(source, delimiter=delimiter)
    while True:
        start = source.start
        try:
            row = next(reader)
        except StopIteration:
            return
        except _Runaway:
            row = None
        except csv.Error as exc:
            if len(source.record) <= 1:
                source.next_record()
                yield start, Bad(f"CSV error: {_limit(str(exc))}")
                reader = csv.reader(source, delimiter=delimiter)
                continue
            row = None  # a field past the size limit: too long, or a runaway quote
        if row is None and source.chars > MAX_RECORD_CHARS:
            bad = _too_long(len(source.record), start)
            source.resync()
            reader = csv.reader(source, delimiter=delimiter)
            yield start, bad
            continue
        if row is None or _unbalanced(source.record, len(row), width):
            spans = len(source.record)
            source.resync()
            reader = csv.reader(source, delimiter=delimiter)
            yield (
                start,
                Bad(
                    f"unbalanced quote: the quoted field runs over {spans} lines; "
                    f"this line is not read, reading resumes at line {start + 1}"
                ),
            )
            continue
        source.next_record()
        if len(row) == width:
            yield start, row
        elif not row or (len(row) == 1 and not row[0].strip()):
            continue
        elif "\ufffd" in "".join(row):
            yield start, Bad("binary data in CSV")
        else:
            yield start, Bad(f"CSV row has {len(row)} fields, the header has {width}")


def plain_types(table: pa.Table) -> pa.Table:
    """Return ``table`` with the column types a log's values are read as: BINARY text (a model
    column written without the UTF8 annotation) decoded as UTF-8, invalid bytes replaced, not
    shown as ``"b'glm-5.3'"``; DECIMAL with no fraction digits (Snowflake's NUMBER(38,0)) as int64
    when every value fits. Other decimals stay exact ``Decimal`` values, which the token check
    reads or refuses by name."""
    for index, field in enumerate(table.schema):
        column, kind = table.column(index), field.type
        if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
            column = _utf8(column)
        elif pa.types.is_decimal(kind) and kind.scale <= 0:
            try:
                column = column.cast(pa.int64())
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                continue
        else:
            continue
        table = table.set_column(index, field.name, column)
    return table


def _utf8(column: Any) -> Any:
    try:
        return column.cast(pa.large_string())
    except pa.ArrowInvalid:  # not UTF-8 throughout: value by value, invalid bytes replaced
        values = [None if v is None else v.decode("utf-8", "replace") for v in column.to_pylist()]
        return pa.array(values, pa.large_string())


def parquet_records(
    path: Path, columns: list[str] | None, batch_size: int = 65536
) -> Iterator[tuple[int, Any]]:
    """Yield ``(row number, row dict)``, reading only ``columns`` that exist in the file (every
    column with None)."""
    import pyarrow.parquet as pq

    handle = pq.ParquetFile(path)
    present = None
    if columns is not None:
        present = [c for c in columns if c in handle.schema_arrow.names] or None
    number = 0
    for batch in handle.iter_batches(batch_size=batch_size, columns=present):
        rows = plain_types(pa.Table.from_batches([batch]))
        for row in rows.to_pylist(maps_as_pydicts="lossy"):  # map columns as dicts
            number += 1
            yield number, row
