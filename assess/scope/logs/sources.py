"""Input files: glob expansion, compression and format sniffing, hashing while reading.

Decompressing streams are in :mod:`~assess.scope.logs.compression`, blocks of lines in
:mod:`~assess.scope.logs.lines` (their names are importable from here too).

Compression is recognised by magic bytes (gzip ``1f 8b``, zstd ``28 b5 2f fd``, xz, bzip2), never
by name; archives (zip, 7z, tar) are refused by name (:mod:`~assess.scope.logs.textcodec`).
Gzip is inflated by ISA-L in a background thread (about 3x zlib's speed on this kind of data);
the SHA-256 of each file is computed from the bytes as they are read, so a 1 GB log is read once.
"""

from __future__ import annotations

import glob
import hashlib
import io
import os
import queue
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Generic, Literal, TypeVar

from assess.kernel.common import InputFile
from assess.kernel.errors import InputError
from assess.scope.logs import lines as _lines

# Re-exported: these lived here before the split, and callers import them from here.
from assess.scope.logs.compression import GZIP_MAGIC as _GZIP
from assess.scope.logs.compression import MAX_RATIO as MAX_RATIO
from assess.scope.logs.compression import ZSTD_MAGIC as _ZSTD
from assess.scope.logs.compression import GzipMembers as GzipMembers
from assess.scope.logs.compression import Salvaging as Salvaging
from assess.scope.logs.compression import StreamBreak as StreamBreak
from assess.scope.logs.compression import ZstdFrames as ZstdFrames
from assess.scope.logs.compression import _Stdlib as Stdlib
from assess.scope.logs.identity import fold_loops, symlink_notes
from assess.scope.logs.lines import MAX_LINE_BYTES as MAX_LINE_BYTES
from assess.scope.logs.lines import OVERLONG as OVERLONG
from assess.scope.logs.lines import LineBlock as LineBlock
from assess.scope.logs.lines import line_blocks as line_blocks
from assess.scope.logs.lines import numpy_int64 as numpy_int64
from assess.scope.logs.textcodec import refuse_archive
from assess.scope.models import InputNote

T = TypeVar("T")
Compression = Literal["gzip", "zstd", "xz", "bz2", "none"]
#: ``json-document`` (one pretty-printed object) and ``ndjson-envelope`` (lines of API pages) are
#: told from ``ndjson`` by :func:`assess.scope.logs.envelopes.refine`, after ``sniff_format``.
Format = Literal[
    "ndjson", "json-array", "csv", "parquet", "json-document", "ndjson-envelope", "empty"
]

_PARQUET = b"PAR1"


def expand_inputs(patterns: Sequence[str], notes: list[InputNote] | None = None) -> list[Path]:
    """Return the files named by ``patterns`` (paths or globs), in order, without duplicates;
    a glob's dangling or looping symlinks are added to ``notes``.

    Raises:
        InputError: for a missing file, a folder, or a glob that matches nothing.
    """
    found: list[Path] = []
    for pattern in patterns:
        if any(ch in pattern for ch in "*?["):
            matches = sorted(glob.glob(pattern, recursive=True))
            kept, loops = fold_loops([m for m in matches if Path(m).is_file()])
            if notes is not None:
                notes.extend(symlink_notes(matches) + loops)
            files = [Path(m) for m in kept]
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
        self._size = self._stat()  # checked again by finish()

    def readable(self) -> bool:
        return True

    def _stat(self) -> int | None:
        """The size of the open local file (None for a remote object: its size is fixed)."""
        try:
            return os.fstat(self._handle.fileno()).st_size
        except (AttributeError, OSError, io.UnsupportedOperation):
            return None

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        count = self._handle.readinto(buffer)
        if count:
            self._digest.update(memoryview(buffer)[:count])
            self.bytes_read += count
        return count or 0

    def read(self, size: int = -1) -> bytes:
        """Return up to ``size`` bytes (the rest of the file with -1), hashed and counted.

        The decompressors read their input in pieces through here. ``RawIOBase.read`` would
        read into a fresh ``bytearray`` and copy it into a ``bytes``: one more pass over every
        compressed byte (1M-row benchmark log: 161 MB copied, ~3% of the run's instructions).
        """
        data = self._handle.read(size)
        if data:
            self._digest.update(data)
            self.bytes_read += len(data)
        return data

    def close(self) -> None:
        """Do nothing: decompressors close their source early; :meth:`release` closes."""

    def release(self) -> None:
        """Close the underlying file."""
        self._handle.close()

    def finish(self) -> InputFile:
        """Read any bytes left unread (so the hash covers the file) and return the evidence.

        Raises:
            InputError: when the file's size changed while it was read (appended, truncated):
                the hash and the counts would cover different bytes.
        """
        while self.readinto(bytearray(1 << 20)):
            pass
        now = self._stat()
        self.release()
        if self._size is not None and not self._size == self.bytes_read == now:
            raise InputError(
                f"{self.path}: changed while it was read ({self._size:,} bytes when opened, "
                f"{self.bytes_read:,} read, {now:,} now): its hash and counts would not "
                "describe one file",
                "Scope a copy that is no longer being written (e.g. a rotated log).",
            )
        return InputFile(
            path=str(self.path), bytes=self.bytes_read, sha256=self._digest.hexdigest()
        )


def sniff_compression(path: Path) -> Compression | Literal["parquet"]:
    """Return the compression of ``path`` from its magic bytes (or ``parquet``)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(8)
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    if head.startswith(_GZIP):
        return "gzip"
    if head.startswith(_ZSTD):
        return "zstd"
    if head.startswith(_PARQUET):
        return "parquet"
    if head.startswith(b"\xfd7zXZ"):
        return "xz"
    if head.startswith(b"BZh") and head[3:4].isdigit():
        return "bz2"
    refuse_archive(path, head)
    return "none"


@contextmanager
def open_stream(
    raw: HashingReader, compression: Compression, max_ratio: int = MAX_RATIO
) -> Iterator[BinaryIO]:
    """Yield the decompressed byte stream of ``raw``; past 32 MiB inflated, it may inflate to
    ``max_ratio`` times the compressed bytes read (``InflateCap`` otherwise)."""
    stream: BinaryIO
    if compression == "gzip":
        stream = Salvaging(GzipMembers(raw, max_ratio))  # type: ignore[arg-type,assignment]
    elif compression == "zstd":
        stream = Salvaging(ZstdFrames(raw, max_ratio))  # type: ignore[arg-type,assignment]
    elif compression in ("xz", "bz2"):
        stream = Salvaging(Stdlib(raw, compression, max_ratio))  # type: ignore[arg-type,assignment]
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


_NEWLINE_STEP = _lines.NEWLINE_STEP


def newline_offsets(data: bytes) -> Any:
    """Return the offsets of b"\\n" in ``data`` as a numpy int64 array, scanned in steps of
    this module's ``_NEWLINE_STEP`` (see :func:`assess.scope.logs.lines.newline_offsets`)."""
    return _lines.newline_offsets(data, _NEWLINE_STEP)


def _is_json(line: bytes) -> bool:
    import orjson

    from assess.scope.logs.exactjson import without_lone_surrogates

    try:
        orjson.loads(without_lone_surrogates(line))
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
