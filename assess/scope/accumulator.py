"""Exposure scoping: filter canonical log batches against an advisory and count what was exposed.

Pure: it takes batches and returns a :class:`~assess.scope.models.ScopeResult`; never prints.

Definitions (each row is counted once, so the conservation equations hold):
``records_read = requests + non_request_records + records_skipped``;
``requests = model_matched + model_not_matched``;
``model_matched = in_window + model_matched_outside_window``;
``in_window = over_threshold + at_or_under_threshold + unknown_tokens``.
Received (affected) = over_threshold; possibly affected = unknown_tokens; disclosed = in_window.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import UTC, date, datetime, time
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from assess.advisories.models import Advisory
from assess.kernel.common import InputFile
from assess.kernel.errors import InputError, UsageError
from assess.kernel.model_ids import normalise_model_id
from assess.scope.logs.timestamps import datetime_to_ns, ns_to_datetime
from assess.scope.models import (
    BATCH_SCHEMA,
    TEXT,
    AccountCount,
    Affected,
    Breakdown,
    Counts,
    DayCount,
    Disclosed,
    ForeignData,
    LogBatch,
    PlatformShare,
    PossiblyAffected,
    ScopeFilter,
    ScopeResult,
    SkippedRecord,
    TokenEstimate,
)
from assess.scope.text import (
    CHARS_PER_TOKEN_HIGH,
    CHARS_PER_TOKEN_LOW,
    ESTIMATE_METHOD,
    MAYBE_FOREIGN,
    foreign_kinds,
    token_range,
)

SKIPPED_LISTED = 1000
_FOREIGN = ("foreign", "request_id")
_IDS = ("request_id", "account_id", "session_id", "status")
_DAY = pa.date32()
_NS = pa.timestamp("ns")
_STORE_TYPES = {"prompt_chars": pa.int64(), "foreign": TEXT}
ESTIMATES_LISTED = 1000


def make_filter(
    advisory: Advisory | None,
    models: list[str] | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    min_prompt_tokens: int | None = None,
) -> ScopeFilter:
    """Return the filter: the advisory's values, each replaced by an option when given.

    Raises:
        UsageError: when no advisory is given and an option it would supply is missing, or the
            window is empty.
    """
    names = [normalise_model_id(m) for m in models] if models else None
    if advisory is None and (not names or since is None or until is None):
        raise UsageError(
            "scope: without an advisory, --model, --since and --until are all required",
            "Give --incident ID (see `assess advisories list`) or all three options.",
        )
    start = since or (advisory.window.start if advisory else None)
    end = until or (advisory.window.end if advisory else None)
    assert start is not None and end is not None
    start, end = _utc(start), _utc(end)
    if end < start:
        until_from = "--until" if until is not None else "the advisory's window end"
        since_from = "--since" if since is not None else "the advisory's window start"
        raise UsageError(
            f"{until_from} {end.isoformat()} is before {since_from} {start.isoformat()}",
            "Give --since and --until that make a window with its start before its end.",
        )
    threshold = min_prompt_tokens
    if threshold is None:
        threshold = advisory.trigger.prompt_tokens_gt if advisory else 0
    return ScopeFilter(
        advisory_id=advisory.id if advisory else None,
        model_names=names or (advisory.models.names if advisory else []),
        since=start,
        until=end,
        min_prompt_tokens=threshold,
        leaked_responses=advisory.leaked_responses if advisory else None,
    )


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def end_of_day(day: datetime) -> datetime:
    """Return 23:59:59 UTC of ``day`` (a bare ``--until`` date includes the whole day)."""
    return datetime.combine(day.date(), time(23, 59, 59), tzinfo=UTC)


class ScopeAccumulator:
    """Adds batches one by one; :meth:`result` returns the document. Memory: in-scope rows only."""

    def __init__(self, scope: ScopeFilter, keep_text: bool = False) -> None:
        """``keep_text`` keeps prompt/response text of affected rows (for reports that ask)."""
        self.filter = scope
        self._names = set(scope.model_names)
        self._match_cache: dict[str, bool] = {}
        self._last_mask: tuple[Any, Any, tuple[Any, Any]] | None = None
        self._since = datetime_to_ns(scope.since)
        self._until = datetime_to_ns(scope.until)
        self._threshold = scope.min_prompt_tokens
        self.read = self.skipped_total = self.matched = 0
        self.requests = 0
        self.non_request: Counter[str] = Counter()
        self.skip_reasons: Counter[str] = Counter()
        self.skipped: list[SkippedRecord] = []
        self.over = self.under = 0
        self.unknown = RowStore(keep_text)
        self.affected = RowStore(keep_text)
        self.disclosed_tokens = self.disclosed_known = self.disclosed_unattributed = 0
        self._accounts = DistinctStrings()
        self.in_window = 0

    def _model_mask(self, models: Any) -> Any:
        if isinstance(models, pa.ChunkedArray):
            models = models.combine_chunks()
        encoded = pc.dictionary_encode(models)  # one hash pass; the ids are matched once each
        flags = []
        for value in encoded.dictionary.to_pylist():
            hit = self._match_cache.get(value)
            if hit is None:
                hit = self._match_cache[value] = normalise_model_id(value) in self._names
            flags.append(hit)
        return pc.fill_null(pa.array(flags, pa.bool_()).take(encoded.indices), False)

    def _scope_mask(self, table: pa.Table) -> tuple[Any, Any]:
        """Return (model matched, in scope) masks of ``table``.

        The reader asks for the text mask of a block (:meth:`text_mask`) and the block then comes
        back to :meth:`add` with the same model and timestamp columns: the masks are kept for the
        last columns seen (by their buffers, which are immutable), so they are computed once.
        """
        models, stamps = table.column("model"), table.column("timestamp")
        key = (_buffers_key(models), _buffers_key(stamps))
        if self._last_mask is not None and self._last_mask[0] == key:
            return self._last_mask[2]
        matched = self._model_mask(models)
        window = pc.and_(pc.greater_equal(stamps, self._since), pc.less_equal(stamps, self._until))
        masks = matched, pc.and_(matched, pc.fill_null(window, False))
        self._last_mask = (key, (models, stamps), masks)  # the columns keep their buffers alive
        return masks

    def text_mask(self, table: pa.Table) -> Any:
        """Return the rows whose text the scoping needs: in scope and over or unknown tokens."""
        _, scope = self._scope_mask(table)
        tokens = table.column("prompt_tokens")
        needed = pc.or_(pc.is_null(tokens), pc.greater(pc.fill_null(tokens, 0), self._threshold))
        return pc.and_(scope, needed)

    def add(self, batch: LogBatch) -> None:
        """Count one batch."""
        table = batch.table
        self.read += batch.records_read
        self.requests += table.num_rows
        self.non_request.update(batch.non_request)
        self.skipped_total += len(batch.skipped)
        self.skip_reasons.update(s.reason for s in batch.skipped)
        room = SKIPPED_LISTED - len(self.skipped)
        if room > 0:
            self.skipped.extend(batch.skipped[:room])
        if table.num_rows == 0:
            return
        matched, scope = self._scope_mask(table)
        self.matched += pc.sum(matched).as_py() or 0
        in_scope = table.filter(scope)
        if in_scope.num_rows:
            self._in_scope(in_scope)

    def _in_scope(self, rows: pa.Table) -> None:
        self.in_window += rows.num_rows
        tokens, accounts = rows.column("prompt_tokens"), rows.column("account_id")
        self._accounts.add(accounts)
        empty = pc.sum(pc.equal(accounts, "")).as_py() or 0
        self.disclosed_unattributed += accounts.null_count + empty
        self.disclosed_known += len(tokens) - tokens.null_count
        self.disclosed_tokens += pc.sum(tokens).as_py() or 0
        over = pc.fill_null(pc.greater(tokens, self._threshold), False)
        over_count = pc.sum(over).as_py() or 0
        self.over += over_count
        self.under += len(tokens) - tokens.null_count - over_count
        if over_count:
            self.affected.add(rows.filter(over))
        if tokens.null_count:
            self.unknown.add(rows.filter(pc.is_null(tokens)))

    # -- result -------------------------------------------------------------------------------
    def result(
        self, preset: str, inputs: Iterable[InputFile], platform_requests: int | None = None
    ) -> ScopeResult:
        """Return the scope document.

        Raises:
            UsageError: when ``platform_requests`` is below our own in-window request count.
        """
        non_request = sum(self.non_request.values())
        counts = Counts(
            records_read=self.read,
            records_skipped=self.skipped_total,
            non_request_records=non_request,
            model_matched=self.matched,
            in_window=self.in_window,
            over_threshold=self.over,
            at_or_under_threshold=self.under,
            unknown_tokens=len(self.unknown),
        )
        possibly = self._possibly()
        affected, days, statuses = self._affected()
        exit_code = 1 if self.over or self.unknown else 0
        return ScopeResult(
            filter=self.filter,
            preset=preset,
            counts=counts,
            breakdown=Breakdown(
                requests=self.requests,
                model_not_matched=self.requests - self.matched,
                model_matched_outside_window=self.matched - self.in_window,
                non_request_reasons=dict(self.non_request.most_common()),
                skipped_reasons=dict(self.skip_reasons.most_common()),
            ),
            affected=affected,
            per_day=[DayCount(date=day, requests=n) for day, n in sorted(days.items())],
            status=dict(statuses.most_common()),
            possibly_affected=possibly,
            disclosed=Disclosed(
                requests=self.in_window,
                prompt_tokens_known=self.disclosed_known,
                prompt_tokens_total=self.disclosed_tokens,
                accounts=len(self._accounts),
                unattributed=self.disclosed_unattributed,
                platform_share=self._share(platform_requests),
            ),
            candidate_foreign_data=self._foreign(),
            skipped=self.skipped,
            skipped_listed=len(self.skipped),
            exit_code=exit_code,
            inputs=list(inputs),
        )

    def _affected(self) -> tuple[Affected, Counter[date], Counter[str]]:
        """The summary of the affected rows, requests per day and per status (by column)."""
        rows = self.affected
        accounts = _ranked(rows.column("account_id"))
        ids = rows.column("request_id").drop_null().to_pylist()
        days = Counter(dict(_ranked(pc.cast(rows.column("timestamp").cast(_NS), _DAY))))
        statuses = Counter(dict(_ranked(pc.fill_null(rows.column("status"), "(none)"))))
        affected = Affected(
            requests=len(rows),
            accounts=[AccountCount(account_id=a, requests=n) for a, n in accounts],
            unattributed=len(rows) - sum(n for _, n in accounts),
            sessions=pc.count_distinct(rows.column("session_id")).as_py(),
            request_ids=ids,
            requests_without_id=len(rows) - len(ids),
        )
        return affected, days, statuses

    def _possibly(self) -> PossiblyAffected:
        rows = self.unknown
        chars = rows.column("prompt_chars")
        # token_range's verdicts by column: over when chars/6 floored exceeds the threshold,
        # under when chars (the high estimate) is at or under it, else crosses
        as_float = pc.cast(chars, pa.float64())
        low = pc.floor(pc.divide(as_float, CHARS_PER_TOKEN_HIGH))
        high = pc.ceil(pc.divide(as_float, CHARS_PER_TOKEN_LOW))
        over = pc.sum(pc.greater(low, self._threshold)).as_py() or 0
        under = pc.sum(pc.less_equal(high, self._threshold)).as_py() or 0
        known = len(chars) - chars.null_count
        estimates: list[TokenEstimate] = []
        listed = pc.indices_nonzero(pc.is_valid(chars))[:ESTIMATES_LISTED]
        for row in rows.take(listed, ("timestamp", "request_id", "account_id", "prompt_chars")):
            low_n, high_n, verdict = token_range(row["prompt_chars"], self._threshold)
            estimates.append(
                TokenEstimate(
                    request_id=row["request_id"],
                    account_id=row["account_id"],
                    timestamp=ns_to_datetime(row["timestamp"]),
                    prompt_chars=row["prompt_chars"],
                    tokens_low=low_n,
                    tokens_high=high_n,
                    verdict=verdict,
                )
            )
        return PossiblyAffected(
            requests=len(rows),
            with_prompt_text=known,
            estimate_over=over,
            estimate_crosses=known - over - under,
            estimate_under=under,
            chars_per_token_low=CHARS_PER_TOKEN_LOW,
            chars_per_token_high=CHARS_PER_TOKEN_HIGH,
            method=ESTIMATE_METHOD,
            accounts=[
                AccountCount(account_id=a, requests=n)
                for a, n in _ranked(rows.column("account_id"))
            ],
            request_ids=rows.column("request_id").drop_null().to_pylist(),
            estimates=estimates,
        )

    def _share(self, platform_requests: int | None) -> PlatformShare | None:
        if platform_requests is None:
            return None
        leaked = self.filter.leaked_responses
        if leaked is None:
            raise UsageError(
                "--platform-requests needs the advisory's count of leaked responses",
                "Use --incident with an advisory that publishes leaked_responses.",
            )
        ours = self.in_window
        if platform_requests < max(ours, 1):
            raise UsageError(
                f"--platform-requests {platform_requests} is below our own {ours} in-window "
                "requests to the model",
                "Give the provider's total request count for the model in the window.",
            )
        share = ours / platform_requests
        probability = 1 - (1 - share) ** leaked
        expected = leaked * share
        return PlatformShare(
            platform_requests=platform_requests,
            leaked_responses=leaked,
            our_requests=ours,
            expected_leaked_responses_with_our_data=expected,
            probability_at_least_one=probability,
            formula=(
                f"P(at least one) = 1 - (1 - ours/N)^L = 1 - (1 - {ours}/{platform_requests})"
                f"^{leaked} = {probability:.6f}; expected = L x ours/N = {expected:.4f} "
                "(assumes each leaked response drew its foreign data from an in-window request "
                "chosen uniformly at random)"
            ),
        )

    def _foreign(self) -> ForeignData:
        kinds: Counter[str] = Counter()
        flagged: list[str] = []
        checked = flagged_count = 0
        for store in (self.affected, self.unknown):
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
                "occur in the request's own prompt; values are never shown"
            ),
        )


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

    COLUMNS = (
        "timestamp",
        "model",
        "request_id",
        "account_id",
        "session_id",
        "status",
        "prompt_tokens",
    )

    def __init__(self, keep_text: bool = False) -> None:
        self._tables: list[pa.Table] = []
        self._count = 0
        self._keep_text = keep_text

    def __len__(self) -> int:
        return self._count

    def __bool__(self) -> bool:
        return self._count > 0

    def add(self, rows: pa.Table) -> None:
        """Keep ``rows``: ids with "" as null, prompt length, foreign-data kinds (no text)."""
        columns = {name: rows.column(name) for name in self.COLUMNS}
        for name in _IDS:
            column = columns[name]
            columns[name] = pc.if_else(pc.equal(column, ""), pa.scalar(None, column.type), column)
        columns["prompt_chars"] = pc.utf8_length(rows.column("prompt")).cast(pa.int64())
        columns["foreign"] = _foreign_column(rows.column("response"), rows.column("prompt"))
        if self._keep_text:
            columns["prompt"], columns["response"] = rows.column("prompt"), rows.column("response")
        self._tables.append(pa.table(columns))
        self._count += rows.num_rows

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


def _buffers_key(column: Any) -> tuple[int, ...]:
    """Return what identifies an Arrow column's data: its chunks' buffer addresses, offsets and
    lengths (buffers are immutable, so equal keys of live columns mean equal values)."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    key: list[int] = []
    for chunk in chunks:
        key += [chunk.offset, len(chunk)]
        key += [0 if b is None else b.address for b in chunk.buffers()]
    return tuple(key)


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


def require_evidence(result: ScopeResult, preset: str) -> None:
    """Refuse a result the logs cannot support: no record at all (empty files), or not one
    usable request because every record was malformed (a wrong preset or map, junk). Saying
    "nothing affected" there would lie.

    Raises:
        InputError: naming the files (or the first malformed record) and what to check.
    """
    counts = result.counts
    if counts.records_read == 0:
        names = ", ".join(f.path for f in result.inputs) or "the logs"
        raise InputError(
            f"{names}: no record at all (empty logs)",
            "Check that the export finished and that these are the files you meant; nothing "
            "can be said about exposure from empty logs.",
        )
    if result.breakdown.requests == 0 and result.skipped:
        first = result.skipped[0]
        raise InputError(
            f"{first.file}: none of the {counts.records_read:,} records read is a usable "
            f"request; {counts.records_skipped:,} were skipped as malformed "
            f"(first: line {first.line}: {first.reason})",
            f"Check --preset (this run used {preset}) and --map; nothing can be said about "
            "exposure from these logs.",
        )


def scope_batches(
    scope: ScopeFilter,
    batches: Iterable[LogBatch],
    preset: str,
    inputs: Iterable[InputFile] = (),
    platform_requests: int | None = None,
) -> ScopeResult:
    """Return the scope document for ``batches`` (convenience over :class:`ScopeAccumulator`)."""
    acc = ScopeAccumulator(scope)
    for batch in batches:
        acc.add(batch)
    return acc.result(preset, inputs, platform_requests)
