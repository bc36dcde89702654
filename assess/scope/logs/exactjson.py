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
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

import orjson

#: The most digits an integer is read with; a longer one is kept as its text.
MAX_INT_DIGITS = 40
#: Texts that may hold a number a double rounds (see the module's text).
LONG_FLOAT = re.compile(rb"\.(?:[0-9]{5}|(?<=[0-9]{12}\.)[0-9])")
_DOUBLE_DIGITS = 15


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
    value = orjson.loads(data)
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
