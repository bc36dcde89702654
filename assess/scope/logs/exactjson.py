"""JSON numbers read exactly where a double would round them: an epoch with 100 ns digits
(``1787788799.9999999`` as a JSON *number*) is 17 significant digits, and orjson, polars and
``json`` all round it to the nearest double (``1787788800.0``: the next day) before any
timestamp rule sees it.

:data:`LONG_FLOAT` finds, cheaply (a literal ``.`` first: about 1.6 ms per MB), the texts that
may hold such a number: a dot followed by five digits, or by one digit after twelve. A line or
document where it matches is parsed again by ``json`` with :func:`exact_float` (a number of more
than 15 significant digits becomes an exact :class:`~decimal.Decimal`, the others stay floats)
and :func:`bounded_int` (an integer of more than :data:`MAX_INT_DIGITS` digits stays its text,
refused by name by the field checks, where Python would raise past 4,300 digits). A match in a
string (a prompt quoting pi) costs that second parse, nothing else.

Duplicate keys: every reader takes the **first** of an object's duplicate keys, as the polars
fast path, DuckDB's and Spark's JSON functions do (orjson and ``json`` take the last). :func:`loads`
parses with orjson and counts the colons of the text and of orjson's value written back: every
key is followed by one, strings keep theirs, so a dropped duplicate (pair) leaves fewer; only
then (or when the text escapes a colon as ``\\u003a``) is the text parsed again with
:func:`first_key`.

Lone surrogates: a ``\\ud83d`` escape with no low surrogate after it (JavaScript's
``JSON.stringify`` writes one where a logger cut an emoji in half), a lone low one or a reversed
pair is read as U+FFFD on every path (RFC 8259 section 8.2 admits them in the grammar; orjson
refuses the text, Python's ``json`` would keep a character no UTF-8 text can hold).
:func:`without_lone_surrogates` rewrites such escapes to ``\\ufffd`` (same length) before a
text is parsed; a pair stays a pair, and ``\\\\ud83d`` (an escaped backslash) is no escape.
The scoping query does the same in SQL (:func:`assess.scope.sql_json.without_lone_surrogates`).
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any, overload

import orjson

#: The most digits an integer is read with; a longer one is kept as its text.
MAX_INT_DIGITS = 40
#: Texts that may hold a number a double rounds (see the module's text).
LONG_FLOAT = re.compile(rb"\.(?:[0-9]{5}|(?<=[0-9]{12}\.)[0-9])")
_DOUBLE_DIGITS = 15
#: The escapes read left to right: an escaped backslash (2 characters), a high and low
#: surrogate pair (12) or a lone surrogate (6, the only kind replaced).
SURROGATE_TOKENS = (
    r"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    r"|\\u[dD][89a-fA-F][0-9a-fA-F]{2}"
)
#: Finds, without tokenising, every text that may hold a lone surrogate escape: a high one no
#: low one follows, a low one no high one precedes, or two backslashes before ``ud`` (their
#: parity is then counted by :data:`SURROGATE_TOKENS`). Under 1 ms per MB of text without
#: surrogate escapes, 12 ms per MB of text dense with pairs (``json.dumps`` escapes every
#: emoji), where tokenising takes 40.
_MAYBE_LONE = (
    r"\\(?:u[dD](?:[89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|[c-fC-F](?<!\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F]))|\\u[dD])"
)
_TOKENS_BYTES = re.compile(SURROGATE_TOKENS.encode())
_TOKENS_TEXT = re.compile(SURROGATE_TOKENS)
_MAYBE_BYTES = re.compile(_MAYBE_LONE.encode())
_MAYBE_TEXT = re.compile(_MAYBE_LONE)
_LONE = 6


def _lone_bytes(match: re.Match[bytes]) -> bytes:
    token = match.group()
    return b"\\ufffd" if len(token) == _LONE else token


def _lone_text(match: re.Match[str]) -> str:
    token = match.group()
    return "\\ufffd" if len(token) == _LONE else token


@overload
def without_lone_surrogates(data: bytes) -> bytes: ...
@overload
def without_lone_surrogates(data: str) -> str: ...
def without_lone_surrogates(data: bytes | str) -> bytes | str:
    """Return ``data`` with each lone surrogate escape replaced by ``\\ufffd`` (the same
    length: line offsets hold); ``data`` itself when it holds none (see the module's text)."""
    if isinstance(data, str):
        if _MAYBE_TEXT.search(data) is None:
            return data
        fixed: bytes | str = _TOKENS_TEXT.sub(_lone_text, data)
    else:
        if _MAYBE_BYTES.search(data) is None:
            return data
        fixed = _TOKENS_BYTES.sub(_lone_bytes, data)
    return data if fixed == data else fixed


def bounded_int(text: str) -> int | str:
    """Return the integer of ``text``, or the text itself past :data:`MAX_INT_DIGITS` digits."""
    return int(text) if len(text) <= MAX_INT_DIGITS else text


def exact_float(text: str) -> float | Decimal | str:
    """Return a JSON number with a fraction or exponent: a float when a double holds it
    exactly as written (15 significant digits or fewer), else the exact Decimal (or the text,
    past :data:`MAX_INT_DIGITS` digits: refused by name later)."""
    mantissa = text.lower().split("e", 1)[0]
    digits = mantissa.lstrip("-").replace(".", "").lstrip("0")
    if len(digits) <= _DOUBLE_DIGITS:
        return float(text)
    if len(digits) > MAX_INT_DIGITS:
        return text
    return Decimal(text)


def loads_exact(data: bytes | str) -> Any:
    """Parse JSON with exact long numbers (see the module's text).

    Raises:
        ValueError: (``json.JSONDecodeError``) invalid JSON; RecursionError: nested too deep.
    """
    data = without_lone_surrogates(data)
    return json.loads(
        data, parse_float=exact_float, parse_int=bounded_int, object_pairs_hook=first_key
    )


def first_key(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Return an object's pairs as a dict keeping the first of duplicate keys."""
    value = dict(pairs)
    if len(value) == len(pairs):
        return value
    value = {}
    for key, item in pairs:
        value.setdefault(key, item)
    return value


def loads(data: bytes | str) -> Any:
    """Parse strict JSON with orjson; the first of duplicate keys is kept (see the module's text).

    Raises:
        orjson.JSONDecodeError: invalid JSON.
    """
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        fixed = without_lone_surrogates(data)
        if fixed is data:
            raise
        value, data = orjson.loads(fixed), fixed
    if not isinstance(value, (dict, list)):
        return value
    raw = data.encode() if isinstance(data, str) else data
    try:
        kept = orjson.dumps(value)
    except orjson.JSONEncodeError:  # nested past orjson's writing limit (254 levels)
        kept = b""
    if raw.count(b":") == kept.count(b":") and b"\\u003" not in raw:
        return value
    try:
        return loads_exact(raw)
    except (ValueError, RecursionError):
        return value
