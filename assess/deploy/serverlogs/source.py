"""Read a server log from a file, a gzip file, or standard input (``-``), to its end.

Missing, unreadable or corrupt files are :class:`~assess.kernel.errors.InputError` (exit 2).
An empty file or binary junk is not an error: it comes back with ``problem`` set so the check
can call that node inconclusive and say why. The log streams through in bounded lines
(:mod:`~assess.deploy.serverlogs.stream`); request-traffic lines (the bulk of a long-running
server's log) are dropped while reading. Past :data:`MAX_KEPT_BYTES` of startup text, lines are
thinned instead of the read stopping: a line is kept while fewer than :data:`THIN_REPEATS`
lines of its shape (digits masked) have been kept since the last launch banner, so a launch
after gigabytes of NCCL chatter is still found; a log whose distinct text goes past twice the
budget is not read further and its node is inconclusive.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from assess.deploy.serverlogs.stream import (
    GZIP_MAGIC,
    MAX_INFLATE_RATIO,
    MAX_INFLATED_BYTES,
    MAX_LINE_BYTES,
    MAX_STREAM_BYTES,
    CountingReader,
    gunzip,
    split_lines,
    utf16_to_utf8,
)
from assess.kernel.common import InputFile, hash_file
from assess.kernel.errors import InputError

#: Startup text kept whole (a startup is well under 1 MiB); past it, lines are thinned.
MAX_KEPT_BYTES = 8 << 20
#: Past the budget, at most this many lines of one shape are kept per launch.
THIN_REPEATS = 32
_SNIFF = 64 << 10
_SHAPE = re.compile(rb"\d+")
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


def read_log(
    path: str, launches: Sequence[re.Pattern[str]] = (), keep: Sequence[re.Pattern[str]] = ()
) -> LogSource:
    """Read the log at ``path`` (``-`` for standard input) to its end, in bounded memory.

    ``launches`` are the engines' launch banners: past the kept-text budget, each one starts a
    new launch whose lines are kept again; lines matching ``keep`` are never thinned (see the
    module docstring).

    Raises:
        InputError: when the file is missing, a folder, unreadable, a corrupt archive, or input
            past the caps of :mod:`~assess.deploy.serverlogs.stream`.
    """
    if path == "-":
        return _read_stream("<stdin>", "-", sys.stdin.buffer, (launches, keep))
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{p}: is a folder, not a log file", "Give the path of a log file.")
    if not p.exists():
        raise InputError(f"{p}: no such file", "Check the path and try again.")
    try:
        if not p.is_file():  # a named pipe or a device: it can be read only once
            with p.open("rb") as handle:
                return _read_stream(str(p), str(p), handle, (launches, keep))
        info = hash_file(p)
        with p.open("rb") as handle:
            reader = CountingReader(str(p), handle, None)
            cap = max(MAX_INFLATED_BYTES, MAX_INFLATE_RATIO * info.bytes)
            return _decode(str(p), info, reader, cap, (launches, keep))
    except OSError as exc:
        raise InputError(f"{p}: cannot be read ({exc.strerror or exc})") from exc


Patterns = tuple[Sequence[re.Pattern[str]], Sequence[re.Pattern[str]]]


def _read_stream(name: str, shown: str, raw: BinaryIO, patterns: Patterns) -> LogSource:
    """Read input of unknown size once, hashing it as it streams (capped, see ``stream``)."""
    reader = CountingReader(name, raw, MAX_STREAM_BYTES)
    source = _decode(name, None, reader, MAX_INFLATED_BYTES, patterns)
    info = InputFile(path=shown, bytes=reader.count, sha256=reader.sha256.hexdigest())
    return LogSource(name, info, source.text, source.problem, source.notes)


def _lines(name: str, raw: CountingReader, cap: int, notes: list[str]) -> Iterator[bytes]:
    """Yield the lines of ``raw`` (gzip or not); a gzip break drops only the cut last line."""
    cut = [0, 0]
    if not raw.peek().startswith(GZIP_MAGIC):
        yield from split_lines(raw.chunks(), cut)
    else:
        broken = len(notes)
        last = b""
        for line in split_lines(gunzip(name, raw, cap, notes), cut):
            if last:
                yield last
            last = line
        if last.endswith(b"\n") or len(notes) == broken:
            yield last
        elif last:
            tail = last[-60:].decode("utf-8", errors="replace")
            notes.append(f"{name}: the cut last line was dropped (it ended '...{tail}')")
    if cut[0]:
        notes.append(
            f"{name}: {cut[0]:,} lines longer than {MAX_LINE_BYTES >> 20} MiB were cut there"
        )
    if cut[1]:
        notes.append(
            f"{name}: {cut[1]:,} blocks holding one line over and over were read as that line once"
        )


class _Keeper:
    """The kept startup text: whole up to the budget, thinned past it (module docstring)."""

    def __init__(self, patterns: Patterns) -> None:
        self.launches, self.keep = patterns
        self.kept: list[bytes] = []
        self.size = self.thinned = 0
        self.shapes: dict[bytes, int] = {}
        self.full = False

    def add(self, line: bytes) -> None:
        """Keep ``line`` (or count it as thinned); set ``full`` past twice the budget."""
        if self.size + len(line) > MAX_KEPT_BYTES:
            text = line.decode("utf-8", errors="replace")
            if any(pattern.search(text) for pattern in self.launches):
                self.shapes.clear()  # a new launch: its lines are kept again
            elif not any(pattern.search(text) for pattern in self.keep):
                shape = _SHAPE.sub(b"0", line)
                seen = self.shapes.get(shape, 0)
                if seen >= THIN_REPEATS:
                    self.thinned += 1
                    return
                self.shapes[shape] = seen + 1
            if self.size + len(line) > 2 * MAX_KEPT_BYTES:
                self.full = True
                return
        self.kept.append(line)
        self.size += len(line)


def _decode(
    name: str,
    info: InputFile | None,
    raw: CountingReader,
    cap: int,
    patterns: Patterns,
) -> LogSource:
    notes: list[str] = []
    keeper = _Keeper(patterns)
    dropped = 0
    sniff = bytearray()
    placeholder = info or InputFile(path=name, bytes=0, sha256="0" * 64)
    for line in _utf8(_lines(name, raw, cap, notes), notes, name):
        if len(sniff) < _SNIFF:
            sniff += line[: _SNIFF - len(sniff)]
            if len(sniff) >= _SNIFF and _looks_binary(bytes(sniff)):
                break  # /dev/zero, an image, a still-compressed archive: stop reading now
        if _TRAFFIC.search(line):
            dropped += 1
            continue
        keeper.add(line)
        if keeper.full:
            limit = 2 * MAX_KEPT_BYTES >> 20
            problem = (
                f"more than {limit} MiB of distinct startup text (after dropping request "
                "traffic and repeated lines): the log was not read to its end, so a later "
                "launch may be missing"
            )
            return LogSource(name, placeholder, "", problem, tuple(notes))
    if not sniff.strip() and not any(line.strip() for line in keeper.kept):
        cut = any("gzip stream ends early" in note for note in notes)
        problem = "no text: the gzip stream ends early (truncated)" if cut else "the file is empty"
        return LogSource(name, placeholder, "", problem, tuple(notes))
    if _looks_binary(bytes(sniff)):
        return LogSource(
            name, placeholder, "", "binary data, not a text log (wrong file, or still compressed?)",
            tuple(notes),
        )  # fmt: skip
    if dropped:
        notes.append(f"{name}: skipped {dropped:,} request-traffic lines")
    if keeper.thinned:
        notes.append(
            f"{name}: past {MAX_KEPT_BYTES >> 20} MiB of startup text, {keeper.thinned:,} lines "
            f"repeating one shape more than {THIN_REPEATS} times in a launch were skipped"
        )
    text = b"".join(keeper.kept).decode("utf-8", errors="replace")
    return LogSource(name, placeholder, text, None, tuple(notes))


def _utf8(lines: Iterator[bytes], notes: list[str], name: str) -> Iterator[bytes]:
    """Pass UTF-8 lines through; re-encode a UTF-16 log (PowerShell's `>` writes one) to UTF-8,
    decoding as it streams (the whole log, however long)."""
    first = next(lines, b"")
    if not first.startswith((b"\xff\xfe", b"\xfe\xff")):
        yield first
        yield from lines
        return
    notes.append(f"{name}: UTF-16 text, converted")
    yield from utf16_to_utf8(first, lines)


def _looks_binary(sample: bytes) -> bool:
    """Return True when ``sample`` has NULs or mostly non-text bytes."""
    if not sample:
        return False
    if sample.count(b"\x00") > max(1, len(sample) // 100):
        return True
    text = sample.decode("utf-8", errors="replace")
    odd = sum(1 for ch in text if ch == "\ufffd" or (ord(ch) < 32 and ch not in "\t\n\r\x1b\f"))
    return odd > len(text) * 0.1
