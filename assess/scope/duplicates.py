"""Repeated requests: a request id logged twice (overlapping API pages, the same rows in two
exports, a retried export) is one request, counted once.

Among the in-scope requests (model matched, in the window: the rows whose ids are read, and
the rows every figure of the verdict counts), a record whose request id was already counted with
the same content is a *duplicate*: it leaves the requests and is counted as a non-request record
(:data:`DUPLICATE_REASON`), so ``records_read = requests + non_request_records +
records_skipped`` still holds. A record whose id was counted with other content is a *conflict*:
both are counted (neither is chosen silently) and said so. Content is the row's fields without
its id (time, model, token counts, account, session, status, provider, endpoint, cache flag) and
the lengths of its prompt and response texts, hashed per row (polars ``hash_rows``, seeded: the
same in every worker process). Records without a request id are never duplicates.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from pydantic import Field

from assess.kernel.model import Model

DUPLICATE_REASON = "duplicate request (its request id and content were counted already)"
#: How many ids of duplicates and of conflicts are listed (the first ones seen).
EXAMPLES = 10
_CONTENT = (
    "timestamp",
    "model",
    "prompt_tokens",
    "account_id",
    "session_id",
    "status",
    "provider",
    "endpoint",
    "output_tokens",
    "cache_hit",
    "prompt_tokens_native",
)


class DuplicateRequests(Model):
    """Requests logged more than once (same request id), among the in-scope requests."""

    requests: int = Field(
        default=0,
        description="Records of a request already counted (same id, same content): counted once, "
        "the others as non-request records",
    )
    examples: list[str] = Field(default_factory=list, description="First request ids repeated")
    conflicts: int = Field(
        default=0, description="Records whose id was counted with other content: both counted"
    )
    conflict_examples: list[str] = Field(default_factory=list)


def _fingerprints(rows: pa.Table) -> list[int]:
    """Return one 64-bit hash per row of its content (every field but the id; text lengths)."""
    import polars as pl

    columns = {name: rows.column(name) for name in _CONTENT if name in rows.column_names}
    for name in ("prompt", "response"):
        if name in rows.column_names:
            columns[f"{name}_chars"] = pc.utf8_length(rows.column(name))
    frame = pl.from_arrow(pa.table(columns))
    assert isinstance(frame, pl.DataFrame)
    return frame.hash_rows(seed=36).to_list()


class Duplicates:
    """The request ids counted so far, with each one's content hash; ``parent``: an earlier
    reading's (a file's own accumulator sees the ids of the files before it)."""

    def __init__(self, parent: Duplicates | None = None) -> None:
        self.parent = parent
        self.seen: dict[str, int] = {}
        #: The other contents counted under an id (conflicts): a repeat of one is a duplicate.
        self.variants: dict[str, set[int]] = {}
        self.requests = 0
        self.conflicts = 0
        self.examples: list[str] = []
        self.conflict_examples: list[str] = []

    def _variant(self, key: str, content: int) -> bool:
        if content in self.variants.get(key, ()):
            return True
        return self.parent is not None and self.parent._variant(key, content)

    def _known(self, key: str) -> int | None:
        found = self.seen.get(key)
        if found is None and self.parent is not None:
            return self.parent._known(key)
        return found

    def _new(self, ids: list[str | None]) -> bool:
        """True when none of ``ids`` was counted before (here or in an earlier reading)."""
        if not self.seen.keys().isdisjoint(ids):
            return False
        return self.parent is None or self.parent._new(ids)

    def split(self, rows: pa.Table) -> tuple[pa.Table, Counter[str | None]]:
        """Return ``rows`` without the duplicates, and the duplicates' model ids (as logged)."""
        if "request_id" not in rows.column_names:
            return rows, Counter()
        ids = rows.column("request_id").to_pylist()
        if not any(ids):
            return rows, Counter()
        prints = _fingerprints(rows)
        if len(set(ids)) == len(ids) and self._new(ids):  # the usual batch: no id seen before
            self.seen.update(zip(ids, prints, strict=True))
            self.seen.pop(None, None)  # type: ignore[call-overload]
            self.seen.pop("", None)
            return rows, Counter()
        drop = [False] * len(ids)
        for index, (key, content) in enumerate(zip(ids, prints, strict=True)):
            if not key:
                continue
            known = self._known(key)
            if known is None:
                self.seen[key] = content
            elif known == content or self._variant(key, content):
                drop[index] = True
                self._note(key)
            else:
                self.variants.setdefault(key, set()).add(content)
                self._conflict(key)
        if not any(drop):
            return rows, Counter()
        mask = pa.array(drop, pa.bool_())
        models = Counter(rows.column("model").filter(mask).to_pylist())
        return rows.filter(pc.invert(mask)), models

    def _note(self, key: str) -> None:
        self.requests += 1
        if len(self.examples) < EXAMPLES and key not in self.examples:
            self.examples.append(key)

    def _conflict(self, key: str) -> None:
        self.conflicts += 1
        if len(self.conflict_examples) < EXAMPLES and key not in self.conflict_examples:
            self.conflict_examples.append(key)

    def shares(self, other: Duplicates) -> bool:
        """True when an id ``other`` counted (a reading made without these ids: a ``--jobs``
        worker's file) was counted here or before: its reading after these differs."""
        return not self._new(list(other.seen))

    def merge(self, other: Duplicates) -> None:
        """Add what ``other`` (a later reading, made after these ids or sharing none, see
        :meth:`shares`) counted."""
        self.requests += other.requests
        self.conflicts += other.conflicts
        for key in other.examples:
            if len(self.examples) < EXAMPLES and key not in self.examples:
                self.examples.append(key)
        for key in other.conflict_examples:
            if len(self.conflict_examples) < EXAMPLES and key not in self.conflict_examples:
                self.conflict_examples.append(key)
        for key, contents in other.variants.items():
            self.variants.setdefault(key, set()).update(contents)
        for key, content in other.seen.items():
            known = self._known(key)
            if known is None:
                self.seen[key] = content
            elif known != content:
                self._conflict(key)

    def summary(self) -> DuplicateRequests:
        """The ``duplicates`` key of the scope document."""
        return DuplicateRequests(
            requests=self.requests,
            examples=self.examples,
            conflicts=self.conflicts,
            conflict_examples=self.conflict_examples,
        )


def uncount(acc: Any, rows: pa.Table, models: Counter[str | None]) -> pa.Table:
    """Take the duplicates (their model ids) out of ``acc``'s requests, into its non-request
    records (:data:`DUPLICATE_REASON`); return ``rows`` (the in-scope rows left)."""
    count = sum(models.values())
    if not count:
        return rows
    acc.requests -= count
    acc.matched -= count
    acc.models.subtract(models)
    acc.non_request[DUPLICATE_REASON] += count
    return rows
