"""Canary markers and the scan for them (pure).

A marker is ``kv<round>-<random>`` where the random part is 32 base32 characters (160 bits from
:func:`secrets.token_bytes`). Low-entropy markers give false hits, so the random part is never
shorter than 128 bits. A fragment is any run of at least ``fragment_chars`` characters of the
random part; with base32 each character carries 5 bits, so the default 8 is 40 bits and a chance
match is about one in a trillion per position.
"""

from __future__ import annotations

import base64
import secrets
from dataclasses import dataclass

RANDOM_BYTES = 20  # 160 bits -> 32 base32 characters
MIN_BITS = 128
MIN_FRAGMENT_CHARS = 6  # 30 bits; shorter runs start to match by chance
BITS_PER_CHAR = 5

_CODENAMES = ["heron", "juniper", "basalt", "marigold", "tundra", "saffron", "osprey", "quartz"]


@dataclass(frozen=True)
class Marker:
    """A canary: its id, full value and the random part fragments are cut from."""

    id: str
    value: str
    random_part: str

    @property
    def bits(self) -> int:
        """Return the entropy of the random part in bits."""
        return len(self.random_part) * BITS_PER_CHAR


def new_marker(index: int) -> Marker:
    """Return a fresh marker with a 160-bit random part (``secrets``, not ``random``)."""
    random_part = base64.b32encode(secrets.token_bytes(RANDOM_BYTES)).decode("ascii").lower()
    random_part = random_part.rstrip("=")
    return Marker(id=f"m{index:02d}", value=f"kv{index}-{random_part}", random_part=random_part)


def plant_prompt(marker: Marker, index: int) -> str:
    """Return natural text carrying ``marker`` that a model will keep in its context."""
    name = _CODENAMES[index % len(_CODENAMES)]
    return (
        f"Note for the project {name} archive: the access reference for project {name} is "
        f"{marker.value} and it must be quoted exactly in every reply about {name}. "
        f"Please confirm that you have recorded the reference for project {name}."
    )


def echo_code() -> Marker:
    """Return the positive control's random code (``echo-`` and 160 random bits)."""
    random_part = new_marker(0).random_part
    return Marker(id="echo", value=f"echo-{random_part}", random_part=random_part)


def echo_prompt(code: Marker) -> str:
    """Return the control request: its one correct answer carries ``code``."""
    return f"Repeat this code back exactly, and nothing else: {code.value}"


@dataclass(frozen=True)
class Match:
    """A marker (or a fragment of one) found in one field of a response."""

    marker: Marker
    full: bool
    text: str
    location: str
    offset: int


def _fragment_runs(random_part: str, haystack: str, k: int) -> list[tuple[int, int]]:
    """Return maximal ``(start, end)`` runs of ``random_part`` (length >= k) found in haystack."""
    runs: list[tuple[int, int]] = []
    start = 0
    n = len(random_part)
    while start + k <= n:
        if random_part[start : start + k] not in haystack:
            start += 1
            continue
        end = start + k
        while end < n and random_part[start : end + 1] in haystack:
            end += 1
        runs.append((start, end))
        start = end
    return runs


def scan_text(text: str, location: str, markers: list[Marker], fragment_chars: int) -> list[Match]:
    """Return every full marker and every fragment (>= ``fragment_chars``) of ``markers``.

    Matching is case-insensitive (models change case); a full marker is reported once, and its
    random part is then not reported again as a fragment of the same field.
    """
    hay = text.lower()
    out: list[Match] = []
    for marker in markers:
        full_at = hay.find(marker.value.lower())
        if full_at >= 0:
            out.append(Match(marker, True, marker.value, location, full_at))
            continue
        for start, end in _fragment_runs(marker.random_part, hay, fragment_chars):
            piece = marker.random_part[start:end]
            out.append(Match(marker, False, piece, location, hay.find(piece)))
    return out


def scan_fields(
    fields: dict[str, str], raw: str, markers: list[Marker], fragment_chars: int
) -> list[Match]:
    """Scan each named response field, then the raw body for anything the fields did not show.

    ``fields`` maps a location (``content``, ``reasoning_content``,
    ``tool_calls[0].function.arguments``...) to its text; streamed deltas arrive here already
    joined per field so a marker split across deltas is still whole. The raw body (every byte
    received, JSON or SSE) catches markers in fields this scanner does not know.
    """
    found: list[Match] = []
    for location, text in fields.items():
        if text:
            found.extend(scan_text(text, location, markers, fragment_chars))
    seen = {m.marker.id for m in found}
    rest = [m for m in markers if m.id not in seen]
    found.extend(scan_text(raw, "raw body", rest, fragment_chars))
    return found
