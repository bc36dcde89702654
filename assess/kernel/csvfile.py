"""The one CSV writer of assess, and the inverse of its formula guard for CSV readers.

Every CSV assess writes (``questionnaire export --format csv``, ``scope --ids-csv``, the review's
``affected-requests.csv``) goes through :func:`csv_text`, so all of them:

- end rows with CRLF (RFC 4180). Python's ``csv`` quotes a field holding a character of the line
  terminator; with ``"\\n"`` alone a note holding a bare CR was written unquoted and read back as
  two rows. With ``"\\r\\n"`` both CR and LF force quotes.
- make formula cells inert: a text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a CR
  would run as a formula in Excel or LibreOffice (OWASP "CSV injection"), so it gets a leading
  apostrophe. A cell that already starts with an apostrophe gets a second one, so that
  :func:`restore` (used by the questionnaire import) can remove exactly one and give back the
  text that was exported, whatever it was.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: First characters that make a spreadsheet treat a cell as a formula.
FORMULA_START = frozenset("=+-@\t\r")
_GUARD = "'"


def inert(value: str) -> str:
    """Return ``value`` so a spreadsheet shows it as text, never runs it as a formula."""
    first = value[:1]
    return _GUARD + value if first in FORMULA_START or first == _GUARD else value


def restore(value: str) -> str:
    """Return the text :func:`inert` was given: one guarding apostrophe removed, if present."""
    if value[:1] == _GUARD and (value[1:2] in FORMULA_START or value[1:2] == _GUARD):
        return value[1:]
    return value


def _cell(value: Any) -> Any:
    return inert(value) if isinstance(value, str) else value


def csv_text(rows: Iterable[Sequence[Any]]) -> str:
    """Return ``rows`` (the header first) as CSV text: CRLF rows, formula cells inert."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerows([_cell(value) for value in row] for row in rows)
    return out.getvalue()


def dict_csv_text(fields: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> str:
    """Return a header of ``fields`` and one row per mapping (other keys ignored); see
    :func:`csv_text`."""
    return csv_text([list(fields), *([row.get(f, "") for f in fields] for row in rows)])
