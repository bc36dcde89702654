"""Exposure scoping: filter canonical log batches against an advisory and count what was exposed.

Pure: it takes batches and returns a :class:`~assess.scope.models.ScopeResult`; never prints.

Definitions (each row is counted once, so the conservation equations hold):
``records_read = requests + non_request_records + records_skipped``;
``requests = model_matched + model_not_matched``;
``model_matched = in_window + model_matched_outside_window``;
``in_window = over_threshold + at_or_under_threshold + unknown_tokens`` (what the logs say, on
any platform). Each in-window row also gets one verdict
(:mod:`assess.scope.exposure`): affected, possibly affected (with its reason), not affected, cache
replay, rejected before inference or served elsewhere; disclosed is the source set S.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import date
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from assess.kernel.common import InputFile
from assess.kernel.model_ids import normalise_model_id
from assess.scope.disclosure import disclosed
from assess.scope.duplicates import Duplicates, uncount
from assess.scope.estimate import exposure_range
from assess.scope.evidence import EXIT_CODES, Tally, Verdict, assess, platform_share
from assess.scope.exposure import VERDICTS, Exposure
from assess.scope.filter import end_of_day as end_of_day
from assess.scope.filter import has_trigger, threshold, window_ns
from assess.scope.filter import make_filter as make_filter
from assess.scope.logs.timestamps import ns_to_datetime
from assess.scope.models import (
    AccountCount,
    Affected,
    Assessment,
    Breakdown,
    Counts,
    DayCount,
    Disclosed,
    LogBatch,
    PossiblyAffected,
    ScopeFilter,
    ScopeResult,
    SkippedRecord,
    TokenEstimate,
)
from assess.scope.store import RowStore, _ranked, foreign_data
from assess.scope.store import _foreign_column as _foreign_column  # tests call it here
from assess.scope.text import (
    CHARS_PER_TOKEN_HIGH,
    CHARS_PER_TOKEN_LOW,
    ESTIMATE_METHOD,
    token_range,
)

SKIPPED_LISTED = 1000
_FOREIGN = ("foreign", "request_id")
_DAY = pa.date32()
_NS = pa.timestamp("ns")
ESTIMATES_LISTED = 1000


class ScopeAccumulator:
    """Adds batches one by one; :meth:`result` returns the document. Memory: in-scope rows only."""

    def __init__(
        self, scope: ScopeFilter, keep_text: bool = False, after: Duplicates | None = None
    ) -> None:
        """``keep_text`` keeps prompt/response text of affected rows (for reports that ask);
        ``after``: the request ids counted by the readings before this one."""
        self.filter = scope
        self.keep_text = keep_text
        self._names = set(scope.model_names)
        self._match_cache: dict[str, bool] = {}
        self._last_mask: tuple[pa.Table, tuple[Any, Any, Counter[str | None]]] | None = None
        first, last = window_ns(scope)
        self._first, self._last = pa.scalar(first, pa.int64()), pa.scalar(last, pa.int64())
        self._threshold = threshold(scope)
        self._cut = pa.scalar(self._threshold, pa.int64())  # compared as int64, never as double
        self.read = self.skipped_total = self.matched = 0
        self.requests = 0
        self.non_request: Counter[str] = Counter()
        self.skip_reasons: Counter[str] = Counter()
        self.skipped: list[SkippedRecord] = []
        self.over = self.under = self.unknown_tokens = 0
        self.unknown = RowStore(keep_text)  # possibly affected, each with its reason
        self.affected = RowStore(keep_text)
        self.exposure = Exposure(scope)
        self.in_window = 0
        #: Requests per model id as logged (None: no model), for the assessment.
        self.models: Counter[str | None] = Counter()
        self.duplicates = Duplicates(after)  # request ids counted, to count each once

    def _model_mask(self, models: Any) -> tuple[Any, Counter[str | None]]:
        """Return the rows whose model is the advisory's, and the requests per model id."""
        if isinstance(models, pa.ChunkedArray):
            models = models.combine_chunks()
        encoded = pc.dictionary_encode(models)  # one hash pass; the ids are matched once each
        values = encoded.dictionary.to_pylist()
        flags = []
        for value in values:
            hit = self._match_cache.get(value)
            if hit is None:
                hit = self._match_cache[value] = normalise_model_id(value) in self._names
            flags.append(hit)
        tally: Counter[str | None] = Counter()
        for entry in pc.value_counts(encoded.indices).to_pylist():  # nulls: no model
            index = entry["values"]
            tally[None if index is None else values[index] or None] += entry["counts"]
        mask = pc.fill_null(pa.array(flags, pa.bool_()).take(encoded.indices), False)
        return mask, tally

    def _scope_mask(self, table: pa.Table) -> tuple[Any, Any, Counter[str | None]]:
        """Return (model matched, in scope) masks of ``table`` and its requests per model.

        The masks of the last table are kept (with the table, so it stays the same object): a
        caller that asks :meth:`text_mask` and then adds the same table pays for them once.
        """
        if self._last_mask is not None and self._last_mask[0] is table:
            return self._last_mask[1]
        models, stamps = table.column("model"), table.column("timestamp")
        matched, tally = self._model_mask(models)
        window = pc.and_(pc.greater_equal(stamps, self._first), pc.less_equal(stamps, self._last))
        masks = matched, pc.and_(matched, pc.fill_null(window, False)), tally
        self._last_mask = (table, masks)
        return masks

    def _needs_text(self, table: pa.Table, scope: Any) -> Any:
        # every in-scope row: its platform, cache flag and output tokens decide its verdict and
        # whether it is a source (docs/exposure.md); rows out of scope are never loaded
        return scope

    def text_mask(self, table: pa.Table) -> Any:
        """Return the rows whose details the scoping keeps: every in-scope row (their ids,
        status, provider and texts are loaded; no other row's are)."""
        return self._needs_text(table, self._scope_mask(table)[1])

    def add(self, batch: LogBatch) -> None:
        """Count one batch, first loading the details of the rows kept (``batch.details``)."""
        table = batch.table
        masks = self._scope_mask(table) if table.num_rows else None
        if masks is not None and batch.details is not None:
            needed = self._needs_text(table, masks[1])
            if pc.any(needed).as_py():
                loaded = batch.details(needed)
                if isinstance(loaded, LogBatch):  # re-read: count that batch instead
                    self.add(loaded)
                    return
                table = loaded  # the same rows in the same order: the masks still hold
        self.read += batch.records_read
        self.requests += table.num_rows
        self.non_request.update(batch.non_request)
        self.skipped_total += len(batch.skipped)
        self.skip_reasons.update(s.reason for s in batch.skipped)
        room = SKIPPED_LISTED - len(self.skipped)
        if room > 0:
            self.skipped.extend(batch.skipped[:room])
        if masks is None:
            return
        matched, scope, tally = masks
        self.models.update(tally)
        self.matched += pc.sum(matched).as_py() or 0
        in_scope = table.filter(scope)
        if in_scope.num_rows:
            in_scope = uncount(self, *self.duplicates.split(in_scope))
        if in_scope.num_rows:
            self._in_scope(in_scope)

    def merge(self, other: ScopeAccumulator) -> None:
        """Add everything ``other`` counted and kept, as if its batches had come next here.

        Exact: counts add, reasons keep first-seen order, the first skipped records listed and
        the kept rows stay in order (the parallel run merges its files' accumulators in order).
        """
        self.read += other.read
        self.requests += other.requests
        self.non_request.update(other.non_request)
        self.skipped_total += other.skipped_total
        self.skip_reasons.update(other.skip_reasons)
        room = SKIPPED_LISTED - len(self.skipped)
        if room > 0:
            self.skipped.extend(other.skipped[:room])
        self.matched += other.matched
        self.models.update(other.models)
        self.in_window += other.in_window
        self.over += other.over
        self.under += other.under
        self.unknown_tokens += other.unknown_tokens
        self.exposure.merge(other.exposure)
        self.affected.extend(other.affected)
        self.unknown.extend(other.unknown)
        self.duplicates.merge(other.duplicates)

    def add_counts(
        self,
        read: int,
        requests: int,
        matched: int,
        non_request: dict[str, int],
        skipped: dict[str, int],
    ) -> None:
        """Count records whose rows are not added (an engine counted them): ``requests`` and
        ``matched`` requests outside the window or model, and the records skipped by reason."""
        self.read += read
        self.requests += requests
        self.matched += matched
        self.non_request.update(non_request)
        self.skip_reasons.update(skipped)
        self.skipped_total += sum(skipped.values())

    def forget_masks(self) -> None:
        """Drop the masks kept for the last table seen (before pickling)."""
        self._last_mask = None

    def _in_scope(self, rows: pa.Table) -> None:
        self.in_window += rows.num_rows
        split = self.exposure.add(rows)
        self.over += split.over
        self.under += split.under
        self.unknown_tokens += split.unknown
        if split.affected.num_rows:
            self.affected.add(split.affected)
        if split.possibly.num_rows:
            self.unknown.add(split.possibly, split.reasons)

    # -- result -------------------------------------------------------------------------------
    def result(
        self,
        preset: str,
        inputs: Iterable[InputFile],
        platform_requests: int | None = None,
        platform_tokens: int | None = None,
        platform_mean_tokens: int | None = None,
    ) -> ScopeResult:
        """Return the scope document; the platform's request count N and token volume V (or
        its mean tokens per request) give the exposure range (:mod:`assess.scope.estimate`).

        Raises:
            UsageError: when ``platform_requests`` is below the source set, or V is more than
                the context per request.
        """
        counts = Counts(
            records_read=self.read,
            records_skipped=self.skipped_total,
            non_request_records=sum(self.non_request.values()),
            model_matched=self.matched,
            in_window=self.in_window,
            over_threshold=self.over,
            at_or_under_threshold=self.under,
            unknown_tokens=self.unknown_tokens,
        )
        possibly = self._possibly()
        affected, days, statuses = self._affected()
        assessment = self._assessment()
        verdict: Verdict = "affected" if self.affected or self.unknown else "not_affected"
        if verdict == "not_affected" and assessment.reasons:
            verdict = "not_assessable"
        return ScopeResult(
            filter=self.filter,
            preset=preset,
            counts=counts,
            breakdown=self._breakdown(),
            affected=affected,
            per_day=[DayCount(date=day, requests=n) for day, n in sorted(days.items())],
            status=dict(statuses.most_common()),
            possibly_affected=possibly,
            disclosed=self._disclosed(platform_requests, platform_tokens, platform_mean_tokens),
            candidate_foreign_data=foreign_data((self.affected, self.unknown)),
            own_overlap=self.exposure.own_overlap() if has_trigger(self.filter) else None,
            skipped=self.skipped,
            skipped_listed=len(self.skipped),
            exit_code=EXIT_CODES[verdict],
            verdict=verdict,
            assessment=assessment,
            inputs=list(inputs),
            duplicates=self.duplicates.summary(),
        )

    def _breakdown(self) -> Breakdown:
        verdicts = self.exposure.verdicts
        return Breakdown(
            requests=self.requests,
            model_not_matched=self.requests - self.matched,
            model_matched_outside_window=self.matched - self.in_window,
            non_request_reasons=dict(self.non_request.most_common()),
            skipped_reasons=dict(self.skip_reasons.most_common()),
            served_elsewhere=verdicts["served_elsewhere"],
            served_elsewhere_by_provider=dict(self.exposure.elsewhere.most_common()),
            by_verdict={k: verdicts[k] for k in VERDICTS},
        )

    def _disclosed(
        self, requests: int | None, tokens: int | None, mean_tokens: int | None
    ) -> Disclosed:
        """The source set S with the exposure range (N, V or V / N given) and the old
        uniform-copy share beside it (only when the range applies)."""
        sources = self.exposure.source_table()
        ours_over = len(self.affected) + self.exposure.over_possibly
        estimate = exposure_range(self.filter, sources, ours_over, requests, tokens, mean_tokens)
        share = None
        if estimate is not None and estimate.applies and requests is not None:
            share = platform_share(self.filter, sources.num_rows, requests)
        return disclosed(self.exposure, share, estimate)

    def _assessment(self) -> Assessment:
        """Whether the counts back a verdict (:func:`assess.scope.evidence.assess`)."""
        tally = Tally(
            read=self.read,
            requests=self.requests,
            skipped=self.skipped_total,
            matched=self.matched,
            without_model=self.models.get(None, 0),
            skip_reasons=self.skip_reasons,
            models={k: v for k, v in self.models.items() if k is not None},
            listed=self.skipped,
        )
        return assess(tally, self.filter)

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
        # estimated from the prompt's length only where the count is unknown
        chars = rows.column("prompt_chars")
        chars = pc.if_else(pc.is_null(rows.column("prompt_tokens")), chars, None)
        # token_range's verdicts by column: over when chars/6 floored exceeds the threshold,
        # under when chars (the high estimate) is at or under it, else crosses
        as_float = pc.cast(chars, pa.float64())
        low = pc.floor(pc.divide(as_float, CHARS_PER_TOKEN_HIGH))
        high = pc.ceil(pc.divide(as_float, CHARS_PER_TOKEN_LOW))
        over = pc.sum(pc.greater(low, float(self._threshold))).as_py() or 0
        under = pc.sum(pc.less_equal(high, float(self._threshold))).as_py() or 0
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
            # failed requests (new-api type 5, LiteLLM failure, HTTP 5xx) are counted here
            status=dict(_ranked(pc.fill_null(rows.column("status"), "(none)"))),
            by_reason=dict(self.exposure.reasons.most_common()),
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
