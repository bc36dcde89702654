"""A preset's non-request rules in the scoping query (see :mod:`assess.scope.sql`), as
:meth:`assess.scope.logs.presets.Condition.holds` reads them.

The local rule compares the JSON value: a ``null`` is a value (``schemaType: null`` is not in
``[ModelInvocationLog]``, so the record is not a request), a missing key is none (the rule does
not hold), and a number equals a number whatever its spelling (new-api's ``type: 2.0`` is in
``[2, 5]``) but never a string (``"2.0"`` is not). Text extraction loses both: ``null`` and a
missing key are both SQL NULL, ``2.0`` and ``"2.0"`` the same text. So a rule reads the JSON
type too: ``ASSESS_JSON_NULL(line, path, parent, key)`` (rewritten per dialect by
:func:`json_null_form`) and, for a rule that compares numbers, DuckDB's ``json_type``; the other
dialects refuse such a preset (:func:`typed_rule`), as their text functions do not tell a number
from a string. Both read the value where :class:`assess.scope.sql_paths.Walk` finds it: in the
line, or in the node column of its parent when a string holding JSON is on the way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assess.scope.logs.presets import Condition, Preset
from assess.scope.sql_paths import Walk
from assess.scope.sql_time import lit

_NUMBERS = "('UBIGINT', 'BIGINT', 'HUGEINT', 'DOUBLE')"


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _items(when: Condition) -> list[Any]:
    if when.in_ is not None:
        return list(when.in_)
    if when.not_in is not None:
        return list(when.not_in)
    return [when.equals]


def typed_rule(preset: Preset) -> str | None:
    """The first rule path compared with a number, or None (only DuckDB can say 2.0 is 2)."""
    for rule in preset.non_request:
        when = rule.when
        if when.missing is None and any(_is_number(v) for v in _items(when)):
            return when.path
    return None


def condition(when: Condition, walk: Walk) -> str:
    """SQL true when ``when`` holds, its path read as ``walk`` reads it (through strings
    holding JSON, as get_path): its text (NULL: missing or null), JSON null, JSON type."""
    value = walk.extract(when.path)
    if when.missing is not None:
        absent = f"({value} IS NULL OR {value} = '')"
        return absent if when.missing else f"NOT {absent}"
    null = walk.is_null(when.path)
    items = _items(when)
    numbers = [float(v) for v in items if _is_number(v)]
    texts = [_scalar(v) for v in items if v is not None and not _is_number(v)]
    if numbers:  # DuckDB only (typed_rule): text compares strings, numbers compare as numbers
        kind = walk.json_type(when.path)
        as_text = (
            f"({kind} NOT IN {_NUMBERS} AND {value} IN ({', '.join(texts)}))" if texts else "FALSE"
        )
        listed = ", ".join(repr(n) for n in numbers)
        matched = (
            f"({as_text} OR ({kind} IN {_NUMBERS} AND TRY_CAST({value} AS DOUBLE) IN ({listed})))"
        )
    else:
        matched = f"{value} IN ({', '.join(texts)})" if texts else "FALSE"
    has_null = None in items
    if when.not_in is not None:
        null_holds = "FALSE" if has_null else null
        return f"(({value} IS NOT NULL AND NOT {matched}) OR {null_holds})"
    return f"(({value} IS NOT NULL AND {matched}) OR {null if has_null else 'FALSE'})"


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return lit(str(value).lower())
    return lit(str(value))


def json_null_form(dialect: str, args: list[Any]) -> str:
    """``ASSESS_JSON_NULL(line, path, parent, key)`` in ``dialect``: the path holds JSON null."""
    line, nested, parent, key = (a.sql(dialect="duckdb") for a in args)
    if dialect == "spark":  # get_json_object: NULL for null and missing alike; the keys tell
        holder = line if parent == "'$'" else f"GET_JSON_OBJECT({line}, {parent})"
        return (
            f"(GET_JSON_OBJECT({line}, {nested}) IS NULL "
            f"AND ARRAY_CONTAINS(JSON_OBJECT_KEYS({holder}), {key}))"
        )
    if dialect in ("trino", "athena"):
        return f"(JSON_FORMAT(JSON_EXTRACT({line}, {nested})) = 'null')"
    if dialect == "bigquery":
        return f"(JSON_QUERY({line}, {nested}) = 'null')"
    return f"(JSON_TYPE({line}, {nested}) = 'NULL')"


def json_child_form(dialect: str, args: list[Any]) -> str:
    """``ASSESS_JSON_CHILD(node, path)`` in ``dialect``: the child's text, an object's or
    array's as JSON, a string's contents (JSON null: NULL, or ``null`` that is not opened)."""
    node, path = (a.sql(dialect="duckdb") for a in args)
    if dialect == "spark":
        return f"GET_JSON_OBJECT({node}, {path})"
    if dialect in ("trino", "athena"):
        scalar, text = f"JSON_EXTRACT_SCALAR({node}, {path})", f"JSON_EXTRACT({node}, {path})"
        return f"COALESCE({scalar}, JSON_FORMAT({text}))"
    if dialect == "bigquery":
        # both STRING already; the CAST keeps it text where the query is carried back to DuckDB
        return f"COALESCE(JSON_VALUE({node}, {path}), CAST(JSON_QUERY({node}, {path}) AS STRING))"
    return f"json_extract_string({node}, {path})"


def json_string_form(dialect: str, args: list[Any]) -> str:
    """``ASSESS_JSON_STRING(node, path)`` in ``dialect``: the path holds a JSON string (or
    another scalar), whose text the query checks as strict JSON before opening it (Spark cannot
    tell a string holding an object from an object: always)."""
    node, path = (a.sql(dialect="duckdb") for a in args)
    scalar = f"JSON_EXTRACT_SCALAR({node}, {path}) IS NOT NULL"
    forms = {"spark": "TRUE", "trino": scalar, "athena": scalar}
    forms["bigquery"] = f"JSON_VALUE({node}, {path}) IS NOT NULL"
    duckdb = f"json_type({node}, {path}) = 'VARCHAR'"
    return f"({forms.get(dialect, duckdb)})"


def json_container_form(dialect: str, args: list[Any]) -> str:
    """``ASSESS_JSON_CONTAINER(line, path)`` in ``dialect``: the path holds an object or array
    (Spark: or a string starting like one, which it cannot tell apart: refused too)."""
    line, path = (a.sql(dialect="duckdb") for a in args)
    text = {
        "spark": f"GET_JSON_OBJECT({line}, {path})",
        "trino": f"JSON_FORMAT(JSON_EXTRACT({line}, {path}))",
        "athena": f"JSON_FORMAT(JSON_EXTRACT({line}, {path}))",
        "bigquery": f"JSON_QUERY({line}, {path})",
    }
    if dialect in text:
        return f"COALESCE(SUBSTR(LTRIM({text[dialect]}), 1, 1) IN ('{{', '['), FALSE)"
    return f"COALESCE(JSON_TYPE({line}, {path}) IN ('OBJECT', 'ARRAY'), FALSE)"


#: The line docs/scope-remote.md's DuckDB recipe gives the query for a line that is not UTF-8
#: (DuckDB's text cannot hold it): NUL then \x01, told from a line holding a NUL (one NUL).
NOT_UTF8_LINE = "CHR(0) || CHR(1)"


def undecoded_form(dialect: str, args: list[Any]) -> str:
    """``ASSESS_UNDECODED(line)``: the line's bytes are not UTF-8 and hold no NUL, which the
    local reader skips as "binary data, not UTF-8 JSON" (a NUL comes first: "not JSON"). Spark's
    text reader keeps the bytes as they are: decoding them replaces a bad byte, so the round
    trip differs; DuckDB's recipe gives :data:`NOT_UTF8_LINE` instead; the others are not run
    here: never."""
    line = args[0].sql(dialect="duckdb")
    if dialect == "spark":
        return f"(DECODE(ENCODE({line}, 'UTF-8'), 'UTF-8') <> {line} AND INSTR({line}, CHR(0)) = 0)"
    if dialect == "duckdb":
        return f"({line} = {NOT_UTF8_LINE})"
    return "FALSE"


def holds_nul_form(dialect: str, args: list[Any]) -> str:
    """``ASSESS_HOLDS_NUL(line)``: the line holds a NUL, which the local reader skips as
    "binary data, not JSON". DuckDB (the recipe gives one NUL for such a line) and Spark (its
    text reader keeps it) only; the others are not run here (BigQuery's CHR(0) is ''): never."""
    line = args[0].sql(dialect="duckdb")
    if dialect in ("duckdb", "spark"):
        return (
            f"(INSTR({line}, CHR(0)) > 0)"
            if dialect == "spark"
            else f"(STRPOS({line}, CHR(0)) > 0)"
        )
    return "FALSE"


JSON_FORMS: dict[str, Callable[[str, list[Any]], str]] = {
    "ASSESS_UNDECODED": undecoded_form,
    "ASSESS_HOLDS_NUL": holds_nul_form,
    "ASSESS_JSON_NULL": json_null_form,
    "ASSESS_JSON_CONTAINER": json_container_form,
    "ASSESS_JSON_CHILD": json_child_form,
    "ASSESS_JSON_STRING": json_string_form,
}
#: The skip reason of a line the query does not open: --from-engine-results refuses a result
#: that counts one (the local reader opens it into its records).
ENVELOPE = "API envelope or log event wrapper: the query reads one record per line"


def envelope() -> str:
    """SQL true when the line may be an API envelope or a CloudWatch event the local reader
    opens (assess.scope.logs.envelopes: ENVELOPE_KEYS holding an object or a list, a JSON
    ``message``); over-eager is safe: such a line without timestamp and model is refused."""
    from assess.scope.logs.envelopes import ENVELOPE_KEYS

    keys = [f"ASSESS_JSON_CONTAINER(line, {lit('$.' + k)})" for k in ENVELOPE_KEYS]
    message = "COALESCE(SUBSTR(LTRIM(json_extract_string(line, '$.message')), 1, 1) = '{', FALSE)"
    return "(" + " OR ".join([*keys, message]) + ")"
