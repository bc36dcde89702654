"""A log as text, cleaned of terminal and paste noise, searchable across wrapped lines.

Logs reach us copied from terminals, issue trackers, chat and ``kubectl logs --prefix``: with ANSI
colour codes, markdown fences and ``>`` quotes, custom timestamp or pod prefixes, and lines wrapped
in the middle of a word or a number. So patterns are never anchored to the start of a line, and a
value not found on one line is looked for again in a *joined* view where every line break (and the
indentation after it) is removed, which re-assembles ``chunked_prefill_size\\n=8192`` and
``dis\\naggregation_mode``. Patterns therefore write every space as ``[ \\t]*``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

# CSI (colours, cursor), OSC (titles, hyperlinks) and two-byte escapes.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
# Markdown / e-mail quote markers and fence lines: removed, they are not part of the log.
_QUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)+", re.M)
_FENCE = re.compile(r"^[ \t]*(?:```|~~~)[\w+-]*[ \t]*$", re.M)
_EXCERPT = 160
# A line that starts like a new log record (a timestamp, or a level and a date as vLLM prints)
# is not the continuation of a wrapped one: the joined view keeps a break before it, or a value at
# the end of one line would run on into the next record's timestamp ("0.5.21" + "2026-10-02...").
_NEW_RECORD = re.compile(
    r"^[ \t]*(?:\d{4}-\d\d-\d\d[ T]\d\d:|(?:INFO|WARNING|ERROR|DEBUG)[ \t]+\d\d-\d\d[ \t])"
)
# Lines that begin a statement of their own (an environment variable, a shell command): a value
# at the end of the line before one is complete, not cut by a wrap.
_NEW_STATEMENT = re.compile(r"^[ \t]*(?:[A-Z][A-Z0-9_]{2,}=|export[ \t]|\$[ \t]|#)")
# Secrets that launch lines and server_args may print (api_key='...', --api-key X, hf_token=...):
# evidence excerpts end up in JSON and reports, so their values are masked.
_SECRET = re.compile(
    r"((?:\w*api[_-]key|hf[_-]token|\w*access[_-]token|\w*secret\w*|\w*password\w*)['\"]?"
    r"(?:[ \t]*[=:][ \t]*|[ \t]+))(?!None\b)('[^']*'|\"[^\"]*\"|[^\s,)}'\"]+)",
    re.I,
)


def clean(text: str) -> str:
    """Return ``text`` without ANSI codes, CRs, NULs, markdown quotes and fence lines."""
    text = _ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    text = _QUOTE.sub("", text)
    return _FENCE.sub("", text)


@dataclass(frozen=True)
class Hit:
    """One match: its groups, the 1-based line it starts on, and whether it spans a wrap."""

    groups: tuple[str | None, ...]
    line: int
    excerpt: str
    wrapped: bool = False

    @property
    def value(self) -> str:
        """Return the first group (the value the pattern captures)."""
        return self.groups[0] or ""

    def cite(self) -> str:
        """Return ``line N: excerpt`` for the evidence column."""
        suffix = " (re-joined across a line wrap)" if self.wrapped else ""
        return f"line {self.line}: {self.excerpt}{suffix}"


class LogText:
    """Cleaned log text with a line view and a lazily built joined view."""

    def __init__(self, text: str, first_line: int = 1) -> None:
        self.text = text
        self.first_line = first_line
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    @property
    def line_count(self) -> int:
        """Return the number of lines."""
        return len(self._line_starts)

    def line_of(self, offset: int) -> int:
        """Return the 1-based line number of character ``offset``."""
        return self.first_line + bisect_right(self._line_starts, offset) - 1

    def _line_text(self, index: int) -> str:
        start = self._line_starts[index]
        end = self.text.find("\n", start)
        return self.text[start : end if end >= 0 else len(self.text)]

    def _excerpt(self, line_text: str, start: int, end: int) -> str:
        if len(line_text) <= _EXCERPT:
            return _SECRET.sub(r"\1***", line_text.strip())
        left = max(0, start - 40)
        piece = line_text[left : max(end, left + _EXCERPT)][:_EXCERPT]
        return _SECRET.sub(r"\1***", ("..." if left else "") + piece.strip() + "...")

    @cached_property
    def _joined(self) -> tuple[str, list[int]]:
        parts: list[str] = []
        starts: list[int] = []
        pos = 0
        for number, line in enumerate(self.text.split("\n")):
            piece = line.strip()
            if number and _NEW_RECORD.match(line):
                piece = "\n" + piece
            starts.append(pos)
            parts.append(piece)
            pos += len(piece)
        return "".join(parts), starts

    def find_all(self, pattern: re.Pattern[str]) -> list[Hit]:
        """Return every match on single lines; if there is none, every match in the joined view."""
        hits: list[Hit] = []
        for m in pattern.finditer(self.text):
            index = bisect_right(self._line_starts, m.start()) - 1
            line_start = self._line_starts[index]
            excerpt = self._excerpt(
                self._line_text(index), m.start() - line_start, m.end() - line_start
            )
            rejoined = self._rejoin(pattern, index, m) if self._cut_at_end(index, m) else None
            hits.append(rejoined or Hit(m.groups(), self.first_line + index, excerpt))
        if hits:
            return hits
        joined, starts = self._joined
        for m in pattern.finditer(joined):
            index = bisect_right(starts, m.start()) - 1
            excerpt = self._excerpt(joined, m.start(), m.end())
            hits.append(Hit(m.groups(), self.first_line + index, excerpt, wrapped=True))
        return hits

    def _cut_at_end(self, index: int, m: re.Match[str]) -> bool:
        """Return True when ``m`` runs to the end of its line and the next line continues it."""
        line = self._line_text(index)
        if m.end() < self._line_starts[index] + len(line.rstrip()):
            return False
        if index + 1 >= len(self._line_starts):
            return False
        following = self._line_text(index + 1)
        return bool(following.strip()) and not (
            _NEW_RECORD.match(following) or _NEW_STATEMENT.match(following)
        )

    def _rejoin(self, pattern: re.Pattern[str], index: int, m: re.Match[str]) -> Hit | None:
        """Match ``pattern`` again in the joined view where ``m`` starts (a wrap may cut it)."""
        joined, starts = self._joined
        line = self._line_text(index)
        lead = len(line) - len(line.lstrip())
        offset = starts[index] + (m.start() - self._line_starts[index] - lead)
        if index and _NEW_RECORD.match(line):
            offset += 1  # the joined view keeps a break before a new record
        again = pattern.match(joined, offset)
        if again is None or again.end() <= offset + (m.end() - m.start()):
            return None
        excerpt = self._excerpt(joined, again.start(), again.end())
        return Hit(again.groups(), self.first_line + index, excerpt, wrapped=True)

    def record_after(self, pattern: re.Pattern[str]) -> tuple[str, Hit] | None:
        """Return the rest of the record after the last match of ``pattern``, and the match.

        The text comes from the joined view (line wraps removed) and ends where the next log
        record begins, so a long repr wrapped by a terminal or an issue tracker reads whole.
        """
        hit = self.find_last(pattern)
        if hit is None:
            return None
        joined, starts = self._joined
        m = pattern.search(joined, starts[hit.line - self.first_line])
        if m is None:
            return None
        end = joined.find("\n", m.end())
        return joined[m.end() : end if end >= 0 else len(joined)], hit

    def find_last(self, pattern: re.Pattern[str]) -> Hit | None:
        """Return the last match (see :meth:`find_all`), or None."""
        hits = self.find_all(pattern)
        return hits[-1] if hits else None

    def find_first_of(self, patterns: Sequence[re.Pattern[str]]) -> Hit | None:
        """Return the last match of the first pattern (in priority order) that matches."""
        for pattern in patterns:
            hit = self.find_last(pattern)
            if hit is not None:
                return hit
        return None

    def contains(self, pattern: re.Pattern[str]) -> bool:
        """Return True when ``pattern`` matches a line or the joined view."""
        return pattern.search(self.text) is not None or pattern.search(self._joined[0]) is not None

    def startup_offsets(self, markers: Sequence[re.Pattern[str]]) -> list[int]:
        """Return where each startup begins (character offsets of its first line), in order.

        The first marker in ``markers`` that occurs at all is used (see :meth:`last_startup`).
        """
        for marker in markers:
            found = self.find_all(marker)
            if found:
                lines = sorted({hit.line - self.first_line for hit in found})
                return [self._line_starts[index] for index in lines]
        return []

    def part(self, start: int, end: int) -> LogText:
        """Return characters ``start:end`` as a log of their own, keeping the line numbers."""
        return LogText(self.text[start:end], self.line_of(start))

    def last_startup(self, markers: Sequence[re.Pattern[str]]) -> tuple[LogText, int]:
        """Return the text from the last startup on, and how many startups the log shows.

        A startup begins where the first marker in ``markers`` that occurs at all last occurs;
        with no marker the whole log is one startup (it may have lost its head).
        """
        for marker in markers:
            found = self.find_all(marker)
            if found:
                start = self._line_starts[found[-1].line - self.first_line]
                return LogText(self.text[start:], found[-1].line), len(found)
        return self, 0


def flex(phrase: str) -> str:
    """Return a regex for ``phrase`` whose spaces also match nothing (a wrap ate them)."""
    return r"[ \t]*".join(re.escape(word) for word in phrase.split())


#: A token count as engines print it: 567978, 567,978 (vLLM formats with ``f"{n:,}"`` since
#: vllm-project/vllm#13596), 1_048_576, or 5.68e5. Parse it with :func:`to_int`.
NUMBER = r"(\d{1,3}(?:,\d{3})+(?![\d])|\d+(?:_\d+)*(?:\.\d+)?(?:[eE][+]?\d+)?)"
#: The largest count accepted as a value (int64, as engines store token counts).
MAX_COUNT = 2**63 - 1
_INTEGER = re.compile(r"\d+")
_GROUPED = re.compile(r"\d{1,3}(?:,\d{3})+")
_SCIENTIFIC = re.compile(r"(\d+)(?:\.(\d+))?[eE]\+?(\d{1,3})")


def keyed(key: str, value: str = NUMBER) -> re.Pattern[str]:
    """Return a pattern for ``key=value`` / ``key: value`` anywhere in a line.

    The key may be quoted or marked up (``'key'``, `` `key` ``, ``**key**``), as may the value;
    the value must end its line or stand before a separator (``,;)}]|``), so a value cut by a
    line wrap that runs on into the next line is not read short.
    """
    mark = r"[`*'\"]*"
    return re.compile(
        rf"(?<![\w.]){mark}{key}{mark}[ \t]*[=:][ \t]*{mark}{value}{mark}"
        r"(?=[ \t]*(?:[,;)}\]|]|$))",
        re.M,
    )


def to_int(raw: str) -> int | None:
    """Return a printed token count as an int, or None when it is not one.

    The one checked path for every number read from a log: '567978', '567,978' (groups of three),
    '1_048_576' and '5.68e5' (568000) are values; a non-integral ('4.33', '5.6789e2'), negative,
    badly grouped ('56,7978') or out-of-range (above 2**63 - 1) number is not.
    """
    text = raw.strip()
    if _GROUPED.fullmatch(text):
        text = text.replace(",", "")
    text = text.replace("_", "") if re.fullmatch(r"\d+(?:_\d+)+", text) else text
    if _INTEGER.fullmatch(text):
        value = int(text)
    else:
        m = _SCIENTIFIC.fullmatch(text)
        if m is None:
            return None
        whole, fraction, exponent = m.group(1), m.group(2) or "", int(m.group(3))
        if len(fraction) > exponent and fraction[exponent:].strip("0"):
            return None  # 5.6789e2 = 567.89: not a count
        digits = whole + fraction[:exponent].ljust(exponent, "0")
        if len(digits) > 20:
            return None
        value = int(digits)
    return value if value <= MAX_COUNT else None
