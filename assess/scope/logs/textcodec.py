"""What a file's first bytes say before its format is sniffed: an archive refused by name, UTF-16
or UTF-32 text (by its byte order mark) decoded to UTF-8, a UTF-8 byte order mark dropped.

Archives are refused, not read: their members are files of their own, each with its own name,
hash and format, which the user extracts and gives (a member read as lines of the archive
shrank to a few "skipped lines", the records in it lost).
"""

from __future__ import annotations

import codecs
import io
from pathlib import Path
from typing import Any, BinaryIO

from assess.kernel.errors import InputError

_ARCHIVES = (
    (b"PK\x03\x04", "a zip archive"),
    (b"PK\x05\x06", "a zip archive (empty)"),
    (b"7z\xbc\xaf\x27\x1c", "a 7z archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
)
#: Byte order marks, longest first (UTF-32 LE starts with UTF-16 LE's).
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def refuse_archive(path: Path | Any, head: bytes) -> None:
    """Raise InputError naming ``path`` when ``head`` (its first bytes, decompressed for a
    ``.tar.gz``) starts an archive."""
    what = next((name for magic, name in _ARCHIVES if head.startswith(magic)), None)
    if what is None and head[257:262] == b"ustar":
        what = "a tar archive"
    if what is not None:
        raise InputError(
            f"{path}: is {what}; its members are not read from inside it",
            "Extract it and give the log files it holds (e.g. `unzip`, `tar -xf`).",
        )


def text_stream(stream: BinaryIO, path: Path | Any, head: bytes) -> BinaryIO:
    """Return ``stream`` as UTF-8 without a byte order mark: UTF-16/32 (by BOM) decoded, a UTF-8
    BOM consumed (NDJSON's first record was lost to it). ``head``: the stream's first bytes.

    Raises:
        InputError: for an archive (see :func:`refuse_archive`).
    """
    refuse_archive(path, head)
    if head.startswith(codecs.BOM_UTF8):
        stream.read(len(codecs.BOM_UTF8))
        return stream
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            return _Transcoded(stream, encoding)  # type: ignore[return-value]
    return stream


class _Transcoded(io.BufferedIOBase):
    """UTF-8 bytes of a UTF-16/32 stream (the BOM tells the byte order and is dropped);
    undecodable bytes become U+FFFD, as in the other text readers."""

    def __init__(self, inner: BinaryIO, encoding: str) -> None:
        super().__init__()
        self._inner = inner
        self._decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
        self._out = b""
        self._eof = False

    def readable(self) -> bool:
        return True

    def _fill(self) -> bool:
        while not self._out and not self._eof:
            chunk = self._inner.read(1 << 20)
            self._eof = not chunk
            self._out = self._decoder.decode(chunk, final=self._eof).encode("utf-8")
        return bool(self._out)

    def peek(self, size: int = 0) -> bytes:
        return self._out if self._fill() else b""

    def read1(self, size: int = -1) -> bytes:
        if not self._fill():
            return b""
        size = len(self._out) if size is None or size < 0 else size
        out, self._out = self._out[:size], self._out[size:]
        return out

    def read(self, size: int | None = -1) -> bytes:
        if size is not None and size >= 0:
            return self.read1(size)
        parts = []
        while part := self.read1():
            parts.append(part)
        return b"".join(parts)

    def readinto(self, buffer: Any) -> int:
        data = self.read1(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._inner.close()
        super().close()
