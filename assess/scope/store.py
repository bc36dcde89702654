"""What the accumulator keeps of the rows in scope: columnar stores, no Python row objects.

:class:`RowStore` keeps affected or possibly affected rows (ids, not texts: the prompt length and
the kinds of candidate foreign data found in the response); :class:`DistinctStrings` counts the
distinct accounts of every in-window request.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from assess.scope.fields import ID_FIELDS, ROW_FIELDS
from assess.scope.models import BATCH_SCHEMA, TEXT, ForeignData
from assess.scope.text import MAYBE_FOREIGN, NOT_DETECTED, foreign_kinds

_STORE_TYPES = {
    "prompt_chars": pa.int64(),
    "foreign": TEXT,
    "reason": TEXT,
    "output_tokens": pa.int64(),
}


class DistinctStrings:
    """Distinct non-empty strings, kept as Arrow arrays (no Python string per row)."""

    def __init__(self) -> None:
        self._parts: list[Any] = []
        self._size = 0

    def add(self, values: Any) -> None:
        """Remember the distinct values of ``values`` (nulls and "" are not values)."""
        distinct = pc.unique(values).drop_null()
        self._parts.append(distinct)
        self._size += len(distinct)
        if len(self._parts) > 64:
            self._compact()

    def extend(self, other: DistinctStrings) -> None:
        """Remember the values ``other`` holds."""
        for part in other._parts:
            self._parts.append(part)
            self._size += len(part)
        if len(self._parts) > 64:
            self._compact()

    def _compact(self) -> None:
        if len(self._parts) > 1:
            chunks = [c for part in self._parts for c in getattr(part, "chunks", [part])]
            self._parts = [pc.unique(pa.chunked_array(chunks)).drop_null()]
            self._size = len(self._parts[0])

    def __len__(self) -> int:
        self._compact()
        if not self._parts:
            return 0
        return self._size - (1 if pc.any(pc.equal(self._parts[0], "")).as_py() else 0)


class RowStore:
    """Affected or possibly affected rows, kept columnar (texts replaced by what is needed)."""

    COLUMNS = ROW_FIELDS

    def __init__(self, keep_text: bool = False) -> None:
        self._tables: list[pa.Table] = []
        self._count = 0
        self._keep_text = keep_text

    def __len__(self) -> int:
        return self._count

    def __bool__(self) -> bool:
        return self._count > 0

    def add(self, rows: pa.Table, reason: Any = None) -> None:
        """Keep ``rows``: ids with "" as null, prompt length, output tokens, foreign-data kinds
        (no text), and each row's ``reason`` when given (why it is possibly affected)."""
        from assess.scope.exposure import count_column

        columns = {name: rows.column(name) for name in self.COLUMNS}
        for name in ID_FIELDS:
            column = columns[name]
            columns[name] = pc.if_else(pc.equal(column, ""), pa.scalar(None, column.type), column)
        columns["prompt_chars"] = pc.utf8_length(rows.column("prompt")).cast(pa.int64())
        # the logged output tokens, as the source set counts them (the notification pack)
        columns["output_tokens"] = count_column(rows.column("output_tokens"))
        columns["foreign"] = _foreign_column(rows.column("response"), rows.column("prompt"))
        if self._keep_text:
            columns["prompt"], columns["response"] = rows.column("prompt"), rows.column("response")
        if reason is not None:
            columns["reason"] = reason
        self._tables.append(pa.table(columns))
        self._count += rows.num_rows

    def extend(self, other: RowStore) -> None:
        """Keep ``other``'s rows after these (same ``keep_text``)."""
        self._tables.extend(other._tables)
        self._count += other._count

    def column(self, name: str) -> pa.ChunkedArray:
        """Return one kept column over every batch (ids: "" already null)."""
        kind = _STORE_TYPES.get(name) or BATCH_SCHEMA.field(name).type
        return pa.chunked_array([c for t in self._tables for c in t.column(name).chunks], kind)

    def take(self, indices: Any, columns: tuple[str, ...]) -> list[dict[str, Any]]:
        """Return the rows at ``indices`` (over every batch) as dicts of ``columns``."""
        if not len(indices) or not self._tables:
            return []
        table = pa.concat_tables([t.select(list(columns)) for t in self._tables])
        return table.take(indices).to_pylist()  # type: ignore[no-any-return]

    def rows(self, columns: tuple[str, ...] | None = None) -> Iterator[dict[str, Any]]:
        """Yield the kept rows as dicts, one table at a time (bounded memory).

        Keys: the canonical fields but ``prompt``/``response`` (kept only with ``keep_text``),
        plus ``prompt_chars`` and ``foreign`` (comma-separated kinds, "" none, None no response).
        """
        for table in self._tables:
            yield from (table.select(list(columns)) if columns else table).to_pylist()

    __iter__ = rows


def _ranked(values: Any) -> list[tuple[Any, int]]:
    """Return ``Counter(non-null values).most_common()``: by count, ties in first-seen order."""
    values = values.drop_null()
    if not len(values):
        return []
    counts = pc.value_counts(values)
    pairs = list(
        zip(counts.field("values").to_pylist(), counts.field("counts").to_pylist(), strict=True)
    )
    pairs.sort(key=lambda pair: pair[1], reverse=True)  # stable, as most_common
    return pairs


def _foreign_column(responses: Any, prompts: Any) -> pa.Array:
    """Return the foreign-data kinds of each response ("" none, null when no response).

    RE2 first marks the responses that could hold an identifier at all (a superset of what the
    patterns match); only those are checked, with their prompts, by :func:`foreign_kinds`.
    """
    if isinstance(responses, pa.ChunkedArray):
        responses, prompts = responses.combine_chunks(), prompts.combine_chunks()
    maybe = pc.fill_null(pc.match_substring_regex(responses, MAYBE_FOREIGN), False)
    text = pa.large_string()
    found = pc.if_else(pc.is_null(responses), pa.scalar(None, text), pa.scalar("", text))
    hits = pc.indices_nonzero(maybe)
    if len(hits):
        kinds = [
            ",".join(sorted(foreign_kinds(response, prompt)))
            for response, prompt in zip(
                responses.take(hits).to_pylist(), prompts.take(hits).to_pylist(), strict=True
            )
        ]
        found = pc.replace_with_mask(found, maybe, pa.array(kinds, text))
    return found


def exact_sum(values: Any) -> int:
    """Return the exact sum of an int64 array of non-negative counts (nulls ignored).

    ``pc.sum`` wraps around past 2**63 (one count of 2**63-1 and another made the disclosed
    total negative): the high and low 32 bits are summed apart, each sum far from overflowing.
    """
    if len(values) == values.null_count:
        return 0
    high = pc.sum(pc.shift_right(values, 32)).as_py() or 0
    low = pc.sum(pc.bit_wise_and(values, 0xFFFFFFFF)).as_py() or 0
    return int(high) * (1 << 32) + int(low)


_FOREIGN = ("foreign", "request_id")


def foreign_data(stores: tuple[RowStore, ...]) -> ForeignData:
    """Return the candidate foreign data of the responses kept in ``stores`` (values never
    shown), with what the check cannot see."""
    kinds: Counter[str] = Counter()
    flagged: list[str] = []
    checked = flagged_count = 0
    for store in stores:
        found = store.column("foreign")
        checked += len(found) - found.null_count
        hits = pc.indices_nonzero(pc.fill_null(pc.not_equal(found, ""), False))
        flagged_count += len(hits)
        for row in store.take(hits, _FOREIGN):
            kinds.update(row["foreign"].split(","))
            if row["request_id"] is not None:
                flagged.append(row["request_id"])
    return ForeignData(
        responses_checked=checked,
        responses_flagged=flagged_count,
        by_kind=dict(sorted(kinds.items())),
        request_ids=flagged,
        note=(
            "responses of affected and possibly affected requests holding e-mail addresses, "
            "URLs, key-like tokens, UUIDs, long hex strings or IPv4 addresses that do not "
            "occur in the request's own prompt; values are never shown. It does not detect "
            "names, health data, addresses or free text: an unflagged response can still "
            "hold another tenant's data"
        ),
        not_detected=list(NOT_DETECTED),
    )
