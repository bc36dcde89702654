"""The timestamp parts of the scoping query (see :mod:`assess.scope.sql`): ISO 8601 text and
epoch numbers to UTC nanoseconds by integer arithmetic, as
:func:`assess.scope.logs.timestamps.parse_timestamp` reads them (no session time zone, no DOUBLE
for a fraction)."""

from __future__ import annotations

#: Python's whitespace (``str.strip``, ``\s`` in a ``str`` pattern) as one character class that
#: RE2 (DuckDB, BigQuery) and Java (Spark, Trino) read alike: their ``\s`` is ASCII only. The
#: characters themselves, not escapes: RE2 has no ``\u``, and ``\x{..}`` braces would clash with
#: the ``str.format`` of :data:`_ISO`.
WS = "[\\s\x0b\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
# assess.scope.logs.timestamps._ISO with one group capturing at a time ({0}..{7} open a group)
_ISO = (
    r"^WS*{0}\d{{4}})-{1}\d{{2}})-{2}\d{{2}})(?:[Tt ]{3}\d{{2}}):{4}\d{{2}})"
    r"(?::{5}\d{{2}})(?:[.,]{6}\d{{1,9}})\d*)?)?)?WS*{7}Z|z|UTC|[+-]\d{{2}}(?::?\d{{2}})?)?WS*$"
)
ISO_PARTS = ("y", "mo", "d", "h", "mi", "s", "frac", "zone")
#: An epoch number's text; an exponent (Spark writes a JSON float as ``1.78826400025E9``) is
#: first written out as plain digits (:func:`plain_number`).
NUMBER = rf"^{WS}*-?\d{{1,40}}(?:\.\d+)?{WS}*$"
_INTEGER = rf"^{WS}*-?\d+{WS}*$"
_WHOLE = rf"^{WS}*(-?\d+)"
_EXPONENT = rf"^{WS}*(-?)(\d+)(?:\.(\d+))?[eE]([+-]?\d{{1,3}}){WS}*$"
# the same with one group capturing at a time ({0}..{3} open a group): BigQuery's REGEXP_EXTRACT
# has no group index and refuses a pattern of more than one capturing group (string_functions,
# REGEXP_EXTRACT: "If the regular expression contains a capturing group ... that match is
# returned"); sqlglot drops DuckDB's index when it writes BigQuery
_EXPONENT_PART = r"^WS*{0}-?){1}\d+)(?:\.{2}\d+))?[eE]{3}[+-]?\d{{1,3}})WS*$"
_FRACTION = r"\.(\d+)"
_NEGATIVE = rf"^{WS}*-"
_SCALE = {"epoch_s": 10**9, "epoch_ms": 10**6, "epoch_us": 10**3, "epoch_ns": 1}
_MAX = (1 << 63) - 1


def lit(value: str) -> str:
    """Return ``value`` as a SQL string literal (quotes escaped by sqlglot)."""
    from sqlglot import exp

    return exp.Literal.string(value).sql("duckdb")


def strip(column: str) -> str:
    """``column`` without leading and trailing whitespace, as Python's ``str.strip``."""
    return f"REGEXP_EXTRACT({column}, {lit(f'(?s)^{WS}*(.*?){WS}*$')}, 1)"


def _one_group(template: str, index: int) -> str:
    """``template`` with its ``index``-th group capturing and the others not (see :data:`_ISO`)."""
    opens = ["(?:"] * len(ISO_PARTS)  # more than any template's groups; format ignores extras
    opens[index] = "("
    return template.format(*opens).replace("WS", WS)


def iso_part(index: int) -> str:
    return f"REGEXP_EXTRACT(ts_raw, {lit(_one_group(_ISO, index))}, 1)"


def plain_number(column: str) -> str:
    """``column``'s text with an exponent written out (``1.78826400025E9`` -> ``1788264000.25``),
    as the decimal text Python's ``repr`` gives the same float; other text unchanged."""
    part = [f"REGEXP_EXTRACT({column}, {lit(_one_group(_EXPONENT_PART, i))}, 1)" for i in range(4)]
    # a group that takes no part in the match: '' in DuckDB, NULL in BigQuery
    part[2] = f"COALESCE({part[2]}, '')"
    sign, whole, digits = part[0], part[1], f"({part[1]} || {part[2]})"
    point = f"(LENGTH({whole}) + CAST({part[3]} AS BIGINT))"
    return (
        f"CASE WHEN NOT REGEXP_MATCHES({column}, {lit(_EXPONENT)}) THEN {column} "
        f"WHEN {point} >= LENGTH({digits}) "
        f"THEN {sign} || {digits} || REPEAT('0', {point} - LENGTH({digits})) "
        f"WHEN {point} <= 0 THEN {sign} || '0.' || REPEAT('0', -{point}) || {digits} "
        f"ELSE {sign} || SUBSTR({digits}, 1, {point}) || '.' || SUBSTR({digits}, {point} + 1) END"
    )


def epoch_ns(fmt: str) -> str:
    """Nanoseconds of an epoch number's text ``ts_num`` (unit by magnitude for ``auto``), or
    NULL: the number's instant lies outside int64 nanoseconds (:data:`NUMBER` matched)."""
    number = f"TRY_CAST({strip('ts_num')} AS DOUBLE)"
    if fmt in _SCALE:
        scale = str(_SCALE[fmt])
    else:
        scale = (
            f"CASE WHEN ABS({number}) < 1e11 THEN 1000000000 WHEN ABS({number}) < 1e14 "
            f"THEN 1000000 WHEN ABS({number}) < 1e17 THEN 1000 ELSE 1 END"
        )
    whole = (
        f"CASE WHEN ABS({number}) <= {_MAX} / ({scale}) "
        f"THEN TRY_CAST({strip('ts_num')} AS BIGINT) * ({scale}) END"
    )
    # a fraction is read from its digits (as timestamps.parse_epoch reads decimal text): the
    # units' digits of it, the rest dropped; never through a DOUBLE, which rounds 100 ns away
    digits = (
        f"CASE WHEN ({scale}) = 1000000000 THEN 9 WHEN ({scale}) = 1000000 THEN 6 "
        f"WHEN ({scale}) = 1000 THEN 3 ELSE 0 END"
    )
    fraction = (
        f"COALESCE(TRY_CAST(SUBSTR(RPAD(REGEXP_EXTRACT(ts_num, {lit(_FRACTION)}, 1), 9, '0'), "
        f"1, {digits}) AS BIGINT), 0)"
    )
    sign = f"CASE WHEN REGEXP_MATCHES(ts_num, {lit(_NEGATIVE)}) THEN -1 ELSE 1 END"
    units = f"TRY_CAST(REGEXP_EXTRACT(ts_num, {lit(_WHOLE)}, 1) AS BIGINT)"
    return (
        f"CASE WHEN REGEXP_MATCHES(ts_num, {lit(_INTEGER)}) THEN {whole} "
        f"WHEN ABS({number} * ({scale})) < 9.2e18 "
        f"THEN {units} * ({scale}) + ({sign}) * {fraction} END"
    )


def iso_seconds() -> str:
    """UTC seconds of the ISO 8601 parts (columns y, mo, d, h, mi, s, zone), or NULL when they
    name no instant (the year 0, the 30th of February, an hour 24, an offset of 24 hours)."""
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
        f"y >= 1 AND mo BETWEEN 1 AND 12 AND d BETWEEN 1 AND {month_days} AND h <= 23 AND mi <= 59 "
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
    return f"CASE WHEN {valid} THEN CAST({seconds} AS BIGINT) END"


def seconds_ns(seconds: str, frac: str) -> str:
    """``seconds`` * 10**9 + ``frac`` when that fits int64 nanoseconds, else NULL (no overflow:
    1677-09-21T00:12:43.145224192Z .. 2262-04-11T23:47:16.854775807Z, as timestamps.MIN_NS)."""
    low, high = -(_MAX // 10**9) - 1, _MAX // 10**9  # -9223372037, 9223372036
    fits = (
        f"({seconds} > {low} AND {seconds} < {high}) "
        f"OR ({seconds} = {low} AND {frac} >= {-(_MAX + 1) - low * 10**9}) "
        f"OR ({seconds} = {high} AND {frac} <= {_MAX - high * 10**9})"
    )
    # a negative second is taken from the next one up: low * 10**9 alone is past int64
    return (
        f"CASE WHEN NOT ({fits}) THEN NULL WHEN {seconds} < 0 "
        f"THEN ({seconds} + 1) * 1000000000 + ({frac} - 1000000000) "
        f"ELSE {seconds} * 1000000000 + {frac} END"
    )
