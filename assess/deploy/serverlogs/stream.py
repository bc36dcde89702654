"""A log's bytes as bounded lines: plain, gzip (every member) or UTF-16, read in 64 KiB chunks.

Nothing here holds more than one line (at most :data:`MAX_LINE_BYTES`) and one chunk: standard
input, a named pipe or ``/dev/zero`` is never read into memory whole. What may be read at all is
bounded too, so an endless stream or a decompression bomb ends with an :class:`InputError`
naming the cap, not a run that never stops: input of unknown size (standard input, pipes,
devices) stops at :data:`MAX_STREAM_BYTES`, and a gzip log at :data:`MAX_INFLATED_BYTES` of
inflated text or :data:`MAX_INFLATE_RATIO` times its compressed size, whichever is larger.
"""

from __future__ import annotations

import codecs
import hashlib
import zlib
from collections.abc import Iterator
from typing import BinaryIO

from assess.kernel.errors import InputError

CHUNK = 1 << 16
INFLATE_CHUNK = 1 << 20
#: A longer line is cut here (the rest of it is skipped and noted): no startup line is this long.
MAX_LINE_BYTES = 1 << 20
#: Input of unknown size (``-``, a pipe, a device) is read up to this many bytes.
MAX_STREAM_BYTES = 4 << 30
#: A gzip log inflates to at most this many bytes, or MAX_INFLATE_RATIO x its compressed size.
MAX_INFLATED_BYTES = 1 << 30
MAX_INFLATE_RATIO = 100
GZIP_MAGIC = b"\x1f\x8b"
_ADVICE = (
    "Give the startup part of the log (for example `head -c 1G server.log > startup.log`), "
    "or check that this is the right file."
)


class CountingReader:
    """Reads ``raw`` in chunks, hashing and counting every byte; refuses past ``cap`` bytes."""

    def __init__(self, name: str, raw: BinaryIO, cap: int | None) -> None:
        self.name, self.raw, self.cap = name, raw, cap
        self.sha256 = hashlib.sha256()
        self.count = 0
        self._first = b""

    def peek(self) -> bytes:
        """Return the first chunk without consuming it."""
        if not self._first and self.count == 0:
            self._first = self._take(CHUNK)
        return self._first

    def read(self, size: int = CHUNK) -> bytes:
        """Return up to ``size`` bytes (the peeked chunk first)."""
        if self._first:
            data, self._first = self._first, b""
            return data
        return self._take(size)

    def _take(self, size: int) -> bytes:
        data = self.raw.read(size)
        self.count += len(data)
        if self.cap is not None and self.count > self.cap:
            raise InputError(
                f"{self.name}: more than {self.cap >> 20:,} MiB of input of unknown size (standard "
                "input, a pipe or a device); deploy-check stops there, the log was not read whole",
                _ADVICE,
            )
        self.sha256.update(data)
        return data

    def chunks(self) -> Iterator[bytes]:
        """Yield every chunk to the end."""
        while chunk := self.read(CHUNK):
            yield chunk


def gunzip(name: str, raw: CountingReader, cap: int, notes: list[str]) -> Iterator[bytes]:
    """Yield the inflated bytes of every gzip member; a break is noted, never fatal.

    Everything inflated before a truncation or a corrupt block is kept (the caller keeps its
    complete lines); trailing bytes that are not a gzip member are noted and ignored.

    Raises:
        InputError: a corrupt first block, or more than ``cap`` inflated bytes (a bomb).
    """
    offset = produced = 0  # compressed bytes consumed; inflated bytes produced
    pending = b""
    while True:
        inflater = zlib.decompressobj(wbits=31)
        while not inflater.eof:
            chunk = pending or raw.read(CHUNK)
            pending = b""
            if not chunk:
                notes.append(
                    f"{name}: the gzip stream ends early (truncated) after {offset:,} compressed "
                    "bytes; the complete lines before the break were read"
                )
                yield inflater.flush()
                return
            while chunk and not inflater.eof:
                try:  # at most one chunk of output per call: a bomb never lands in memory whole
                    out = inflater.decompress(chunk, INFLATE_CHUNK)
                except zlib.error as exc:
                    if produced == 0:
                        raise InputError(
                            f"{name}: corrupt gzip file ({exc})",
                            "Give the original or a re-compressed log.",
                        ) from exc
                    notes.append(
                        f"{name}: the gzip stream is damaged near compressed byte {offset:,} "
                        f"({exc}); the complete lines before the break were read"
                    )
                    return
                # at the end of a member the rest is in unused_data (and still in the tail)
                rest = inflater.unused_data if inflater.eof else inflater.unconsumed_tail
                offset += len(chunk) - len(rest)
                chunk = inflater.unconsumed_tail
                produced += len(out)
                if produced > cap:
                    raise InputError(
                        f"{name}: the gzip data inflates past {cap >> 20:,} MiB (a decompression "
                        f"bomb, or a log far larger than any startup log); not read further",
                        _ADVICE,
                    )
                yield out
        pending = inflater.unused_data or raw.read(CHUNK)
        if not pending:
            return
        if not pending.startswith(GZIP_MAGIC):
            notes.append(
                f"{name}: the bytes after the gzip data at compressed byte {offset:,} are not "
                "gzip (ignored)"
            )
            return


def split_lines(chunks: Iterator[bytes], counts: list[int]) -> Iterator[bytes]:
    """Yield the lines of ``chunks`` (newline kept). A line past :data:`MAX_LINE_BYTES` is cut
    there and the rest of it skipped (``counts[0]``). A block that is one line over and over
    (blank lines, a spinner: what a decompression bomb inflates to) is yielded as that line once
    (``counts[1]``: such blocks), found in C, so gigabytes of it cost seconds, not a Python step
    per line."""
    buf = b""
    skipping = False
    for chunk in chunks:
        buf += chunk
        last = buf.rfind(b"\n")
        if last >= 0:
            block, buf = buf[: last + 1], buf[last + 1 :]
            if skipping:  # the end of a cut line
                block, skipping = block[block.find(b"\n") + 1 :], False
            first = block[: block.find(b"\n") + 1]
            if len(block) > len(first) and block.count(first) * len(first) == len(block):
                counts[1] += 1
                yield first
            else:
                for line in block.split(b"\n")[:-1]:
                    yield line + b"\n"
        if len(buf) > MAX_LINE_BYTES:
            if not skipping:
                counts[0] += 1
                yield buf[:MAX_LINE_BYTES] + b"\n"
            skipping, buf = True, b""
    if buf and not skipping:
        yield buf


def utf16_to_utf8(first: bytes, lines: Iterator[bytes]) -> Iterator[bytes]:
    """Yield the UTF-8 lines of a UTF-16 log (BOM in ``first``), decoded as it streams."""
    decoder = codecs.getincrementaldecoder("utf-16")("replace")
    pending = ""
    for piece in _chain(first, lines):
        pending += decoder.decode(piece)
        *done, pending = pending.split("\n")
        for line in done:
            yield (line + "\n").encode("utf-8")
    pending += decoder.decode(b"", final=True)
    if pending:
        yield pending.encode("utf-8")


def _chain(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    yield first
    yield from rest
