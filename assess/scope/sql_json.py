"""Strict JSON in the scoping query (see :mod:`assess.scope.sql`): the local reader's reading.

The engines' JSON functions are laxer than the local reader (orjson, RFC 8259): DuckDB takes
``NaN``, ``Infinity`` and trailing commas, Spark's ``get_json_object`` raw control characters in
strings and junk after the object. A line is a strict JSON object when, with its strings and then
its scalars replaced by a token each, only JSON's structural characters are left, and collapsing
the innermost arrays and objects :data:`PASSES` times leaves one value. Regular expressions only,
written for RE2 (DuckDB, BigQuery) and Java (Spark, Trino) alike: no possessive quantifier, no
backreference, and the unrolled loop in :data:`_STRING` (Java recurses on ``(a|b)*``, not on a
character class's ``*``). A line nested deeper than :data:`PASSES` keeps the engine's own check.
Duplicate keys are not detected (the engines and the local NDJSON fast path take the first).

A lone surrogate escape is read as U+FFFD, as the local reader reads it
(:mod:`assess.scope.logs.exactjson`): DuckDB's JSON refused the line ("not a JSON object": a false
all-clear), Spark's kept it. :func:`without_lone_surrogates` rewrites the text before anything
reads it.
"""

from __future__ import annotations

from assess.scope.sql_time import lit

#: Levels of nesting checked in full; deeper lines are left to the engine's own JSON check.
PASSES = 12
_WS = "[ \\t\\n\\r]*"
_CHAR = '[^"\\\\\\x00-\\x1f]'
_ESCAPE = '\\\\(?:["\\\\/bfnrt]|u[0-9a-fA-F]{4})'
_STRING = f'"{_CHAR}*(?:{_ESCAPE}{_CHAR}*)*"'
_SCALAR = "-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null"
_MEMBER = f"s{_WS}:{_WS}[s0]{_WS}"
_ITEM = f"[s0]{_WS}"
_INNERMOST = (
    f"\\{{{_WS}(?:{_MEMBER}(?:,{_WS}{_MEMBER})*)?\\}}|\\[{_WS}(?:{_ITEM}(?:,{_WS}{_ITEM})*)?\\]"
)


#: A mark no text it is used on holds (a raw control character: not JSON).
_MARK = "CHR(1)"
_HAS_MARK = r"\x01"
_SURROGATE_HINT = r"\\u[dD][89a-fA-F]"
_PAIR = r"\\(u[dD][89abAB][0-9a-fA-F]{2})\\(u[dD][c-fC-F][0-9a-fA-F]{2})"
_SURROGATE = r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}"
#: The groups of :data:`_PAIR` in DuckDB's replacement text (``$1`` in Spark, Trino, Athena:
#: ``assess.scope.sql`` rewrites them).
GROUP_REFERENCES = (r"\1", r"\2")


def without_lone_surrogates(column: str) -> str:
    """``column`` with each lone surrogate escape written ``\\ufffd``, a pair and an escaped
    backslash (``\\\\ud83d``) kept: the escaped backslashes and the pairs' backslashes become
    marks, the escapes left that name a surrogate are lone, the marks become backslashes again.
    Only a text holding a surrogate escape and no mark is rewritten."""
    mark = _MARK
    first, second = (lit(g) for g in GROUP_REFERENCES)
    marked = f"REPLACE({column}, {lit(chr(92) * 2)}, {mark} || {mark})"
    pairs = f"{mark} || {first} || {mark} || {second}"
    paired = f"REGEXP_REPLACE({marked}, {lit(_PAIR)}, {pairs}, 'g')"
    lone = f"REGEXP_REPLACE({paired}, {lit(_SURROGATE)}, {mark} || 'ufffd', 'g')"
    fixed = f"REPLACE({lone}, {mark}, {lit(chr(92))})"
    hint = f"REGEXP_MATCHES({column}, {lit(_SURROGATE_HINT)})"
    unmarked = f"NOT REGEXP_MATCHES({column}, {lit(_HAS_MARK)})"
    return f"CASE WHEN {hint} AND {unmarked} THEN {fixed} ELSE {column} END"


_SHAPED = "^[ \\t\\n\\r{}\\[\\],:s0]*$"
_ONE = f"^{_WS}0{_WS}$"
_OPEN = "[\\[{]"


def _replace(text: str, pattern: str, token: str) -> str:
    return f"REGEXP_REPLACE({text}, {lit(pattern)}, {lit(token)}, 'g')"


def json_tokens(column: str) -> str:
    """``column`` with each string replaced by ``s`` and each other scalar by ``0``."""
    return _replace(_replace(column, _STRING, "s"), _SCALAR, "0")


def collapsed(tokens: str, passes: int = 1) -> str:
    """``tokens`` with the innermost arrays and objects replaced by ``0``, ``passes`` times."""
    for _ in range(passes):
        tokens = _replace(tokens, _INNERMOST, "0")
    return tokens


def strict_json(tokens: str, before: str, last: str) -> str:
    """SQL true when the line is one strict JSON value (RFC 8259), as orjson reads it, from its
    ``tokens`` (:func:`json_tokens`) collapsed :data:`PASSES` - 1 times (``before``) and once
    more (``last``): a line that still changed in the last pass is deeper than checked."""
    shaped = f"REGEXP_MATCHES({tokens}, {lit(_SHAPED)})"
    one = f"REGEXP_MATCHES({last}, {lit(_ONE)})"
    deeper = f"({last} <> {before} AND REGEXP_MATCHES({last}, {lit(_OPEN)}))"
    return f"({shaped} AND ({one} OR {deeper}))"
