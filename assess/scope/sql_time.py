"""The timestamp parts of the scoping query (see :mod:`assess.scope.sql`): ISO 8601 text and
epoch numbers to UTC nanoseconds by integer arithmetic, as
:func:`assess.scope.logs.timestamps.parse_timestamp` reads them (no session time zone, no DOUBLE
for a fraction)."""

from __future__ import annotations

# assess.scope.logs.timestamps._ISO with one group capturing at a time ({0}..{7} open a group)
_ISO = (
    r"^\s*{0}\d{{4}})-{1}\d{{2}})-{2}\d{{2}})(?:[Tt ]{3}\d{{2}}):{4}\d{{2}})"
    r"(?::{5}\d{{2}})(?:[.,]{6}\d{{1,9}})\d*)?)?)?\s*{7}Z|z|UTC|[+-]\d{{2}}(?::?\d{{2}})?)?\s*$"
)
ISO_PARTS = ("y", "mo", "d", "h", "mi", "s", "frac", "zone")
NUMBER = r"^\s*-?\d+(?:\.\d+)?\s*$"
_INTEGER = r"^\s*-?\d+\s*$"
_WHOLE = r"^\s*(-?\d+)"
_FRACTION = r"\.(\d+)"
_NEGATIVE = r"^\s*-"
_SCALE = {"epoch_s": 10**9, "epoch_ms": 10**6, "epoch_us": 10**3, "epoch_ns": 1}
_MAX = (1 << 63) - 1


def lit(value: str) -> str:
    """Return ``value`` as a SQL string literal (quotes escaped by sqlglot)."""
    from sqlglot import exp

    return exp.Literal.string(value).sql("duckdb")


def iso_part(index: int) -> str:
    opens = ["(?:"] * len(ISO_PARTS)
    opens[index] = "("
    pattern = _ISO.format(*opens)
    return f"REGEXP_EXTRACT(ts_raw, {lit(pattern)}, 1)"


def epoch_ns(fmt: str) -> str:
    """Nanoseconds of an epoch number's text ``ts_raw`` (unit by magnitude for ``auto``)."""
    number = "TRY_CAST(TRIM(ts_raw) AS DOUBLE)"
    if fmt in _SCALE:
        scale = str(_SCALE[fmt])
    else:
        scale = (
            f"CASE WHEN ABS({number}) < 1e11 THEN 1000000000 WHEN ABS({number}) < 1e14 "
            f"THEN 1000000 WHEN ABS({number}) < 1e17 THEN 1000 ELSE 1 END"
        )
    whole = (
        f"CASE WHEN ABS({number}) <= {_MAX} / ({scale}) "
        f"THEN TRY_CAST(TRIM(ts_raw) AS BIGINT) * ({scale}) END"
    )
    # a fraction is read from its digits (as timestamps.parse_epoch reads decimal text): the
    # units' digits of it, the rest dropped; never through a DOUBLE, which rounds 100 ns away
    digits = (
        f"CASE WHEN ({scale}) = 1000000000 THEN 9 WHEN ({scale}) = 1000000 THEN 6 "
        f"WHEN ({scale}) = 1000 THEN 3 ELSE 0 END"
    )
    fraction = (
        f"COALESCE(TRY_CAST(SUBSTR(RPAD(REGEXP_EXTRACT(ts_raw, {lit(_FRACTION)}, 1), 9, '0'), "
        f"1, {digits}) AS BIGINT), 0)"
    )
    sign = f"CASE WHEN REGEXP_MATCHES(ts_raw, {lit(_NEGATIVE)}) THEN -1 ELSE 1 END"
    units = f"TRY_CAST(REGEXP_EXTRACT(ts_raw, {lit(_WHOLE)}, 1) AS BIGINT)"
    return (
        f"CASE WHEN REGEXP_MATCHES(ts_raw, {lit(_INTEGER)}) THEN {whole} "
        f"WHEN ABS({number} * ({scale})) < 9e18 "
        f"THEN {units} * ({scale}) + ({sign}) * {fraction} END"
    )


def iso_ns() -> str:
    """Nanoseconds of the ISO 8601 parts (columns y, mo, d, h, mi, s, frac, zone), or NULL."""
    leap = "((y % 4 = 0 AND y % 100 <> 0) OR y % 400 = 0)"
    month_days = (
        f"CASE WHEN mo IN (4, 6, 9, 11) THEN 30 WHEN mo = 2 THEN "
        f"CASE WHEN {leap} THEN 29 ELSE 28 END ELSE 31 END"
    )
    digits = "REPLACE(SUBSTR(zone, 2), ':', '')"
    zone_h = f"CAST(SUBSTR({digits}, 1, 2) AS BIGINT)"
    zone_m = f"CAST(COALESCE(NULLIF(SUBSTR({digits}, 3, 2), ''), '0') AS BIGINT)"
    named = "zone IS NULL OR zone IN ('', 'Z', 'z', 'UTC')"
    offset = (
        f"CASE WHEN {named} THEN 0 WHEN SUBSTR(zone, 1, 1) = '-' "
        f"THEN -({zone_h} * 3600 + {zone_m} * 60) ELSE {zone_h} * 3600 + {zone_m} * 60 END"
    )
    valid = (
        f"mo BETWEEN 1 AND 12 AND d BETWEEN 1 AND {month_days} AND h <= 23 AND mi <= 59 "
        f"AND s <= 59 AND ({named} OR ({zone_h} <= 23 AND {zone_m} <= 59))"
    )
    # days from the civil date (H. Hinnant's algorithm; every operand here is >= 0)
    yy = "(y - CASE WHEN mo <= 2 THEN 1 ELSE 0 END)"
    era = f"FLOOR({yy} / 400)"
    yoe = f"({yy} - {era} * 400)"
    doy = "(FLOOR((153 * ((mo + 9) % 12) + 2) / 5) + d - 1)"
    doe = f"({yoe} * 365 + FLOOR({yoe} / 4) - FLOOR({yoe} / 100) + {doy})"
    days = f"({era} * 146097 + {doe} - 719468)"
    seconds = f"({days} * 86400 + h * 3600 + mi * 60 + s - ({offset}))"
    return f"CASE WHEN {valid} THEN CAST({seconds} AS BIGINT) * 1000000000 + frac END"
