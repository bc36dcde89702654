"""Read a server log from a file, a gzip file, or standard input (``-``).

Missing, unreadable or corrupt files are :class:`~assess.kernel.errors.InputError` (exit 2).
An empty file or binary junk is not an error: it comes back with ``problem`` set so the check
can call that node inconclusive and say why. Request-traffic lines (the bulk of a long-running
server's log) are dropped while reading, so a multi-gigabyte log costs little memory.
"""

from __future__ import annotations

import hashlib
import io
import re
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from assess.kernel.common import InputFile, hash_file
from assess.kernel.errors import InputError

#: Keep at most this much text (after dropping traffic lines); startup lines come first.
MAX_KEPT_BYTES = 32 << 20
_SNIFF = 64 << 10
_GZIP_MAGIC = b"\x1f\x8b"
# Per-request lines of SGLang ("Decode batch. #running-req", "Prefill batch."), vLLM ("Avg prompt
# throughput", "Engine 000: Avg") and uvicorn access lines: never needed, often 99% of a log.
_TRAFFIC = re.compile(
    rb"(?:Decode batch[.,] #running-req|Prefill batch[.,] #new-seq|Avg prompt throughput:"
    rb"|\"(?:POST|GET) /(?:v1|generate|health|metrics)[^\"]* HTTP/1\.[01]\" \d{3})"
)


@dataclass(frozen=True)
class LogSource:
    """A log's text (or why there is none) and its identity as evidence."""

    name: str
    input_file: InputFile
    text: str
    problem: str | None = None
    notes: tuple[str, ...] = ()


def read_log(path: str) -> LogSource:
    """Read the log at ``path`` (``-`` for standard input).

    Raises:
        InputError: when the file is missing, a folder, unreadable, or a corrupt archive.
    """
    if path == "-":
        data = sys.stdin.buffer.read()
        info = InputFile(path="-", bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
        return _decode("<stdin>", info, io.BytesIO(data))
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{p}: is a folder, not a log file", "Give the path of a log file.")
    if not p.exists():
        raise InputError(f"{p}: no such file", "Check the path and try again.")
    try:
        if not p.is_file():  # a named pipe or a device: it can be read only once
            data = p.read_bytes()
            info = InputFile(path=str(p), bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
            return _decode(str(p), info, io.BytesIO(data))
        info = hash_file(p)
        with p.open("rb") as handle:
            return _decode(str(p), info, handle)
    except OSError as exc:
        raise InputError(f"{p}: cannot be read ({exc.strerror or exc})") from exc


def _open_stream(raw: BinaryIO) -> tuple[BinaryIO, bool]:
    """Return a seekable stream and whether it holds gzip data."""
    if not raw.seekable():  # a pipe, e.g. <(kubectl logs ...)
        raw = io.BytesIO(raw.read())
    head = raw.read(2)
    raw.seek(0)
    return raw, head == _GZIP_MAGIC


def _gunzip(name: str, raw: BinaryIO, notes: list[str]) -> Iterator[bytes]:
    """Yield the decompressed bytes of every gzip member; a break is noted, never fatal.

    Everything decompressed before a truncation or a corrupt block is kept (the caller keeps
    its complete lines); trailing bytes that are not a gzip member are noted and ignored.
    """
    offset = 0  # compressed bytes consumed so far
    produced = 0  # decompressed bytes: a break before any is a corrupt file
    pending = b""
    while True:
        inflater = zlib.decompressobj(wbits=31)
        while not inflater.eof:
            chunk = pending or raw.read(1 << 16)
            pending = b""
            if not chunk:
                notes.append(
                    f"{name}: the gzip stream ends early (truncated) after {offset:,} compressed "
                    "bytes; the complete lines before the break were read"
                )
                yield inflater.flush()
                return
            try:
                out = inflater.decompress(chunk)
            except zlib.error as exc:
                if produced == 0:
                    raise InputError(
                        f"{name}: corrupt gzip file ({exc})",
                        "Give the original or a re-compressed log.",
                    ) from exc
                notes.append(
                    f"{name}: the gzip stream is damaged near compressed byte {offset:,} ({exc}); "
                    "the complete lines before the break were read"
                )
                return
            offset += len(chunk) - len(inflater.unused_data)
            produced += len(out)
            yield out
        pending = inflater.unused_data or raw.read(1 << 16)
        if not pending:
            return
        if not pending.startswith(_GZIP_MAGIC):
            notes.append(
                f"{name}: {len(pending) + len(raw.read()):,} bytes after the gzip data at "
                f"compressed byte {offset:,} are not gzip (ignored)"
            )
            return


def _lines(name: str, raw: BinaryIO, notes: list[str]) -> Iterator[bytes]:
    """Yield the lines of ``raw`` (gzip or not); a gzip break drops only the cut last line."""
    stream, gzipped = _open_stream(raw)
    if not gzipped:
        yield from stream
        return
    rest = b""
    broken = len(notes)
    for block in _gunzip(name, stream, notes):
        rest += block
        *complete, rest = rest.split(b"\n")
        for line in complete:
            yield line + b"\n"
    if rest and len(notes) > broken:
        last = rest[-60:].decode("utf-8", errors="replace")
        notes.append(f"{name}: the cut last line was dropped (it ended '...{last}')")
    elif rest:
        yield rest


def _decode(name: str, info: InputFile, raw: BinaryIO) -> LogSource:
    notes: list[str] = []
    kept: list[bytes] = []
    size = 0
    dropped = 0
    sniff = bytearray()
    for line in _utf8(_lines(name, raw, notes), notes, name):
        if len(sniff) < _SNIFF:
            sniff += line[: _SNIFF - len(sniff)]
        if _TRAFFIC.search(line):
            dropped += 1
            continue
        if size + len(line) > MAX_KEPT_BYTES:
            notes.append(f"{name}: only the first {MAX_KEPT_BYTES >> 20} MiB of startup text read")
            break
        kept.append(line)
        size += len(line)
    if not sniff.strip() and not any(line.strip() for line in kept):
        cut = any("gzip stream ends early" in note for note in notes)
        problem = "no text: the gzip stream ends early (truncated)" if cut else "the file is empty"
        return LogSource(name, info, "", problem, tuple(notes))
    if _looks_binary(bytes(sniff)):
        return LogSource(
            name, info, "", "binary data, not a text log (wrong file, or still compressed?)",
            tuple(notes),
        )  # fmt: skip
    if dropped:
        notes.append(f"{name}: skipped {dropped:,} request-traffic lines")
    text = b"".join(kept).decode("utf-8", errors="replace")
    return LogSource(name, info, text, None, tuple(notes))


def _utf8(lines: Iterator[bytes], notes: list[str], name: str) -> Iterator[bytes]:
    """Pass UTF-8 lines through; re-encode a UTF-16 log (PowerShell's `>` writes one) to UTF-8."""
    first = next(lines, b"")
    if not first.startswith((b"\xff\xfe", b"\xfe\xff")):
        yield first
        yield from lines
        return
    data = bytearray(first)
    for line in lines:
        data += line
        if len(data) > 2 * MAX_KEPT_BYTES:
            break
    notes.append(f"{name}: UTF-16 text, converted")
    text = bytes(data).decode("utf-16", errors="replace")
    yield from (line.encode("utf-8") for line in text.splitlines(keepends=True))


def _looks_binary(sample: bytes) -> bool:
    """Return True when ``sample`` has NULs or mostly non-text bytes."""
    if not sample:
        return False
    if sample.count(b"\x00") > max(1, len(sample) // 100):
        return True
    text = sample.decode("utf-8", errors="replace")
    odd = sum(1 for ch in text if ch == "\ufffd" or (ord(ch) < 32 and ch not in "\t\n\r\x1b\f"))
    return odd > len(text) * 0.1
