"""The affected-ids CSV: one layout and one writer for `scope --ids-csv` and the review's
``affected-requests.csv``.

Columns, in order: :data:`IDS_COLUMNS` (the ``--ids-csv`` contract, unchanged), then ``model`` and
``exposure`` (the review's word for the category: ``received`` or ``possibly_affected``), then
``prompt`` and ``response`` only when the texts were kept (``report --include-prompts``). Rows
rebuilt from a scope JSON document know only the category and the request id; the other cells
are empty. Written through :func:`assess.kernel.csvfile.csv_text` (CRLF rows, formula cells made
inert), as every CSV assess writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal

from assess.kernel.csvfile import dict_csv_text
from assess.scope.logs.timestamps import ns_to_datetime

Category = Literal["affected", "possibly_affected"]

#: The `assess scope --ids-csv` columns (a contract: names and order stay).
IDS_COLUMNS = (
    "category",
    "request_id",
    "account_id",
    "session_id",
    "timestamp",
    "status",
    "prompt_tokens",
)
#: Added after the contract columns.
EXTRA_COLUMNS = ("model", "exposure")
#: Only when the prompt and response texts were kept.
TEXT_COLUMNS = ("prompt", "response")
#: The review's name for each category (its text says "received" for affected).
EXPOSURE: dict[str, str] = {"affected": "received", "possibly_affected": "possibly_affected"}


def columns(with_text: bool = False) -> tuple[str, ...]:
    """Return the header of the affected-ids CSV."""
    return (*IDS_COLUMNS, *EXTRA_COLUMNS, *(TEXT_COLUMNS if with_text else ()))


def ids_row(category: Category | str, row: Mapping[str, Any]) -> dict[str, Any]:
    """Return the CSV row of one kept request (a row of ``RowStore.rows``: ``timestamp`` in UTC
    nanoseconds; ``prompt``/``response`` when the texts were kept); missing values are None."""
    stamp = row.get("timestamp")
    when = (
        ns_to_datetime(stamp).isoformat().replace("+00:00", "Z") if isinstance(stamp, int) else None
    )
    out: dict[str, Any] = {name: row.get(name) for name in columns("prompt" in row)}
    out.update(category=category, timestamp=when, exposure=EXPOSURE.get(category, category))
    return out


def ids_rows(kept: Iterable[tuple[str, Mapping[str, Any]]]) -> Iterator[dict[str, Any]]:
    """Return the CSV rows of ``(category, row)`` pairs (``ScopeRun.affected_rows()``)."""
    return (ids_row(category, row) for category, row in kept)


def ids_from_document(affected: Iterable[Any], possibly: Iterable[Any]) -> list[dict[str, Any]]:
    """Return the CSV rows a scope JSON document gives: its affected and possibly affected
    request ids (the document holds no other per-request values)."""
    rows = [ids_row("affected", {"request_id": str(rid)}) for rid in affected]
    rows += [ids_row("possibly_affected", {"request_id": str(rid)}) for rid in possibly]
    return rows


def ids_csv_text(rows: Sequence[Mapping[str, Any]]) -> str:
    """Return the affected-ids CSV of ``rows`` (see :func:`ids_row`); the text columns are
    there when the rows hold texts."""
    cells = [{k: "" if v is None else v for k, v in row.items()} for row in rows]
    return dict_csv_text(columns(bool(rows) and "prompt" in rows[0]), cells)
