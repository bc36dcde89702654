"""The one interface every server-log parser implements (one engine per module)."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar

from packaging.version import InvalidVersion, Version

from assess.deploy.models import ParsedServerLog
from assess.deploy.serverlogs.text import Hit, LogText, to_int

#: A version as engines print it: 0.5.21, v0.11.1rc6.dev115+gbc926c122, 0.4.6.post1
VERSION = r"v?(\d+\.\d+(?:\.\d+)?(?:\.?(?:post|rc|dev|a|b)\d+)*(?:\+[\w.]+)?)"


class ServerLogParser(ABC):
    """Reads one engine's startup log into a :class:`ParsedServerLog`."""

    engine: ClassVar[str]
    #: (pattern, weight): how strongly a match says "this is my engine's log".
    signatures: ClassVar[Sequence[tuple[re.Pattern[str], int]]]
    #: Lines that begin a launch (the first that occurs at all marks every launch in a log).
    launch_markers: ClassVar[Sequence[re.Pattern[str]]] = ()

    def score(self, log: LogText) -> int:
        """Return how much ``log`` looks like this engine's log (0: not at all)."""
        return sum(weight for pattern, weight in self.signatures if log.contains(pattern))

    @abstractmethod
    def parse(self, log: LogText) -> ParsedServerLog:
        """Return what the log says; missing values stay None with a hint where to look."""


def normalise_version(raw: str, notes: list[str]) -> str:
    """Return ``raw`` without a leading 'v'; note it when it is not a PEP 440 version."""
    value = raw.lstrip("vV")
    try:
        Version(value)
    except InvalidVersion:
        notes.append(f"version '{value}' is not a PEP 440 version; advisories cannot match it")
    return value


def smallest(
    hits: Sequence[Hit], group: int, notes: list[str], what: str
) -> tuple[int, Hit] | tuple[None, None]:
    """Return the smallest integer in ``group`` of ``hits`` (ranks print one line each).

    A deployment is only as safe as its smallest pool; differing values are noted. A value that
    is not a count (non-integral, out of range) is noted and skipped; (None, None) if none is.
    """
    values = [(to_int(h.groups[group] or ""), h) for h in hits]
    numbers = [(v, h) for v, h in values if v is not None]
    rejected = sorted({h.groups[group] or "" for v, h in values if v is None})
    notes.extend(f"{what} '{raw}' is not a whole token count; not used" for raw in rejected)
    if not numbers:
        return None, None
    distinct = sorted({v for v, _ in numbers})
    if len(distinct) > 1:
        shown = ", ".join(f"{v:,}" for v in distinct)
        notes.append(f"{what} differs between ranks or engines ({shown}); the smallest is used")
    return min(numbers, key=lambda pair: pair[0])
