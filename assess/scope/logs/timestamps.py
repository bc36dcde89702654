"""Timestamps as UTC instants in integer nanoseconds since the epoch.

Readers disagree on timestamp types (strings, naive, tz-aware, epoch numbers), and comparing
strings is wrong once fractions of a second sit at a window's edge, so every timestamp becomes an
integer count of nanoseconds (UTC) before anything compares it. No zone means UTC.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_DOWN, Decimal, InvalidOperation
from typing import Literal

import pyarrow as pa
import pyarrow.compute as pc

TimestampFormat = Literal["auto", "iso", "epoch_s", "epoch_ms", "epoch_us", "epoch_ns"]

_ISO = re.compile(
    r"^\s*(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9})\d*)?)?)?"
    r"\s*(Z|z|UTC|[+-]\d{2}(?::?\d{2})?)?\s*$"
)
_NUMBER = re.compile(r"^\s*-?\d{1,40}(?:\.\d+)?\s*$")
#: An epoch number's text with an exponent (``"1.78826400025E9"``, as Spark renders a JSON
#: float): written out as plain digits first, as the scoping query does (sql_time._EXPONENT).
_EXPONENT = re.compile(r"^\s*(-?)(\d+)(?:\.(\d+))?[eE]([+-]?\d{1,3})\s*$")
#: Instants are int64 nanoseconds (Arrow's ``timestamp[ns]``), so a readable timestamp lies in
#: 1677-09-21T00:12:43.145224192Z .. 2262-04-11T23:47:16.854775807Z; one outside is a skipped
#: record with that reason (see :func:`check_timestamp`), never an overflow.
MIN_NS = -(1 << 63)
MAX_NS = (1 << 63) - 1
OUT_OF_RANGE = "out of range (instants from 1677-09-21 to 2262-04-11 UTC are read)"
_SCALE = {"epoch_s": 10**9, "epoch_ms": 10**6, "epoch_us": 10**3, "epoch_ns": 1}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _epoch_unit(value: float | int | Decimal) -> int:
    """Guess the unit of an epoch number from its magnitude; return ns per unit."""
    size = Decimal(abs(value)) if isinstance(value, Decimal) else abs(value)
    if size < 10**11:  # seconds until the year 5138
        return 10**9
    if size < 10**14:
        return 10**6
    if size < 10**17:
        return 10**3
    return 1


def parse_epoch(value: float | int | Decimal, fmt: TimestampFormat = "auto") -> int:
    """Return nanoseconds for an epoch number in ``fmt`` (``auto``: by magnitude), exactly.

    A float is taken as the decimal text it prints as (``repr``), not its binary value, and
    digits past the nanosecond are dropped (as in ISO text), never rounded up across an edge.
    The result may lie outside int64: :func:`check_timestamp` says so.
    """
    scale = _epoch_unit(value) if fmt in ("auto", "iso") else _SCALE[fmt]
    if isinstance(value, int):
        return value * scale
    exact = value if isinstance(value, Decimal) else Decimal(repr(value))
    return int((exact * scale).to_integral_value(ROUND_DOWN))


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


def check_timestamp(value: object, fmt: TimestampFormat = "auto") -> tuple[int | None, str]:
    """Return (UTC nanoseconds, "") for ``value``, or (None, why it is refused).

    The one checked path for record timestamps: ISO strings, epoch numbers and numeric strings
    (read as decimal text, exactly), datetimes. Refused: what is not a timestamp in ``fmt``
    ("unparseable") and instants outside int64 nanoseconds (:data:`OUT_OF_RANGE`).
    """
    nanos = _unbounded(value, fmt)
    if nanos is None:
        return None, "unparseable"
    if not MIN_NS <= nanos <= MAX_NS:
        return None, OUT_OF_RANGE
    return nanos, ""


def parse_timestamp(value: object, fmt: TimestampFormat = "auto") -> int | None:
    """Return UTC nanoseconds for ``value`` (ISO string, epoch number or numeric string).

    Returns None when the value cannot be read as a timestamp in ``fmt`` or lies outside int64
    nanoseconds (:func:`check_timestamp` says which).
    """
    return check_timestamp(value, fmt)[0]


def parse_instant(value: str) -> int | None:
    """Return UTC nanoseconds of an option's text (ISO 8601 or epoch), not bounded to int64:
    a window may reach past any readable instant (``--until 2300-01-01``)."""
    return _unbounded(value, "auto")


def _unbounded(value: object, fmt: TimestampFormat) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float | Decimal):  # Decimal: a JSON number read exactly
        finite = math.isfinite(value) if isinstance(value, float) else True
        if fmt == "iso" or not finite or (isinstance(value, Decimal) and not value.is_finite()):
            return None
        return parse_epoch(value, fmt)
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
        delta = moment - _EPOCH
        return (delta.days * 86400 + delta.seconds) * 10**9 + delta.microseconds * 1000
    if not isinstance(value, str):
        return None
    if fmt != "iso":
        value = _plain_number(value)
    if fmt != "iso" and _NUMBER.match(value):
        try:
            number: Decimal | int = Decimal(value.strip()) if "." in value else int(value)
        except (InvalidOperation, ValueError):
            return None
        return parse_epoch(number, fmt)
    if fmt not in ("auto", "iso"):
        return None
    return parse_iso(value)


def _plain_number(text: str) -> str:
    """``text`` with an exponent written out (``1.78826400025E9`` -> ``1788264000.25``), as
    sql_time.plain_number does in the query; other text unchanged."""
    found = _EXPONENT.match(text)
    if found is None:
        return text
    sign, whole, fraction, exponent = found.groups()
    digits = whole + (fraction or "")
    point = len(whole) + int(exponent)
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    if point <= 0:
        return sign + "0." + "0" * -point + digits
    return sign + digits[:point] + "." + digits[point:]


def ns_to_datetime(nanos: int) -> datetime:
    """Return the UTC datetime (microsecond precision, rounded down) of ``nanos``.

    Raises:
        OverflowError: outside the years 1..9999.
    """
    return _EPOCH + timedelta(microseconds=nanos // 1000)


def ns_to_date(nanos: int) -> date:
    """Return the UTC calendar date of ``nanos``."""
    return ns_to_datetime(nanos).date()


def datetime_to_ns(moment: datetime) -> int:
    """Return UTC nanoseconds of ``moment`` (naive means UTC), not bounded to int64."""
    result = _unbounded(moment, "auto")
    assert result is not None
    return result


def parse_array(values: pa.Array, fmt: TimestampFormat = "auto") -> pa.Array | None:
    """Vectorised :func:`parse_timestamp` for a whole column; int64 ns, or None to fall back.

    Returns None when the column is not uniformly parseable here; the caller then parses value by
    value (which also finds the rows that cannot be parsed at all).
    """
    kind = values.type
    try:
        return _array(values, kind, fmt)
    except (pa.ArrowInvalid, OverflowError):  # out of int64 ns somewhere: value by value
        return None


def _array(values: pa.Array, kind: pa.DataType, fmt: TimestampFormat) -> pa.Array | None:
    if pa.types.is_timestamp(kind):  # Parquet: an instant (or naive wall-clock, taken as UTC)
        return values.cast(pa.timestamp("ns", tz=kind.tz)).cast(pa.int64())
    if pa.types.is_integer(kind) and fmt != "iso":
        ints = values.cast(pa.int64())
        if fmt != "auto":
            return pc.multiply_checked(ints, _SCALE[fmt])
        size = pc.abs(ints)
        scale = pc.if_else(
            pc.less(size, 10**11),
            10**9,
            pc.if_else(pc.less(size, 10**14), 10**6, pc.if_else(pc.less(size, 10**17), 1000, 1)),
        )
        return pc.multiply_checked(ints, scale)
    if (pa.types.is_string(kind) or pa.types.is_large_string(kind)) and fmt in ("auto", "iso"):
        for target in (pa.timestamp("ns", tz="UTC"), pa.timestamp("ns")):
            try:
                return pc.cast(values, target).cast(pa.int64())
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                continue
    return None
