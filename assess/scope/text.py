"""Text checks for scoping: token ranges from prompt length, and candidate foreign data.

Nothing here returns the matched values themselves: callers count kinds, never print them.
"""

from __future__ import annotations

import math
import re
from typing import Literal

#: A token spans at least this many characters (dense text: CJK, code, base64, JSON escapes)...
CHARS_PER_TOKEN_LOW = 1.0
#: ...and at most this many (verbose English with whitespace; ~4 is typical).
CHARS_PER_TOKEN_HIGH = 6.0
ESTIMATE_METHOD = (
    "tokens between chars/6 and chars/1 of the logged prompt text (JSON text when the prompt is a "
    "list of messages); 'crosses' when the threshold lies inside that range"
)

_KINDS: dict[str, re.Pattern[str]] = {
    "email": re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}"),
    "url": re.compile(r"\bhttps?://[^\s\"'<>)\]}]+"),
    "api_key": re.compile(
        r"\b(?:sk-[A-Za-z0-9_\-]{16,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}"
        r"|xox[abposr]-[A-Za-z0-9\-]{10,}|AIza[0-9A-Za-z_\-]{35})\b"
    ),
    "uuid": re.compile(
        r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
    ),
    "long_hex": re.compile(r"\b[0-9a-fA-F]{32,}\b"),
    "ipv4": re.compile(r"\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b"),
}
FOREIGN_KINDS = tuple(_KINDS)
#: What the candidate foreign-data check cannot see (said in every result that reports it).
NOT_DETECTED = (
    "personal names",
    "health, financial or other sensitive facts",
    "postal addresses and phone numbers",
    "free text (prose, code, documents) of another tenant",
    "identifiers that also occur in the request's own prompt",
)
#: RE2 (``pyarrow.compute``) pattern matching every text in which some pattern above can match
#: (a superset: literal prefixes, hex runs, a digit-dot-digit for IPv4, any "@"); texts it does
#: not match are checked no further.
MAYBE_FOREIGN = r"@|https?://|sk-|AKIA|gh[pousr]_|xox[abposr]-|AIza|[0-9a-fA-F]{8}|\p{Nd}\.\p{Nd}"


def token_range(chars: int, threshold: int) -> tuple[int, int, Literal["over", "under", "crosses"]]:
    """Return (low, high, verdict) tokens for a prompt of ``chars`` characters.

    ``verdict`` is ``over`` when even the low estimate is strictly greater than ``threshold``,
    ``under`` when even the high estimate is at or under it, else ``crosses``.
    """
    low = math.floor(chars / CHARS_PER_TOKEN_HIGH)
    high = math.ceil(chars / CHARS_PER_TOKEN_LOW)
    if low > threshold:
        return low, high, "over"
    if high <= threshold:
        return low, high, "under"
    return low, high, "crosses"


def foreign_kinds(response: str, prompt: str | None) -> set[str]:
    """Return the kinds of identifiers in ``response`` that do not occur in its own ``prompt``."""
    own = prompt or ""
    found: set[str] = set()
    for kind, pattern in _KINDS.items():
        for match in pattern.finditer(response):
            if match.group(0) not in own:
                found.add(kind)
                break
    return found
