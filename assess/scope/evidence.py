"""What the logs can support: refusing a result with no usable evidence, and the platform share.

Neither runs per row; the accumulator calls :func:`platform_share` once when it builds the result.
"""

from __future__ import annotations

from assess.kernel.errors import InputError, UsageError
from assess.scope.models import PlatformShare, ScopeFilter, ScopeResult


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
