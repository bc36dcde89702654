"""Decompressing streams: gzip members (ISA-L) and zstd frames read in small pieces, and a
buffered stream that keeps the bytes read before a break.

A break (a truncated or corrupt stream, junk after the last member) is raised only after every
byte inflated before it was handed out, so the readers keep every whole line before it and report
the break as one skipped record (see ``readers/base.py:break_reason``).
"""

from __future__ import annotations

import hashlib
import io
from typing import Any, BinaryIO

from assess.kernel.errors import InputError

#: The magic bytes of a gzip member.
GZIP_MAGIC = b"\x1f\x8b"

#: Most bytes one inflate call returns (see :class:`GzipMembers`).
_PIECE = 1 << 20
#: The magic bytes of a zstd frame.
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
#: Most compressed bytes one zstd call is fed: one byte can inflate to a 128 KB block (RLE), so
#: 1 KB bounds a call's output to 32 MB (a 5 KB bomb of 6.5 GB was inflated in one call).
_ZSTD_FEED = 1 << 10

#: Decompression bounds, on inflated bytes (not the compressed bytes read): past
#: :data:`RATIO_FROM` inflated bytes, a stream may inflate to at most :data:`MAX_RATIO` times the
#: compressed bytes read so far (``--max-inflate-ratio``), and never past :data:`MAX_INFLATED`.
#: Request logs inflate 5-30 times; 60,000 records of one repeated prompt with unique ids,
#: zstd -19: 600 times; a gzip of blank lines 1,030 (deflate's ceiling is 1,032), a zstd of
#: ``{}`` lines 10,000.
MAX_RATIO = 1000
RATIO_FROM = 32 << 20
MAX_INFLATED = 1 << 40


class InflateCap(InputError):
    """A compressed input inflated past its ratio bound or :data:`MAX_INFLATED` (a bomb)."""


class _Inflating(io.BufferedIOBase):
    """Decompressed bytes of ``raw`` read in small pieces; subclasses say how a piece inflates
    (``_feed``), and what a stream that ends, or broke at an earlier piece, raises (``_check``).

    Buffered itself: :meth:`read1` hands out each inflated piece as it is (no copy into a
    ``BufferedReader``'s buffer and out again: two passes over every inflated byte saved).
    """

    def __init__(self, raw: io.RawIOBase, max_ratio: int = MAX_RATIO) -> None:
        super().__init__()
        self._raw = raw
        self._max_ratio = max_ratio  # past RATIO_FROM inflated bytes
        self._offset = 0  # bytes of the file read so far
        self._out = b""  # the inflated piece being handed out, from ``_at``
        self._at = 0
        self._inflated = 0  # bytes inflated so far
        #: The SHA-256 of the inflated bytes, taken as they are inflated (one read): the
        #: input's content identity (a ``.gz`` and its plain twin are one export).
        self._content = hashlib.sha256()
        self._complete = False  # inflated to a clean end: ``content_sha256`` covers it all

    def readable(self) -> bool:
        return True

    def _fill(self) -> bool:
        """Inflate the next piece when the current one is used up; False at the end."""
        while self._at >= len(self._out):
            self._check(ended=False)
            chunk = self._raw.read(1 << 17)  # small: corruption loses only this much before it
            if not chunk:
                self._check(ended=True)
                self._complete = True
                return False
            self._out, self._at = self._feed(chunk), 0
            self._content.update(self._out)
            self._offset += len(chunk)
            self._inflated += len(self._out)
            self._cap(self._offset, self._inflated)
        return True

    def _cap(self, offset: int, inflated: int) -> None:
        """Raise :class:`InflateCap` naming the file when ``inflated`` bytes from the first
        ``offset`` compressed ones are past the bounds."""
        ratio = inflated > RATIO_FROM and inflated > self._max_ratio * offset
        if not ratio and inflated <= MAX_INFLATED:
            return
        name = getattr(self._raw, "path", "the input")
        why = (
            f"more than {self._max_ratio:,} times its compressed size (--max-inflate-ratio)"
            if ratio
            else f"past {MAX_INFLATED:,} bytes"
        )
        raise InflateCap(
            f"{name}: refused: it inflates {why}: {inflated:,} bytes from the first "
            f"{offset:,}, {inflated / max(offset, 1):,.0f} times; a decompression bomb or not a "
            "request log",
            "Decompress it and check what it holds (request logs inflate 5-30 times, repetitive "
            f"ones a few hundred); a real log that inflates more: raise --max-inflate-ratio "
            f"(now {self._max_ratio:,}), or scope it decompressed.",
        )

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

    def content_sha256(self) -> str | None:
        """Return the SHA-256 of the inflated bytes once read to a clean end (else None)."""
        return self._content.hexdigest() if self._complete else None

    def _check(self, ended: bool) -> None:
        raise NotImplementedError

    def _feed(self, chunk: bytes) -> bytes:
        raise NotImplementedError


class ZstdFrames(_Inflating):
    """Decompressed bytes of one or more concatenated zstd frames read from ``raw``.

    Unlike ``ZstdDecompressor.stream_reader``, which ends quietly on a truncated frame (a cut
    file would read as shorter or empty), a frame that stops before its end raises EOFError.
    """

    def __init__(self, raw: io.RawIOBase, max_ratio: int = MAX_RATIO) -> None:
        super().__init__(raw, max_ratio)
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
        size, total = 0, len(chunk)
        while chunk:
            if self._frame.eof:
                self._frame, self._fed = self._dctx.decompressobj(), False
            piece, chunk = chunk[:_ZSTD_FEED], chunk[_ZSTD_FEED:]
            try:
                parts.append(self._frame.decompress(piece))
            except self._zstd_error as exc:  # corrupt data: reported like a truncation
                raise ValueError(f"zstd: {exc}") from exc
            self._fed = True
            size += len(parts[-1])
            if self._frame.eof:
                chunk = self._frame.unused_data + chunk
            # checked per piece: a bomb stops at the bound, not after the whole chunk inflated
            self._cap(self._offset + total - len(chunk), self._inflated + size)
        return b"".join(parts)


class _Stdlib(_Inflating):
    """Concatenated xz or bzip2 streams through a stdlib decompressor (``lzma``/``bz2``), whose
    ``max_length`` bounds each call's output like ISA-L's."""

    def __init__(self, raw: io.RawIOBase, kind: str, max_ratio: int = MAX_RATIO) -> None:
        super().__init__(raw, max_ratio)
        import bz2
        import lzma

        self._kind = kind
        self._new: Any = lzma.LZMADecompressor if kind == "xz" else bz2.BZ2Decompressor
        self._errors: Any = (lzma.LZMAError, OSError) if kind == "xz" else OSError
        self._stream = self._new()
        self._fed = False

    def _check(self, ended: bool) -> None:
        if ended and self._fed and not self._stream.eof:
            raise EOFError(f"{self._kind} stream ended before its end")

    def _feed(self, chunk: bytes) -> bytes:
        parts: list[bytes] = []
        size, total = 0, len(chunk)
        while chunk:
            if self._stream.eof:
                self._stream, self._fed = self._new(), False
            try:
                piece = self._stream.decompress(chunk, _PIECE)
                while True:
                    parts.append(piece)
                    size += len(piece)
                    self._cap(self._offset + total, self._inflated + size)
                    if self._stream.eof or self._stream.needs_input or not piece:
                        break
                    piece = self._stream.decompress(b"", _PIECE)
            except self._errors as exc:  # corrupt data: reported like a truncation
                raise ValueError(f"{self._kind}: {exc}") from exc
            self._fed = True
            chunk = self._stream.unused_data if self._stream.eof else b""
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

    def __init__(self, raw: io.RawIOBase, max_ratio: int = MAX_RATIO) -> None:
        super().__init__(raw, max_ratio)
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
        size = sum(len(p) for p in parts)
        while piece and not member.eof and not member.needs_input:  # more than _PIECE bytes
            piece = member.decompress(b"", _PIECE)
            parts.append(piece)
            size += len(piece)
            self._cap(self._offset + len(chunk), self._inflated + size)  # a bomb stops here


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

    def content_sha256(self) -> str | None:
        """The inflated bytes' SHA-256 when read to a clean end (see ``_Inflating``)."""
        return getattr(self._inner, "content_sha256", lambda: None)()

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
