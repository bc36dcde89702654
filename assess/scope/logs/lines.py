"""Blocks of whole lines from a decompressed stream, with the offset of every newline.

The NDJSON readers take a text as blocks of whole lines (:func:`line_blocks`): the block's newline
offsets (:func:`newline_offsets`, computed in the thread that inflates) give line numbers and
single lines without a split. Lines over ``max_line`` bytes are replaced by a short placeholder
(:data:`OVERLONG`) the record readers report as skipped, so memory stays bounded by it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO


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


def newline_offsets(data: bytes, step: int | None = None) -> Any:
    """Return the offsets of b"\\n" in ``data`` as a numpy int64 array.

    Done in the thread that inflates, in 256 KB steps: the comparison's mask stays in the CPU's
    cache and is reused, where one mask over a whole 16 MB block cost a third more (page faults
    and three passes through memory). The count gives line numbers; the offsets let a block hand
    out single lines without a split.

    Within a step, the mask is read as 8-byte words: lines are hundreds of bytes long, so only the
    few words holding a newline are searched byte by byte, where ``flatnonzero`` over every byte
    of the mask took two thirds of the scan (a 16 MB block: 9.5 ms became 7.7 ms, README).
    ``step``: the bytes compared per step (default 256 KB; tests give small ones).
    """
    import numpy as np

    raw = np.frombuffer(data, np.uint8)
    whole = len(raw) // 8 * 8  # the bytes read as words; the rest (< 8) is scanned alone
    step = max(8, (NEWLINE_STEP if step is None else step) // 8 * 8)
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


NEWLINE_STEP = 1 << 18


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
