"""Each in-window request's platform and verdict, and the source set S (docs/exposure.md).

Every in-window request comes here, its details loaded. A row is *served elsewhere* when its
provider or endpoint names another platform than the advisory's; otherwise its verdict comes
from its prompt count against the trigger, the platform being confirmed, the count being native,
and its distance from the trigger. The source set S holds the requests that could have been read
by a leak: they reached the model (not a cache replay, not rejected before inference), on the
platform or one that cannot be told, with a prompt at or under the trigger or of unknown length
(an over-length prompt became a one-token placeholder, never written to the pool); no trigger,
no S. Columnar: no Python object per row.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from assess.scope.filter import advisory_platform_ids, host_regexes, platform_id, spelling
from assess.scope.filter import threshold as cut
from assess.scope.models import TEXT, ScopeFilter
from assess.scope.overlap import Overlap
from assess.scope.overlap_models import OwnOverlap

ON, ELSEWHERE, UNKNOWN, ROUTER = "on", "elsewhere", "unknown", "router"
#: A native count this close to the trigger (either side, in hundredths of it) is "possibly
#: affected". 0: a native count is the provider's usage count, the engine's own prefill length
#: after the chat template, which is what the trigger compares (docs/exposure.md); a count that
#: is not native has its own margin below. Raise it for a preset whose counts are estimates.
MARGIN_PERCENT = 0
#: A fallback count (OpenRouter's normalised tokens_prompt where native_tokens_prompt is null)
#: was -3% to +13% of the native count on the same requests of the shipped sample: the native
#: count can be over the trigger while the fallback is as low as 97% of it.
FALLBACK_LOW_PERCENT = 97

REASON_UNKNOWN = "unknown prompt tokens"
REASON_PLATFORM = "over the trigger, platform not identified (no provider, endpoint or prefix)"
REASON_ROUTER = "over the trigger, served through a router (it does not tell the platform)"
REASON_PROTOCOL = "over the trigger, platform not identified (provider logged is an API protocol)"
REASON_NO_FIELD = "over the trigger, platform not identified (the export records no provider)"
#: A provider value naming no platform this tool knows: the reason holds the value, between these.
REASON_UNKNOWN_PROVIDER = (
    "over the trigger, platform not identified (provider value '",
    "' not known)",
)
#: An endpoint host that is no known platform's (a company gateway, an IP): between these.
REASON_UNKNOWN_HOST = (
    "over the trigger, platform not identified (endpoint host '",
    "' not known; --served-by states its platform)",
)
#: Every reason of a row whose platform cannot be told (over the trigger).
PLATFORM_REASONS = (REASON_PLATFORM, REASON_ROUTER, REASON_PROTOCOL, REASON_NO_FIELD)
REASON_FALLBACK = "fallback token count (native count missing; they differ by -3% to +13%)"
REASON_MARGIN = "count within the margin of the trigger"
OVERLAP_OFF = "not checked: turned off with --no-own-overlap"
EXCLUDED_OVER = "over the trigger: prompt replaced by a placeholder, never written to the pool"
#: The same rows when no prompt-length trigger applies (prefix-cache sharing: no stale reads)
EXCLUDED_NO_TRIGGER = "in scope: no prompt-length trigger, so no source set of stale reads"
EXCLUDED_REPLAY = "cache replay: answered from a cache, never reached the model"
EXCLUDED_REJECTED = "rejected before inference (HTTP 4xx)"
EXCLUDED_ELSEWHERE = "served by another platform"
#: Cache flags that mean "answered from the cache" (LiteLLM cache_hit, Cloudflare cached,
#: Portkey cache_status), compared lower-case.
REPLAY_VALUES = ("true", "1", "yes", "hit", "semantic hit")
#: Routers and gateways: a provider or endpoint naming one of them does not tell which platform
#: served the request (OpenRouter routes to Z.AI, Cloudflare and others; LiteLLM's provider is
#: "openrouter" when it forwards there), so it is no evidence either way.
ROUTER_PROVIDERS = ("openrouter", "litellm_proxy", "litellm", "portkey", "helicone")
#: Among a preset's ``provider_no_evidence``, the values naming an API protocol (the
#: OpenAI-compatible API every platform serves); the others name gateways or proxies.
PROTOCOL_PROVIDERS = ("openai",)
ROUTER_ENDPOINTS = ("openrouter.ai", "portkey.ai", "helicone.ai", "gateway.ai.cloudflare.com")
#: The verdicts of in-window rows, in the order ``breakdown.by_verdict`` lists them.
VERDICTS = (
    "affected",
    "possibly_affected",
    "not_affected",
    "cache_replay",
    "rejected_before_inference",
    "served_elsewhere",
)
SOURCE_COLUMNS = (
    "timestamp",
    "request_id",
    "account_id",
    "prompt_tokens",
    "output_tokens",
    "platform",
)


def _text(column: Any) -> Any:
    """Lower-case trimmed text, "" as null."""
    lowered = pc.utf8_lower(pc.utf8_trim_whitespace(column))
    return pc.if_else(pc.equal(lowered, ""), pa.scalar(None, lowered.type), lowered)


def _any(masks: list[Any], length: int) -> Any:
    out: Any = pa.array([False] * length)
    for mask in masks:
        out = pc.or_(out, pc.fill_null(mask, False))
    return out


def _host(endpoint: Any) -> Any:
    """The host of each endpoint (a URL or a bare host; scheme, port and path dropped)."""
    return pc.replace_substring_regex(endpoint, r"^([a-z][a-z0-9+.-]*://)?([^/:?#]*).*$", r"\2")


def _known_host(endpoint: Any, length: int) -> Any:
    """An endpoint whose host is a known other platform's (:data:`OTHER_PLATFORM_HOSTS`)."""
    return _any([pc.match_substring_regex(_host(endpoint), h) for h in host_regexes()], length)


def provider_kinds(provider: Any, scope: ScopeFilter) -> dict[str, list[str]]:
    """Sort a batch's distinct provider values (lower-case, the preset's no-evidence values
    removed) by what they name, read by :func:`~assess.scope.filter.platform_id`, the one
    normaliser ``--served-by`` uses too: ``on`` the advisory's platform, ``elsewhere`` another
    known platform, ``router`` a router or gateway, ``unknown`` no platform this tool knows (a
    typo or a new provider: never *served elsewhere*)."""
    ours, routers = advisory_platform_ids(scope), {spelling(r) for r in ROUTER_PROVIDERS}
    kinds: dict[str, list[str]] = {ON: [], ELSEWHERE: [], ROUTER: [], UNKNOWN: []}
    for value in pc.unique(provider).drop_null().to_pylist():
        found = platform_id(scope, value)
        if spelling(value) in routers:
            kinds[ROUTER].append(value)
        elif found is None:
            kinds[UNKNOWN].append(value)
        else:
            kinds[ON if found in ours else ELSEWHERE].append(value)
    return kinds


def _in(column: Any, values: list[str]) -> Any:
    return pc.fill_null(pc.is_in(column, value_set=pa.array(values, TEXT)), False)


def platform_of(rows: pa.Table, scope: ScopeFilter) -> Any:
    """Return each row's platform verdict: ``on`` (a model prefix, provider or endpoint of the
    advisory's platforms), ``elsewhere`` (a provider or endpoint naming another one, or the
    preset's own platform when it is another) or ``unknown``. No platform named: all ``on``."""
    count = rows.num_rows
    if not scope.platforms:
        return pa.array([ON] * count, TEXT)
    model, provider = _text(rows.column("model")), _text(rows.column("provider"))
    if scope.provider_no_evidence:  # the preset's client-protocol or gateway names: no provider
        vague = pc.is_in(provider, value_set=pa.array(scope.provider_no_evidence, TEXT))
        provider = pc.if_else(pc.fill_null(vague, False), pa.scalar(None, TEXT), provider)
    endpoint = _text(rows.column("endpoint"))
    prefixes = [p for x in scope.platforms for p in x.model_prefixes]
    endpoints = [e for x in scope.platforms for e in x.endpoints]
    kinds = provider_kinds(provider, scope)
    by_prefix = _any([pc.starts_with(model, p) for p in prefixes], count)
    by_provider = _in(provider, kinds[ON])
    by_endpoint = _any([pc.match_substring(endpoint, e) for e in endpoints], count)
    on = pc.or_(by_prefix, pc.or_(by_provider, by_endpoint))
    via = _any([pc.match_substring(endpoint, e) for e in ROUTER_ENDPOINTS], count)
    host = pc.and_(pc.and_(_known_host(endpoint, count), pc.invert(by_endpoint)), pc.invert(via))
    other = pc.or_(_in(provider, kinds[ELSEWHERE]), host)
    # a provider value naming no known platform: the row is not told, whatever its endpoint
    other = pc.and_(other, pc.invert(_in(provider, kinds[UNKNOWN])))
    serving = (scope.serving_platform or "").strip().lower()
    if serving:
        if serving in advisory_platform_ids(scope):
            on = pc.or_(on, pc.invert(other))
        else:
            other = pa.array([True] * count)
    verdict = pc.if_else(on, ON, pc.if_else(other, ELSEWHERE, UNKNOWN))
    return verdict.cast(TEXT)


def _platform_reason(rows: pa.Table, scope: ScopeFilter) -> Any:
    """Return, for each row, why its platform cannot be told (read where it cannot): a router's
    or gateway's name, a protocol name, a value naming no known platform, an export with no such
    field, or nothing in the row."""
    shown = pc.utf8_trim_whitespace(rows.column("provider")).cast(TEXT)
    provider, endpoint = _text(rows.column("provider")), _text(rows.column("endpoint"))
    kinds = provider_kinds(provider, scope)
    vague = _in(provider, scope.provider_no_evidence)
    gateway = pc.and_(vague, pc.invert(_in(provider, list(PROTOCOL_PROVIDERS))))
    router = pc.or_(_in(provider, kinds[ROUTER]), gateway)
    router = pc.or_(
        router, _any([pc.match_substring(endpoint, e) for e in ROUTER_ENDPOINTS], rows.num_rows)
    )
    plain = REASON_PLATFORM if scope.provider_recorded else REASON_NO_FIELD
    out = pc.if_else(vague, REASON_PROTOCOL, plain)
    unknown = pc.and_(_in(provider, kinds[UNKNOWN]), pc.invert(vague))
    before, after = (pa.scalar(part, TEXT) for part in REASON_UNKNOWN_PROVIDER)
    named = pc.binary_join_element_wise(before, shown, after, pa.scalar("", TEXT))
    stranger = pc.and_(pc.is_valid(endpoint), pc.invert(_known_host(endpoint, rows.num_rows)))
    before, after = (pa.scalar(part, TEXT) for part in REASON_UNKNOWN_HOST)
    hosted = pc.binary_join_element_wise(before, _host(endpoint), after, pa.scalar("", TEXT))
    out = pc.if_else(pc.fill_null(stranger, False), hosted, out)
    out = pc.if_else(unknown, named, out)
    return pc.if_else(router, REASON_ROUTER, out).cast(TEXT)


def count_column(column: Any) -> Any:
    """Return a text column of token counts as int64 (null where not a whole number)."""
    text = pc.utf8_trim_whitespace(column.cast(TEXT))
    whole = pc.match_substring_regex(text, r"^[0-9]{1,18}(\.0+)?$")
    kept = pc.if_else(pc.fill_null(whole, False), text, pa.scalar(None, TEXT))
    return pc.cast(pc.replace_substring_regex(kept, r"\.0+$", ""), pa.int64())


@dataclass(frozen=True)
class Split:
    """One batch of in-window rows divided: the affected rows, the possibly affected rows with
    their reason, and the token counts of all of them (served elsewhere too)."""

    affected: pa.Table
    possibly: pa.Table
    reasons: Any
    over: int
    under: int
    unknown: int


class Exposure:
    """The verdicts, exclusions and source set of the in-window rows added so far."""

    def __init__(self, scope: ScopeFilter) -> None:
        self.scope = scope
        self.verdicts: Counter[str] = Counter()
        self.excluded: Counter[str] = Counter()
        self.elsewhere: Counter[str] = Counter()
        self.reasons: Counter[str] = Counter()
        self.sources: list[pa.Table] = []
        self.over_possibly = 0
        self.overlap = Overlap()  # responses that received a leak against the prompts of S

    def add(self, rows: pa.Table) -> Split:
        """Classify ``rows`` (in window, details loaded); keep the sources; return the split."""
        threshold = cut(self.scope)  # within int64: Arrow compares it
        platform = platform_of(rows, self.scope)
        tokens = rows.column("prompt_tokens")
        over = pc.fill_null(pc.greater(tokens, threshold), False)
        under = pc.fill_null(pc.less_equal(tokens, threshold), False)
        unknown = pc.is_null(tokens)
        elsewhere = pc.equal(platform, ELSEWHERE)
        replay = pc.is_in(_text(rows.column("cache_hit")), value_set=pa.array(REPLAY_VALUES, TEXT))
        status = pc.utf8_trim_whitespace(rows.column("status"))
        rejected = pc.match_substring_regex(status, r"^4[0-9][0-9]$")
        here = pc.invert(elsewhere)
        replay = pc.and_(here, pc.fill_null(replay, False))
        rejected = pc.and_(pc.and_(here, pc.invert(replay)), pc.fill_null(rejected, False))
        live = pc.and_(pc.and_(here, pc.invert(replay)), pc.invert(rejected))
        reasons = self._reasons(rows, platform, tokens, over, under, unknown)
        possibly = pc.and_(live, pc.is_valid(reasons))
        affected = pc.and_(pc.and_(live, over), pc.invert(possibly))
        source = pc.and_(live, pc.or_(under, unknown))
        self._count(rows, elsewhere, replay, rejected, live, affected, possibly, over)
        self._keep_sources(rows.filter(source), platform.filter(source))
        if self.scope.own_overlap:
            self.overlap.add(rows, source, pc.and_(live, over))
        self.over_possibly += _sum(pc.and_(possibly, over))
        kept_reasons = reasons.filter(possibly)
        self.reasons.update(kept_reasons.to_pylist())
        return Split(
            affected=rows.filter(affected),
            possibly=rows.filter(possibly),
            reasons=kept_reasons,
            over=_sum(over),
            under=_sum(under),
            unknown=_sum(unknown),
        )

    def _reasons(
        self, rows: pa.Table, platform: Any, tokens: Any, over: Any, under: Any, unknown: Any
    ) -> Any:
        """The possibly-affected reason of each row (null: not possibly affected)."""
        threshold = cut(self.scope)  # within int64: Arrow compares it
        high = threshold * (100 + MARGIN_PERCENT) // 100
        low = threshold * (100 - MARGIN_PERCENT) // 100
        fallback_low = threshold * FALLBACK_LOW_PERCENT // 100
        fallback: Any = pa.array([False] * rows.num_rows)
        if self.scope.native_counts:
            native = _text(rows.column("prompt_tokens_native"))
            fallback = pc.and_(pc.is_null(native), pc.is_valid(tokens))
        near_over = pc.and_(over, pc.fill_null(pc.less_equal(tokens, high), False))
        near_under = pc.and_(under, pc.fill_null(pc.greater(tokens, low), False))
        fallback_under = pc.and_(
            pc.and_(under, fallback), pc.fill_null(pc.greater(tokens, fallback_low), False)
        )
        unsure_platform = pc.fill_null(pc.and_(over, pc.equal(platform, UNKNOWN)), False)
        none = pa.scalar(None, TEXT)
        out: Any = pa.nulls(rows.num_rows, TEXT)
        # the last rule set wins: the list runs from the weakest reason to the strongest
        for mask, reason in (
            (pc.or_(near_under, near_over), REASON_MARGIN),
            (pc.or_(fallback_under, pc.and_(over, fallback)), REASON_FALLBACK),
        ):
            out = pc.if_else(pc.fill_null(mask, False), pa.scalar(reason, TEXT), out)
        out = pc.if_else(unsure_platform, _platform_reason(rows, self.scope), out)
        out = pc.if_else(pc.fill_null(unknown, False), pa.scalar(REASON_UNKNOWN, TEXT), out)
        return pc.if_else(pc.is_valid(out), out, none)

    def _count(
        self,
        rows: pa.Table,
        elsewhere: Any,
        replay: Any,
        rejected: Any,
        live: Any,
        affected: Any,
        possibly: Any,
        over: Any,
    ) -> None:
        n_else, n_aff, n_pos = _sum(elsewhere), _sum(affected), _sum(possibly)
        n_replay, n_rejected = _sum(replay), _sum(rejected)
        over_key = EXCLUDED_OVER if cut(self.scope) else EXCLUDED_NO_TRIGGER  # 0: no trigger
        self.verdicts.update(
            {
                "affected": n_aff,
                "possibly_affected": n_pos,
                "not_affected": _sum(live) - n_aff - n_pos,
                "cache_replay": n_replay,
                "rejected_before_inference": n_rejected,
                "served_elsewhere": n_else,
            }
        )
        self.excluded.update(
            {
                EXCLUDED_ELSEWHERE: n_else,
                EXCLUDED_REPLAY: n_replay,
                EXCLUDED_REJECTED: n_rejected,
                over_key: _sum(pc.and_(live, over)),
            }
        )
        if n_else:
            stated = self.scope.served_by_stated and self.scope.serving_platform
            blank = f"--served-by {stated}" if stated else "(by the preset or endpoint)"
            provider = pc.fill_null(_text(rows.column("provider")), blank)
            names = provider.filter(elsewhere).to_pylist()
            self.elsewhere.update(names)

    def _keep_sources(self, rows: pa.Table, platform: Any) -> None:
        if not rows.num_rows:
            return
        account = rows.column("account_id")
        self.sources.append(
            pa.table(
                {
                    "timestamp": rows.column("timestamp"),
                    "request_id": _blank_null(rows.column("request_id")),
                    "account_id": _blank_null(account),
                    "prompt_tokens": rows.column("prompt_tokens"),
                    "output_tokens": count_column(rows.column("output_tokens")),
                    "platform": platform,
                }
            )
        )

    def merge(self, other: Exposure) -> None:
        """Add what ``other`` counted and kept, after this one's."""
        self.verdicts.update(other.verdicts)
        self.excluded.update(other.excluded)
        self.elsewhere.update(other.elsewhere)
        self.reasons.update(other.reasons)
        self.sources.extend(other.sources)
        self.over_possibly += other.over_possibly
        self.overlap.merge(other.overlap)

    def own_overlap(self) -> OwnOverlap:
        """Return the matching of our prompts in over-length responses; turned off
        (``--no-own-overlap``), not assessable and saying so."""
        own = self.overlap.result()
        if self.scope.own_overlap:
            return own
        return own.model_copy(update={"status": "not_assessable", "why": OVERLAP_OFF})

    def source_table(self) -> pa.Table:
        """Return the source set S, by time then request id."""
        if not self.sources:
            return pa.table(
                {
                    name: pa.array(
                        [], pa.int64() if "tokens" in name or name == "timestamp" else TEXT
                    )
                    for name in SOURCE_COLUMNS
                }
            )
        # by time, id, then the rest (ties: every column): one order whether rows came serially,
        # from workers or an engine
        table = pa.concat_tables(self.sources)
        return table.take(pc.sort_indices(table, [(name, "ascending") for name in SOURCE_COLUMNS]))


def _blank_null(column: Any) -> Any:
    return pc.if_else(pc.equal(column, ""), pa.scalar(None, column.type), column)


def _sum(mask: Any) -> int:
    return int(pc.sum(pc.fill_null(mask, False)).as_py() or 0)
