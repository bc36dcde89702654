"""One record (a parsed dict) to canonical values, a non-request reason, or a skip reason.

This is the reference path: the columnar fast path sends every row it is unsure of here, so the
rules for what is a request, what is a valid non-request row and what is malformed live in one
place.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import orjson

from assess.scope.fields import ROW_FIELDS
from assess.scope.logs.paths import MISSING, get_path
from assess.scope.logs.presets import Preset
from assess.scope.logs.timestamps import check_timestamp


@dataclass(frozen=True)
class Row:
    """Canonical values of one request; ``prompt_tokens`` None means unknown (null/missing/0)."""

    timestamp: int
    model: str | None
    prompt_tokens: int | None
    request_id: str | None
    account_id: str | None
    session_id: str | None
    status: str | None


@dataclass(frozen=True)
class Outcome:
    """What a record turned out to be: a request ``row``, a ``non_request`` or a ``skip``."""

    row: Row | None = None
    non_request: str | None = None
    skip: str | None = None


def _first(record: Any, paths: list[str], no_value: Collection[str] = ()) -> Any:
    """Return the value of the first of ``paths`` holding one: not missing, null, "" or one of
    ``no_value`` (a product's placeholder, see ``Preset.no_value``)."""
    for path in paths:
        value = get_path(record, path)
        if value is not MISSING and value is not None and value != "":
            if no_value and isinstance(value, str) and value in no_value:
                continue
            return value
    return None


def _text(value: Any) -> str | None:
    """Return a scalar as text, a list/dict as JSON; None stays None."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float | Decimal):
        return str(value).lower() if isinstance(value, bool) else str(value)
    try:
        return orjson.dumps(value, default=str).decode()
    except TypeError:
        return str(value)


#: The largest token count kept: counts are stored as signed 64-bit integers (Arrow int64).
MAX_TOKENS = (1 << 63) - 1


def check_tokens(value: Any) -> tuple[int | None, str | None]:
    """Return (tokens or None if unknown, None) or (None, why the value is refused).

    The one checked path for token counts: the reference path calls it for every record, and the
    fast path sends every row whose count it cannot hold as int64 here. Refused: booleans,
    negative, fractional or non-numeric values, and counts of 2**63 or more (number or string).
    """
    if value is None or value == "":
        return None, None
    if isinstance(value, bool):
        return None, "not a number"
    if isinstance(value, float | Decimal):  # Decimal: a Parquet DECIMAL column, exactly
        if not value.is_finite() if isinstance(value, Decimal) else not math.isfinite(value):
            return None, "not a finite number"
        if (
            value != value.to_integral_value()
            if isinstance(value, Decimal)
            else not value.is_integer()
        ):
            return None, "not a whole number"
        value = int(value)
    if isinstance(value, str):
        text = value.strip().replace("_", "")
        if text.endswith(".0"):
            text = text[:-2]
        if not text.isdigit() or not text.isascii():
            return None, "not a whole number"
        if len(text) > 40:  # kept as text by the JSON reader (exactjson.MAX_INT_DIGITS)
            return None, f"number too long ({len(text):,} digits): out of range (2**63 or more)"
        if len(text) > 20:
            return None, "out of range (2**63 or more)"
        value = int(text)
    if not isinstance(value, int):
        return None, f"not a number ({type(value).__name__})"
    if value < 0:
        return None, "negative"
    if value > MAX_TOKENS:
        return None, "out of range (2**63 or more)"
    return (value or None), None


def parse_tokens(value: Any) -> tuple[int | None, bool]:
    """Return (tokens or None if unknown, ok); ok is False when the value is refused."""
    tokens, reason = check_tokens(value)
    return tokens, reason is None


def _short(value: Any) -> str:
    text = _text(value) or ""
    return text if len(text) <= 40 else text[:37] + "..."


def classify(
    record: Any, preset: Preset, side: Mapping[str, Mapping[str, Any]] | None = None
) -> Outcome:
    """Return what ``record`` is under ``preset``; ``side``: joined side-table fields by key."""
    if not isinstance(record, dict):
        return Outcome(skip=f"not a JSON object ({type(record).__name__})")
    reason = preset.non_request_reason(record)
    if reason is not None:
        return Outcome(non_request=reason)
    fields, empty = preset.fields, preset.no_value
    values = {
        name: _first(record, fields.get(name, []), empty.get(name, ())) for name in ROW_FIELDS
    }
    if side is not None and preset.join is not None:
        key = _text(_first(record, [preset.join.key]))
        extra = side.get(key or "", {})
        for name, value in extra.items():
            if values.get(name) is None:
                values[name] = value
    raw_ts, model = values["timestamp"], values["model"]
    if raw_ts is None and model is None:
        if "error" in record:
            return Outcome(skip="error envelope, not a request record")
        return Outcome(skip="no timestamp and no model: not a request record")
    if raw_ts is None:
        return Outcome(skip="missing timestamp")
    moment, refused = check_timestamp(raw_ts, preset.timestamp_format)
    if moment is None:
        if refused == "unparseable":
            return Outcome(skip=f"unparseable timestamp {_short(raw_ts)!r}")
        return Outcome(skip=f"timestamp {_short(raw_ts)!r} {refused}")
    tokens, why = check_tokens(values["prompt_tokens"])
    if why is not None:
        shown = _short(values["prompt_tokens"])
        return Outcome(skip=f"unparseable prompt_tokens {shown!r}: {why}")
    return Outcome(
        row=Row(
            timestamp=moment,
            model=_text(model),
            prompt_tokens=tokens,
            request_id=_text(values["request_id"]),
            account_id=_text(values["account_id"]),
            session_id=_text(values["session_id"]),
            status=_text(values["status"]),
        )
    )


def details(record: Any, preset: Preset, names: tuple[str, ...]) -> list[str | None]:
    """Return the canonical fields ``names`` of ``record`` as text (lists/objects as JSON)."""
    fields, empty = preset.fields, preset.no_value
    return [_text(_first(record, fields.get(name, []), empty.get(name, ()))) for name in names]


def side_fields(record: Any, preset: Preset) -> tuple[str | None, dict[str, Any]]:
    """Return (join key, canonical fields) of a side-table ``record`` of ``preset``'s join."""
    assert preset.join is not None
    key = _text(_first(record, [preset.join.side_path]))
    found = {name: _first(record, paths) for name, paths in preset.join.fields.items()}
    return key, {k: v for k, v in found.items() if v is not None}
