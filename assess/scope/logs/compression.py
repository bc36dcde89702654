"""Decompressing streams: gzip members (ISA-L) and zstd frames read in small pieces, and a
buffered stream that keeps the bytes read before a break.

A break (a truncated or corrupt stream, junk after the last member) is raised only after every
byte inflated before it was handed out, so the readers keep every whole line before it and report
the break as one skipped record (see ``readers/base.py:break_reason``).
"""

from __future__ import annotations

import io
from typing import Any, BinaryIO

#: The magic bytes of a gzip member.
GZIP_MAGIC = b"\x1f\x8b"

#: Most bytes one inflate call returns (see :class:`GzipMembers`).
_PIECE = 1 << 20
#: The magic bytes of a zstd frame.
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


class _Inflating(io.BufferedIOBase):
    """Decompressed bytes of ``raw`` read in small pieces; subclasses say how a piece inflates
    (``_feed``), and what a stream that ends, or broke at an earlier piece, raises (``_check``).

    Buffered itself: :meth:`read1` hands out each inflated piece as it is (no copy into a
    ``BufferedReader``'s buffer and out again: two passes over every inflated byte saved).
    """

    def __init__(self, raw: io.RawIOBase) -> None:
        super().__init__()
        self._raw = raw
        self._offset = 0  # bytes of the file read so far
        self._out = b""  # the inflated piece being handed out, from ``_at``
        self._at = 0

    def readable(self) -> bool:
        return True

    def _fill(self) -> bool:
        """Inflate the next piece when the current one is used up; False at the end."""
        while self._at >= len(self._out):
            self._check(ended=False)
            chunk = self._raw.read(1 << 17)  # small: corruption loses only this much before it
            if not chunk:
                self._check(ended=True)
                return False
            self._out, self._at = self._feed(chunk), 0
            self._offset += len(chunk)
        return True

    def read1(self, size: int = -1) -> bytes:
        if not self._fill():
            return b""
        out, at = self._out, self._at
        if at == 0 and (size < 0 or size >= len(out)):
            self._at = len(out)
            return out
        end = len(out) if size < 0 else min(len(out), at + size)
        self._at = end
        return out[at:end]

    def read(self, size: int | None = -1) -> bytes:
        if size is not None and size >= 0:
            return self.read1(size)  # callers loop (``Salvaging.read``)
        parts = []
        while part := self.read1():
            parts.append(part)
        return b"".join(parts)

    def peek(self, size: int = 0) -> bytes:
        """Return the rest of the current inflated piece (as ``BufferedReader.peek``: one piece,
        whatever ``size``), without consuming it."""
        return self._out[self._at :] if self._fill() else b""

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
        from isal import igzip_lib

        self._new: Any = lambda: igzip_lib.IgzipDecompressor(flag=igzip_lib.DECOMP_GZIP)
        self._zlib_error: Any = igzip_lib.IsalError
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
                if not chunk.startswith(GZIP_MAGIC[: len(chunk)]):
                    self._broken = StreamBreak("junk after the end of a gzip member", at)
                    break
                self._member, self._fed = self._new(), False
            try:
                self._inflate(chunk, parts)
            except self._zlib_error as exc:
                self._broken = StreamBreak(f"corrupt gzip data ({exc})", at)
                break
            self._fed = True
            rest = self._member.unused_data if self._member.eof else b""
            at += len(chunk) - len(rest)
            chunk = rest
        return b"".join(parts)

    def _inflate(self, chunk: bytes, parts: list[bytes]) -> None:
        """Append to ``parts`` what ``chunk`` inflates to, up to the end of the member.

        Each call gets an output buffer of :data:`_PIECE` bytes at once. ``isal_zlib``'s
        ``decompressobj`` starts at 16 KB and doubles, copying the bytes so far and taking the GIL
        back at every step: with the parsing and the accumulator busy on the other threads, the
        NDJSON scope benchmark ran 2-4% longer with it.
        """
        member = self._member
        piece = member.decompress(chunk, _PIECE)
        parts.append(piece)
        while piece and not member.eof and not member.needs_input:  # more than _PIECE bytes
            piece = member.decompress(b"", _PIECE)
            parts.append(piece)


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
