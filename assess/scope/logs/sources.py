"""Input files: glob expansion, compression and format sniffing, hashing while reading.

Compression is recognised by magic bytes (gzip ``1f 8b``, zstd ``28 b5 2f fd``), never by name.
Gzip is inflated by ISA-L in a background thread (about 3x zlib's speed on this kind of data);
the SHA-256 of each file is computed from the bytes as they are read, so a 1 GB log is read once.
"""

from __future__ import annotations

import glob
import hashlib
import io
import queue
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Generic, Literal, TypeVar

from assess.kernel.common import InputFile
from assess.kernel.errors import InputError

T = TypeVar("T")
Compression = Literal["gzip", "zstd", "none"]
Format = Literal["ndjson", "json-array", "csv", "parquet", "empty"]

_GZIP = b"\x1f\x8b"
_ZSTD = b"\x28\xb5\x2f\xfd"
_PARQUET = b"PAR1"


def expand_inputs(patterns: Sequence[str]) -> list[Path]:
    """Return the files named by ``patterns`` (paths or globs), in order, without duplicates.

    Raises:
        InputError: for a missing file, a folder, or a glob that matches nothing.
    """
    found: list[Path] = []
    for pattern in patterns:
        if any(ch in pattern for ch in "*?["):
            matches = sorted(glob.glob(pattern, recursive=True))
            files = [Path(m) for m in matches if Path(m).is_file()]
            if not files:
                raise InputError(
                    f"{pattern}: the pattern matches no file", "Check the glob and quote it."
                )
        else:
            path = Path(pattern)
            if not path.exists():
                raise InputError(f"{path}: no such file", "Check the path and try again.")
            _check_regular(path)
            files = [path]
        found.extend(f for f in files if f not in found)
    return found


def _check_regular(path: Path) -> None:
    """Refuse anything but a regular file, naming what it is.

    A named pipe (FIFO), socket or device is not read: the reader opens each file more than once
    (sniffing, then hashing while reading), which would lose a pipe's first bytes or hang.
    """
    if path.is_file():
        return
    if path.is_dir():
        raise InputError(f"{path}: is a folder, not a file", "Give log files or a glob.")
    kind = "a named pipe (FIFO)" if path.is_fifo() else "not a regular file"
    if path.is_socket():
        kind = "a socket"
    elif path.is_block_device() or path.is_char_device():
        kind = "a device"
    raise InputError(
        f"{path}: is {kind}, not a regular file; it is not read",
        "Copy the stream to a file first (e.g. `cat pipe > logs.ndjson`) and scope that file.",
    )


class HashingReader(io.RawIOBase):
    """A raw binary file that hashes (SHA-256) and counts the bytes read through it."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        try:
            self._handle: io.BufferedReader = path.open("rb")
        except OSError as exc:
            raise InputError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
        self._digest = hashlib.sha256()
        self.bytes_read = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        count = self._handle.readinto(buffer)
        if count:
            self._digest.update(memoryview(buffer)[:count])
            self.bytes_read += count
        return count or 0

    def close(self) -> None:
        """Do nothing: decompressors close their source early; :meth:`release` closes."""

    def release(self) -> None:
        """Close the underlying file."""
        self._handle.close()

    def finish(self) -> InputFile:
        """Read any bytes left unread (so the hash covers the file) and return the evidence."""
        while self.readinto(bytearray(1 << 20)):
            pass
        self.release()
        return InputFile(
            path=str(self.path), bytes=self.bytes_read, sha256=self._digest.hexdigest()
        )


def sniff_compression(path: Path) -> Compression | Literal["parquet"]:
    """Return the compression of ``path`` from its magic bytes (or ``parquet``)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(4)
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    if head.startswith(_GZIP):
        return "gzip"
    if head.startswith(_ZSTD):
        return "zstd"
    if head.startswith(_PARQUET):
        return "parquet"
    return "none"


class _Inflating(io.RawIOBase):
    """Decompressed bytes of ``raw`` read in small pieces; subclasses say how a piece inflates
    (``_feed``), and what a stream that ends, or broke at an earlier piece, raises (``_check``)."""

    def __init__(self, raw: io.RawIOBase) -> None:
        super().__init__()
        self._raw = raw
        self._offset = 0  # bytes of the file read so far
        self._out = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        while not self._out:
            self._check(ended=False)
            chunk = self._raw.read(1 << 17)  # small: corruption loses only this much before it
            if not chunk:
                self._check(ended=True)
                return 0
            self._out = memoryview(self._feed(chunk))
            self._offset += len(chunk)
        count = min(len(buffer), len(self._out))
        buffer[:count] = self._out[:count]
        self._out = self._out[count:]
        return count

    def _check(self, ended: bool) -> None:
        raise NotImplementedError

    def _feed(self, chunk: bytes) -> bytes:
        raise NotImplementedError


class ZstdFrames(_Inflating):
    """Decompressed bytes of one or more concatenated zstd frames read from ``raw``.

    Unlike ``ZstdDecompressor.stream_reader``, which ends quietly on a truncated frame (a cut
    file would read as shorter or empty), a frame that stops before its end raises EOFError.
    """

    def __init__(self, raw: io.RawIOBase) -> None:
        super().__init__(raw)
        import zstandard

        self._dctx = zstandard.ZstdDecompressor()
        self._zstd_error = zstandard.ZstdError
        self._frame = self._dctx.decompressobj()
        self._fed = False  # the current frame has received input

    def _check(self, ended: bool) -> None:
        if ended and self._fed and not self._frame.eof:
            raise EOFError("zstd stream ended before the end of its frame")

    def _feed(self, chunk: bytes) -> bytes:
        parts: list[bytes] = []
        while chunk:
            if self._frame.eof:
                self._frame, self._fed = self._dctx.decompressobj(), False
            try:
                parts.append(self._frame.decompress(chunk))
            except self._zstd_error as exc:  # corrupt data: reported like a truncation
                raise ValueError(f"zstd: {exc}") from exc
            self._fed = True
            chunk = self._frame.unused_data if self._frame.eof else b""
        return b"".join(parts)


class StreamBreak(ValueError):
    """A compressed stream that stops being readable at byte ``offset`` of the file."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"{message} at byte {offset:,} of the file")
        self.offset = offset


class GzipMembers(_Inflating):
    """Decompressed bytes of one or more concatenated gzip members read from ``raw`` (ISA-L).

    Each piece of output is handed out before a break is raised: a member cut short raises
    :class:`StreamBreak` (EOF inside a member), as does corrupt data (at the piece where inflating
    failed) and bytes after a member that are not another member (trailing junk, at its first
    byte), so every line inflated before the break is kept.
    """

    def __init__(self, raw: io.RawIOBase) -> None:
        super().__init__(raw)
        from isal import isal_zlib

        self._new: Any = lambda: isal_zlib.decompressobj(wbits=31)
        self._zlib_error: Any = isal_zlib.error
        self._member = self._new()
        self._fed = False  # the current member has received input
        self._broken: StreamBreak | None = None

    def _check(self, ended: bool) -> None:
        if self._broken is not None:
            raise self._broken
        if ended and self._fed and not self._member.eof:
            raise StreamBreak("gzip stream truncated (ends inside a member)", self._offset)

    def _feed(self, chunk: bytes) -> bytes:
        parts: list[bytes] = []
        at = self._offset  # the file offset of chunk[0]
        while chunk:
            if self._member.eof:
                if not chunk.startswith(_GZIP[: len(chunk)]):
                    self._broken = StreamBreak("junk after the end of a gzip member", at)
                    break
                self._member, self._fed = self._new(), False
            try:
                parts.append(self._member.decompress(chunk))
            except self._zlib_error as exc:
                self._broken = StreamBreak(f"corrupt gzip data ({exc})", at)
                break
            self._fed = True
            rest = self._member.unused_data if self._member.eof else b""
            at += len(chunk) - len(rest)
            chunk = rest
        return b"".join(parts)


class Salvaging(io.BufferedIOBase):
    """A decompressed stream whose ``read(n)`` keeps the bytes it got before the stream broke.

    ``BufferedReader.read(n)`` drops everything it gathered in that call when the source raises
    (a truncated gzip lost up to a whole block of good lines). Here the bytes gathered are
    returned, and the error is raised by the next call, where the reader reports the break.
    """

    def __init__(self, inner: BinaryIO) -> None:
        super().__init__()
        self._inner = inner
        self._error: BaseException | None = None

    def readable(self) -> bool:
        return True

    def peek(self, size: int = 0) -> bytes:
        return self._inner.peek(size)  # type: ignore[attr-defined,no-any-return]

    def read1(self, size: int = -1) -> bytes:
        if self._error is not None:
            raise self._error
        return self._inner.read1(size if size >= 0 else 1 << 20)  # type: ignore[attr-defined,no-any-return]

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            size = 1 << 62
        parts: list[bytes] = []
        got = 0
        while got < size:
            try:
                part = self.read1(min(size - got, 1 << 20))
            except (EOFError, OSError, ValueError) as exc:
                if not parts:
                    raise
                self._error = exc
                break
            if not part:
                break
            parts.append(part)
            got += len(part)
        return b"".join(parts)

    def close(self) -> None:
        self._inner.close()
        super().close()


@contextmanager
def open_stream(raw: HashingReader, compression: Compression) -> Iterator[BinaryIO]:
    """Yield the decompressed byte stream of ``raw``."""
    stream: BinaryIO
    if compression == "gzip":
        stream = Salvaging(io.BufferedReader(GzipMembers(raw), buffer_size=4 << 20))  # type: ignore[assignment]
    elif compression == "zstd":
        stream = Salvaging(io.BufferedReader(ZstdFrames(raw), buffer_size=4 << 20))  # type: ignore[assignment]
    else:
        stream = io.BufferedReader(raw, buffer_size=4 << 20)
    try:
        yield stream
    finally:
        stream.close()


class Prefetch(Generic[T]):
    """Run ``items`` (an iterator) in a background thread, ``depth`` items ahead.

    Inflating (ISA-L, zstd) and numpy scans release the GIL, so they run on one core while the
    caller parses the previous item on the other. Memory is bounded by ``depth + 1`` items. An
    exception in the thread is raised in the caller where the stream broke.
    """

    _END = object()

    def __init__(self, items: Iterator[T], depth: int = 3) -> None:
        self._queue: queue.Queue[object] = queue.Queue(depth)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(items,), daemon=True)
        self._thread.start()

    def _put(self, item: object) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _run(self, items: Iterator[T]) -> None:
        try:
            for item in items:
                if not self._put(item):
                    return
        except Exception as exc:  # handed to the consumer, who reports it
            self._put(_Failure(exc))
            return
        self._put(self._END)

    def __iter__(self) -> Iterator[T]:
        try:
            while True:
                item = self._queue.get()
                if isinstance(item, _Failure):
                    raise item.error
                if item is self._END:
                    return
                yield item  # type: ignore[misc]
        finally:
            self.close()

    def close(self) -> None:
        """Stop the thread and wait for it."""
        self._stop.set()
        self._thread.join()


@dataclass(frozen=True)
class _Failure:
    error: Exception


class LineBlock:
    """Whole lines of a text stream: the bytes, the number of lines before them, and where each
    newline is (so row i of a block without blank lines is line i, found without a split)."""

    __slots__ = ("at_eof", "data", "first_line", "newlines")

    def __init__(self, data: bytes, first_line: int, newlines: Any, at_eof: bool) -> None:
        """``newlines``: the offsets of b"\\n" in ``data`` (see :func:`newline_offsets`)."""
        self.data = data
        self.first_line = first_line
        self.newlines = newlines
        self.at_eof = at_eof

    @property
    def newline_count(self) -> int:
        """Return how many newlines the block holds."""
        return len(self.newlines)

    def line(self, index: int) -> bytes:
        """Return line ``index`` (0-based) of the block, without its newline."""
        newlines = self.newlines
        start = int(newlines[index - 1]) + 1 if index else 0
        end = int(newlines[index]) if index < len(newlines) else len(self.data)
        return self.data[start:end]

    def join_lines(self, indices: Any) -> bytes:
        """Return lines ``indices`` (0-based, ascending numpy ints), each ending in b"\\n" but
        a final line that has none: an NDJSON text of just those lines.

        Arrow gathers them in one call over the block's own bytes (no Python step per line).
        """
        import numpy as np
        import pyarrow as pa

        ends = self.newlines + 1
        if len(self.data) > (int(ends[-1]) if len(ends) else 0):
            ends = np.append(ends, len(self.data))  # the final line has no newline
        offsets = np.concatenate(([0], ends)).astype(np.int64)
        lines = pa.Array.from_buffers(
            pa.large_binary(), len(ends), [None, pa.py_buffer(offsets), pa.py_buffer(self.data)]
        )
        picked = lines.take(numpy_int64(indices))
        _, bounds, values = picked.buffers()
        if not len(picked) or values is None:
            return b""
        at = np.frombuffer(bounds, np.int64)[picked.offset : picked.offset + len(picked) + 1]
        text: bytes = values[int(at[0]) : int(at[-1])].to_pybytes()  # the buffer may hold padding
        return text

    @property
    def line_count(self) -> int:
        """Return how many lines (complete or final partial) the block holds."""
        partial = 1 if self.data and not self.data.endswith(b"\n") else 0
        return len(self.newlines) + partial


def numpy_int64(values: Any, valid: Any = None) -> Any:
    """Return a numpy integer array (and optional numpy bool validity) as an Arrow int64 array.

    Built from the buffers: ``pa.array`` on a numpy array imports ``numpy.ma`` on first use
    (~30 ms of start-up on the main thread) to check for masked arrays.
    """
    import numpy as np
    import pyarrow as pa

    data = np.ascontiguousarray(values, dtype=np.int64)
    bits = None if valid is None else pa.py_buffer(np.packbits(valid, bitorder="little"))
    nulls = -1 if valid is not None else 0
    return pa.Array.from_buffers(pa.int64(), len(data), [bits, pa.py_buffer(data)], nulls)


def newline_offsets(data: bytes) -> Any:
    """Return the offsets of b"\\n" in ``data`` as a numpy int64 array.

    Done in the thread that inflates, in 256 KB steps: the comparison's mask stays in the CPU's
    cache and is reused, where one mask over a whole 16 MB block cost a third more (page faults
    and three passes through memory). The count gives line numbers; the offsets let a block hand
    out single lines without a split.

    Within a step, the mask is read as 8-byte words: lines are hundreds of bytes long, so only the
    few words holding a newline are searched byte by byte, where ``flatnonzero`` over every byte
    of the mask took two thirds of the scan (a 16 MB block: 9.5 ms became 7.7 ms, README).
    """
    import numpy as np

    raw = np.frombuffer(data, np.uint8)
    whole = len(raw) // 8 * 8  # the bytes read as words; the rest (< 8) is scanned alone
    step = max(8, _NEWLINE_STEP // 8 * 8)
    mask = np.empty(min(whole, step), dtype=bool)
    hits = np.empty(len(mask) // 8, dtype=bool)
    found = []
    for start in range(0, whole, step):
        part = raw[start : min(start + step, whole)]
        bytes_mask = mask[: len(part)]
        np.equal(part, 10, out=bytes_mask)
        words = bytes_mask.view(np.uint64)
        word_hits = hits[: len(words)]
        np.not_equal(words, 0, out=word_hits)
        at = np.flatnonzero(word_hits)  # the words holding a newline
        within = np.flatnonzero(words[at].view(np.uint8))  # word number * 8 + byte in word
        found.append((at[within >> 3] << 3) + (within & 7) + start)
    if whole < len(raw):
        found.append(np.flatnonzero(raw[whole:] == 10) + whole)
    return np.concatenate(found) if found else np.empty(0, dtype=np.int64)


_NEWLINE_STEP = 1 << 18


#: Lines longer than this are skipped (``--max-line-bytes``); memory stays bounded by it.
MAX_LINE_BYTES = 16 << 20
#: What an over-long line is replaced by: one short line the record readers report as skipped.
OVERLONG = b"\x00assess: over-long line of "


def _skip_line(read1: Any, seen: int) -> tuple[bytes, bool, BaseException | None]:
    """Read past the rest of an over-long line of which ``seen`` bytes were read; return its
    placeholder line plus the bytes after it, whether the stream ended, and any break."""
    while True:
        try:
            part = read1(1 << 20)
        except (EOFError, OSError, ValueError) as exc:
            return OVERLONG + b"%d bytes" % seen, False, exc
        if not part:
            return OVERLONG + b"%d bytes" % seen, True, None
        cut = part.find(b"\n")
        if cut >= 0:
            return OVERLONG + b"%d bytes" % (seen + cut) + part[cut:], False, None
        seen += len(part)


def _drop_long(block: bytes, newlines: Any, max_line: int) -> tuple[bytes, Any]:
    """Return ``block`` with each line longer than ``max_line`` bytes replaced by its placeholder
    (one numpy pass over the line lengths; the block is rebuilt only when one is found)."""
    import numpy as np

    ends = np.append(newlines, len(block)) if len(block) else newlines
    starts = np.concatenate(([0], ends[:-1] + 1))
    long = np.flatnonzero(ends - starts > max_line)
    if not len(long):
        return block, newlines
    pieces, at = [], 0
    for index in long.tolist():
        start, end = int(starts[index]), int(ends[index])
        pieces += [block[at:start], OVERLONG + b"%d bytes" % (end - start)]
        at = end
    pieces.append(block[at:])
    rebuilt = b"".join(pieces)
    return rebuilt, newline_offsets(rebuilt)


def line_blocks(stream: BinaryIO, size: int, max_line: int = MAX_LINE_BYTES) -> Iterator[LineBlock]:
    """Yield blocks of about ``size`` bytes of whole lines (the last may lack its newline).

    Each block is assembled with one copy from the pieces ``read1`` returns (the decompressor's
    own buffers), so the thread inflating holds the GIL as little as possible. When the stream
    breaks, the whole lines read before the break are yielded first, then the error is raised.
    """
    read1 = getattr(stream, "read1", stream.read)
    carry = b""
    first_line = 0
    failure: BaseException | None = None
    eof = False
    while not eof and failure is None:
        parts: list[bytes] = [carry] if carry else []
        got, goal = len(carry), size
        at = cut = -1
        while True:
            while got < goal:
                try:
                    part = read1(min(goal - got, 1 << 20))
                except (EOFError, OSError, ValueError) as exc:
                    failure = exc
                    break
                if not part:
                    eof = True
                    break
                parts.append(part)
                got += len(part)
            at = len(parts) - 1
            while at >= 0:
                cut = parts[at].rfind(b"\n")
                if cut >= 0:
                    break
                at -= 1
            if at >= 0 or eof or failure is not None:
                break
            if got > max_line:  # parts hold one line's start and no newline: drop that line
                line, eof, failure = _skip_line(read1, got)
                parts, got = [line], len(line)
                if eof or failure is not None or b"\n" in line:
                    continue
            goal = got + size  # one line longer than a block: read on to its end
        if eof:
            block, carry = b"".join(parts), b""
        elif at < 0:  # the stream broke inside the first line of this block: nothing whole
            block = b""
        else:
            block = b"".join([*parts[:at], memoryview(parts[at])[: cut + 1]])
            carry = parts[at][cut + 1 :] + b"".join(parts[at + 1 :])
        if block:
            newlines = newline_offsets(block)
            block, newlines = _drop_long(block, newlines, max_line)
            yield LineBlock(block, first_line, newlines, eof)
            first_line += len(newlines)
    if failure is not None:
        raise failure


def _is_json(line: bytes) -> bool:
    import orjson

    try:
        orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return True


def sniff_format(head: bytes, path: Path) -> Format:
    """Return the text format from the first decompressed bytes (``head``) and the name."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not text:
        return "empty"
    names = path.name.lower()
    if text[:1] == b"[":
        first, _, rest = text.partition(b"\n")
        if rest.strip() and _is_json(first):  # an NDJSON file whose first line is a list
            return "ndjson"
        return "json-array"
    if text[:1] == b"{":
        return "ndjson"
    if any(part in names for part in (".csv", ".tsv")):
        return "csv"
    if any(line.lstrip().startswith(b"{") for line in text.split(b"\n")[:50]):
        return "ndjson"  # JSON lines after a junk first line
    first_line = text.split(b"\n", 1)[0]
    if b"," in first_line or b"\t" in first_line:
        if b"\x00" not in first_line:
            return "csv"
    return "ndjson"  # junk lines are then reported one by one as malformed
