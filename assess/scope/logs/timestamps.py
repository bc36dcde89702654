"""Timestamps as UTC instants in integer nanoseconds since the epoch.

Readers disagree on timestamp types (strings, naive, tz-aware, epoch numbers), and comparing
strings is wrong once fractions of a second sit at a window's edge, so every timestamp becomes an
integer count of nanoseconds (UTC) before anything compares it. No zone means UTC.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Literal

import pyarrow as pa
import pyarrow.compute as pc

TimestampFormat = Literal["auto", "iso", "epoch_s", "epoch_ms", "epoch_us", "epoch_ns"]

_ISO = re.compile(
    r"^\s*(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9})\d*)?)?)?"
    r"\s*(Z|z|UTC|[+-]\d{2}(?::?\d{2})?)?\s*$"
)
_NUMBER = re.compile(r"^\s*-?\d+(?:\.\d+)?\s*$")
_SCALE = {"epoch_s": 10**9, "epoch_ms": 10**6, "epoch_us": 10**3, "epoch_ns": 1}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _epoch_unit(value: float) -> int:
    """Guess the unit of an epoch number from its magnitude; return ns per unit."""
    size = abs(value)
    if size < 1e11:  # seconds until the year 5138
        return 10**9
    if size < 1e14:
        return 10**6
    if size < 1e17:
        return 10**3
    return 1


def parse_epoch(value: float | int, fmt: TimestampFormat = "auto") -> int:
    """Return nanoseconds for an epoch number in ``fmt`` (``auto``: by magnitude)."""
    scale = _epoch_unit(value) if fmt in ("auto", "iso") else _SCALE[fmt]
    if isinstance(value, int):
        return value * scale
    return round(value * scale)


def parse_iso(text: str) -> int | None:
    """Return nanoseconds for an ISO 8601 date-time (no zone = UTC), or None if it is not one."""
    m = _ISO.match(text)
    if m is None:
        return None
    year, month, day, hour, minute, second, frac, zone = m.groups()
    try:
        moment = datetime(
            int(year),
            int(month),
            int(day),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            tzinfo=UTC,
        )
    except ValueError:
        return None
    offset = 0
    if zone and zone.upper() not in ("Z", "UTC"):
        digits = zone[1:].replace(":", "")
        hours, minutes = int(digits[:2]), int(digits[2:4] or 0)
        if hours > 23 or minutes > 59:
            return None
        offset = (hours * 3600 + minutes * 60) * (1 if zone[0] == "+" else -1)
    seconds = (moment - _EPOCH) // _ONE_SECOND - offset
    nanos = int((frac or "").ljust(9, "0")[:9] or 0)
    return seconds * 10**9 + nanos


_ONE_SECOND = datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC) - _EPOCH


def parse_timestamp(value: object, fmt: TimestampFormat = "auto") -> int | None:
    """Return UTC nanoseconds for ``value`` (ISO string, epoch number or numeric string).

    Returns None when the value cannot be read as a timestamp in ``fmt``.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return None if fmt == "iso" else parse_epoch(value, fmt)
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
        delta = moment - _EPOCH
        return (delta.days * 86400 + delta.seconds) * 10**9 + delta.microseconds * 1000
    if not isinstance(value, str):
        return None
    if fmt != "iso" and _NUMBER.match(value):
        number: float | int = float(value) if "." in value else int(value)
        return parse_epoch(number, fmt)
    if fmt not in ("auto", "iso"):
        return None
    return parse_iso(value)


def ns_to_datetime(nanos: int) -> datetime:
    """Return the UTC datetime (microsecond precision) of ``nanos``."""
    return datetime.fromtimestamp(nanos // 10**9, tz=UTC).replace(
        microsecond=(nanos % 10**9) // 1000
    )


def ns_to_date(nanos: int) -> date:
    """Return the UTC calendar date of ``nanos``."""
    return ns_to_datetime(nanos).date()


def datetime_to_ns(moment: datetime) -> int:
    """Return UTC nanoseconds of ``moment`` (naive means UTC)."""
    result = parse_timestamp(moment)
    assert result is not None
    return result


def parse_array(values: pa.Array, fmt: TimestampFormat = "auto") -> pa.Array | None:
    """Vectorised :func:`parse_timestamp` for a whole column; int64 ns, or None to fall back.

    Returns None when the column is not uniformly parseable here; the caller then parses value by
    value (which also finds the rows that cannot be parsed at all).
    """
    kind = values.type
    if pa.types.is_timestamp(kind):  # Parquet: an instant (or naive wall-clock, taken as UTC)
        return values.cast(pa.timestamp("ns", tz=kind.tz)).cast(pa.int64())
    if pa.types.is_integer(kind) and fmt != "iso":
        ints = values.cast(pa.int64())
        if fmt != "auto":
            return pc.multiply(ints, _SCALE[fmt])
        size = pc.abs(ints)
        scale = pc.if_else(
            pc.less(size, 10**11),
            10**9,
            pc.if_else(pc.less(size, 10**14), 10**6, pc.if_else(pc.less(size, 10**17), 1000, 1)),
        )
        return pc.multiply(ints, scale)
    if (pa.types.is_string(kind) or pa.types.is_large_string(kind)) and fmt in ("auto", "iso"):
        for target in (pa.timestamp("ns", tz="UTC"), pa.timestamp("ns")):
            try:
                return pc.cast(values, target).cast(pa.int64())
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                continue
    return None
