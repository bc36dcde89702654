"""What the logs can support: refusing a result with no usable evidence, and the platform share.

Neither runs per row; the accumulator calls :func:`platform_share` once when it builds the result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from assess.kernel.errors import InputError, UsageError
from assess.scope.logs.formats import NOT_READ_ON
from assess.scope.models import (
    AccountsAssessment,
    Assessment,
    ModelCount,
    PlatformShare,
    ScopeFilter,
    ScopeResult,
    SkippedRecord,
)

if TYPE_CHECKING:
    from assess.scope.logs.presets import Preset

Verdict = Literal["affected", "not_affected", "not_assessable"]
#: The exit code of each verdict: a problem found (1), none (0), nothing can be said (2).
EXIT_CODES: dict[Verdict, int] = {"affected": 1, "not_affected": 0, "not_assessable": 2}
#: A required field (timestamp, model) must read in at least this share of the request records,
#: or the logs back no verdict: a wrong --map or preset reads nothing and would count nothing.
MIN_FIELD_SHARE = 0.9
#: More than this share of all records skipped as malformed backs no verdict either.
MAX_SKIPPED_SHARE = 0.5
#: How many model ids (most requests first) the document lists in ``assessment.models_seen``.
MODELS_LISTED = 20
#: Skip reasons (their start) of records that are requests lacking a readable timestamp.
TIMESTAMP_SKIPS = ("missing timestamp", "unparseable timestamp", "no timestamp and no model")


@dataclass(frozen=True)
class Tally:
    """What the accumulator counted that the assessment needs."""

    read: int
    requests: int
    skipped: int
    matched: int
    without_model: int
    skip_reasons: Mapping[str, int]
    models: Mapping[str, int]
    #: The skipped records listed (the first ones, in file order).
    listed: Sequence[SkippedRecord] = ()


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def assess(tally: Tally, scope: ScopeFilter) -> Assessment:
    """Return whether ``tally`` backs a verdict, and why not (``reasons``).

    Not assessable: most records skipped; a required field read in fewer than
    :data:`MIN_FIELD_SHARE` of the request records; no request at all; or requests naming
    models, none of them the advisory's (a spelling the filter does not know looks the same as
    a model never used, so the models seen are listed).
    """
    ts_skips = sum(n for r, n in tally.skip_reasons.items() if r.startswith(TIMESTAMP_SKIPS))
    records = tally.requests + ts_skips
    with_model = tally.requests - tally.without_model
    skipped = _share(tally.skipped, tally.read)
    reasons: list[str] = []
    if not tally.requests:
        first = tally.listed[0] if tally.listed else None
        where = f"{first.file}: " if first is not None else ""
        why = f" (first skipped: line {first.line}: {first.reason})" if first is not None else ""
        reasons.append(f"{where}none of the {tally.read:,} records read is a usable request{why}")
    reasons.extend(_not_read_on(tally))
    if skipped > MAX_SKIPPED_SHARE:
        reasons.append(
            f"{tally.skipped:,} of {tally.read:,} records ({skipped:.0%}) were skipped as "
            f"malformed (more than {MAX_SKIPPED_SHARE:.0%})"
        )
    if records and _share(tally.requests, records) < MIN_FIELD_SHARE:
        reasons.append(
            f"the timestamp was read in {tally.requests:,} of {records:,} request records "
            f"({_share(tally.requests, records):.0%}; at least {MIN_FIELD_SHARE:.0%} needed)"
        )
    if tally.requests and _share(with_model, tally.requests) < MIN_FIELD_SHARE:
        reasons.append(
            f"the model was read in {with_model:,} of {tally.requests:,} requests "
            f"({_share(with_model, tally.requests):.0%}; at least {MIN_FIELD_SHARE:.0%} needed)"
        )
    if with_model and not tally.matched:
        reasons.append(
            f"no request names {', '.join(scope.model_names)} although {with_model:,} name a "
            "model (see the models seen: another spelling of it needs --model)"
        )
    ranked = sorted(tally.models.items(), key=lambda kv: (-kv[1], kv[0]))[:MODELS_LISTED]
    return Assessment(
        reasons=reasons,
        request_records=records,
        timestamp_read=tally.requests,
        model_read=with_model,
        skipped_share=round(skipped, 6),
        thresholds={"min_field_share": MIN_FIELD_SHARE, "max_skipped_share": MAX_SKIPPED_SHARE},
        models_seen=[ModelCount(model=m, requests=n) for m, n in ranked],
    )


def _not_read_on(tally: Tally) -> list[str]:
    """Return why the logs back no all-clear when a file was not read to its end (a skip reason
    ending in :data:`~assess.scope.logs.formats.NOT_READ_ON`): the records after that point are
    not counted, so "not affected" would speak for records never read."""
    stops = sum(n for reason, n in tally.skip_reasons.items() if NOT_READ_ON in reason)
    if not stops:
        return []
    named = [f"{s.file} at line {s.line}" for s in tally.listed if NOT_READ_ON in s.reason]
    where = f" ({', '.join(named[:5])})" if named else ""
    return [
        f"{stops:,} input file(s) not read to the end{where}: the records after that point "
        "are not counted, so no all-clear can be given; repair or re-export the file"
    ]


def require_evidence(result: ScopeResult, preset: str) -> None:
    """Refuse a result with no record at all (empty files): there is no document to write.
    Logs with records but no usable request get the verdict ``not_assessable`` (:func:`assess`).

    Raises:
        InputError: naming the files and what to check.
    """
    counts = result.counts
    if counts.records_read == 0:
        names = ", ".join(f.path for f in result.inputs) or "the logs"
        raise InputError(
            f"{names}: no record at all (empty logs)",
            "Check that the export finished and that these are the files you meant; nothing "
            "can be said about exposure from empty logs.",
        )


class NotAssessable(InputError):
    """The logs back no verdict (``result.verdict`` is ``not_assessable``; the reasons are in
    ``result.assessment.reasons``): raised by :func:`scope_logs`, so that a caller who does
    not look at the verdict cannot read "0 affected" as an all-clear."""

    def __init__(self, result: ScopeResult) -> None:
        reasons = "; ".join(result.assessment.reasons)
        super().__init__(
            f"the logs back no verdict: {reasons}",
            f"Check --preset (this run used {result.preset}) and --map; `assess scope --explain` "
            "shows where each field was read.",
        )
        self.result = result


def with_reading(result: ScopeResult, preset: Preset) -> ScopeResult:
    """``result`` with what its ``reading`` shows: accounts not assessable when their side
    table is missing (:func:`accounts_assessment`), and not-assessable reasons naming the
    required fields no candidate path of ``preset`` found in a file."""
    accounts = accounts_assessment(result, preset)
    if accounts.verdict != "assessable":
        result = result.model_copy(update={"accounts_assessment": accounts})
    if result.verdict != "not_assessable":
        return result
    lacking = [
        f"{reading.file}: no {field.field} at any of its paths "
        f"({', '.join(preset.fields.get(field.field, [])[:6])}) with preset {result.preset}"
        for reading in result.reading
        for field in reading.fields
        if field.field in ("timestamp", "model") and not field.records_with_value
    ]
    if not lacking:
        return result
    assessment = result.assessment.model_copy(
        update={"reasons": [*result.assessment.reasons, *lacking]}
    )
    return result.model_copy(update={"assessment": assessment})


def accounts_assessment(result: ScopeResult, preset: Preset) -> AccountsAssessment:
    """Return whether ``result`` could tell accounts: not when ``preset`` takes them only from
    a joined side table and no input file was read as one (an Azure APIM LLM log without its
    ApiManagementGatewayLogs export would otherwise show every request with no account)."""
    join = preset.join
    if join is None or "account_id" not in join.fields or "account_id" in preset.fields:
        return AccountsAssessment()
    if any(reading.role == "side table" for reading in result.reading):
        return AccountsAssessment()
    table = join.detect.name or "the side table"
    return AccountsAssessment(
        verdict="not_assessable",
        reason=(
            f"preset {preset.id} takes each request's account from its side table ({table}, "
            f"joined on {join.key}), and no input is that table: accounts cannot be told. "
            f"Give that table's export in the same run."
        ),
    )


def platform_share(
    scope: ScopeFilter, ours: int, platform_requests: int | None
) -> PlatformShare | None:
    """The chance that a leaked response carried our data, given the provider's request count.

    ``ours`` is our own in-window request count to the model.

    Raises:
        UsageError: when the advisory publishes no leaked count, or ``platform_requests`` is
            below ``ours``.
    """
    if platform_requests is None:
        return None
    leaked = scope.leaked_responses
    if leaked is None:
        raise UsageError(
            "--platform-requests needs the advisory's count of leaked responses",
            "Use --incident with an advisory that publishes leaked_responses.",
        )
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
