"""The chance that a leaked response carried our data: a range, its inputs and its method.

Exact arithmetic (``fractions.Fraction`` over Python integers): no float is rounded and no count
overflows before the bounds are written. See docs/exposure.md for the derivation.

* lower = min(1, L_low x |S| / N): each leak copied one earlier request chosen uniformly among N.
* upper = min(1, L x sum over S of (C + f_i) / V): each leak attended over a pool of at most C
  tokens lying anywhere in the platform's V tokens; a request of f_i tokens overlaps it with
  probability (C + f_i) / V; summed over S (a union bound).
"""

from __future__ import annotations

import math
from fractions import Fraction

import pyarrow as pa
import pyarrow.compute as pc

from assess.kernel.errors import UsageError
from assess.scope.exposure_models import Assumption, ExposureRange, Ratio
from assess.scope.models import ScopeFilter

NOT_THE_ADVISORY = (
    "the filter is not the advisory's (--model, --since, --until or --min-prompt-tokens "
    "replaced its values): its leaked count and pool size are facts about another question"
)
GIVE_N = "lower: give --platform-requests for N"
GIVE_V = "upper: give --platform-tokens or --platform-mean-tokens for V"
#: The range with neither N nor V given (no estimate at all).
NOT_COMPUTED = f"not computed: {GIVE_N}; {GIVE_V}"
ASSUMPTIONS = (
    (
        "lower: each leaked response copied one whole earlier request chosen uniformly among "
        "the platform's N in-window requests",
        "down: a leak attended over a whole pool written by many requests",
    ),
    (
        "upper: each leaked response attended over a stale pool of at most C tokens (the "
        "advertised context) lying anywhere in the platform's V tokens of the window; a "
        "request of f_i tokens overlaps it with probability (C + f_i) / V",
        "up: the pool held 681,280 tokens, C is the larger advertised context",
    ),
    (
        "upper: the chances are added over the requests of S (a union bound), capped at 1",
        "up: requests read by the same leak are counted once each",
    ),
    (
        "f_i = prompt + output tokens; C where either count is unknown (a request never "
        "exceeds the context)",
        "up",
    ),
    (
        "L_others: the lower bound takes our own over-trigger requests (affected or possibly "
        "affected) away from L (a leak to us shows others' data to us, not ours to others); "
        "the upper bound keeps all L",
        "lower down, upper up",
    ),
    (
        "requests whose platform cannot be told are counted in S",
        "up, when they were in fact served elsewhere",
    ),
    (
        "N and V are the provider's counts for this model in the window, as given",
        "either way: a wrong N or V moves both bounds",
    ),
)


def ratio(value: Fraction) -> Ratio:
    """Return ``value`` as an exact :class:`Ratio`."""
    return Ratio(numerator=value.numerator, denominator=value.denominator, value=float(value))


def percent(value: Fraction) -> str:
    """Return ``value`` as a percentage with two significant digits, never in exponent form
    (``0.051%``, ``2.1%``, ``46%``, ``100%``): the one formatter of the range's bounds."""
    rounded = float(f"{float(value) * 100:.2g}")
    if rounded == 0:
        return "0%"
    digits = max(0, 1 - math.floor(math.log10(abs(rounded))))
    return f"{rounded:.{digits}f}%"


def footprints(sources: pa.Table, context: int) -> tuple[int, int]:
    """Return (sum over S of C + f_i, requests whose f_i is taken as C)."""
    prompt, output = sources.column("prompt_tokens"), sources.column("output_tokens")
    known = pc.and_(pc.is_valid(prompt), pc.is_valid(output))
    unknown = sources.num_rows - int(pc.sum(known).as_py() or 0)
    sizes = pc.add_checked(prompt.filter(known).cast(pa.int64()), output.filter(known))
    # summed as Python integers: int64 could overflow on adversarial counts
    total = sum(int(v) for v in sizes.to_pylist())
    return context * sources.num_rows + total + context * unknown, unknown


def check_statement(
    platform_requests: int | None, platform_tokens: int | None, mean_tokens: int | None
) -> tuple[int | None, int | None, int | None]:
    """Return (N, V, V / N) as given, checked before any log is read.

    Raises:
        UsageError: V / N without N (V = N x mean needs N).
    """
    if mean_tokens is not None and platform_requests is None:
        raise UsageError(
            f"--platform-mean-tokens {mean_tokens:,} needs --platform-requests: V is N x the "
            "mean, and without N neither bound can be computed",
            "Add --platform-requests N (the provider's requests for the model in the window), "
            "or give V itself with --platform-tokens.",
        )
    return platform_requests, platform_tokens, mean_tokens


def platform_volume(
    platform_requests: int | None, platform_tokens: int | None, mean_tokens: int | None
) -> tuple[int | None, str | None]:
    """Return (V, where it came from)."""
    if platform_tokens is not None:
        return platform_tokens, "--platform-tokens"
    if mean_tokens is not None and platform_requests is not None:
        return platform_requests * mean_tokens, "N x --platform-mean-tokens"
    return None, None


def exposure_range(
    scope: ScopeFilter,
    sources: pa.Table,
    ours_over: int,
    platform_requests: int | None,
    platform_tokens: int | None = None,
    mean_tokens: int | None = None,
) -> ExposureRange | None:
    """Return the range, or None when no platform figure was given.

    Raises:
        UsageError: N below |S|, or V larger than N x C (a mean request over the context).
    """
    if platform_requests is None and platform_tokens is None:
        return None
    size, context = sources.num_rows, scope.context_tokens or 0
    footprint, unknown = footprints(sources, context)
    volume, volume_source = platform_volume(platform_requests, platform_tokens, mean_tokens)
    leaked = scope.leaked_responses
    base = {
        "leaked_responses": leaked,
        "platform_requests": platform_requests,
        "platform_tokens": volume,
        "platform_tokens_source": volume_source,
        "context_tokens": scope.context_tokens,
        "sources": size,
        "footprint_tokens": footprint,
        "footprints_unknown": unknown,
        "assumptions": [Assumption(assumption=a, bias=b) for a, b in ASSUMPTIONS],
    }
    why = _why_not(scope)
    if why is not None:
        return ExposureRange(
            applies=False,
            why_not=why,
            leaked_to_others_low=None,
            leaked_to_others_high=None,
            formula=f"not shown: {why}",
            **base,
        )
    assert leaked is not None
    _check(platform_requests, volume, size, context)
    low_l = max(0, leaked - ours_over)
    lower, upper, formula = _bounds(
        (low_l, leaked), size, platform_requests, (footprint, volume), (context, unknown)
    )
    return ExposureRange(
        applies=True,
        leaked_to_others_low=low_l,
        leaked_to_others_high=leaked,
        lower=ratio(lower) if lower is not None else None,
        upper=ratio(upper) if upper is not None else None,
        formula=formula,
        **base,
    )


def _bounds(
    leaked: tuple[int, int],
    size: int,
    platform_requests: int | None,
    volume: tuple[int, int | None],
    context: tuple[int, int],
) -> tuple[Fraction | None, Fraction | None, str]:
    """Return (lower, upper, the formula with its numbers); a bound whose input is missing is
    None. ``leaked``: (L_others, L); ``volume``: (sum of C + f_i, V); ``context``: (C, unknown)."""
    (low_l, high_l), (footprint, tokens), (c, unknown) = leaked, volume, context
    lower = upper = None
    parts = []
    if platform_requests is not None:
        lower = min(Fraction(1), Fraction(low_l * size, platform_requests))
        parts.append(
            f"lower = L_others x |S| / N = {low_l:,} x {size:,} / {platform_requests:,} "
            f"= {percent(lower)}"
        )
    else:
        parts.append(GIVE_N)
    if tokens is not None:
        upper = min(Fraction(1), Fraction(high_l * footprint, tokens))
        parts.append(
            f"upper = min(1, L x sum(C + f_i) / V) = min(1, {high_l:,} x {footprint:,} / "
            f"{tokens:,}) = {percent(upper)} (C = {c:,}; f_i = prompt + output tokens, "
            f"C for {unknown:,} unknown)"
        )
    else:
        parts.append(GIVE_V)
    return lower, upper, "; ".join(parts)


def no_range(scope: ScopeFilter) -> str:
    """Return what the range reads when neither N nor V was given: which options give it, or
    why it is not shown for this filter."""
    why = _why_not(scope)
    return NOT_COMPUTED if why is None else f"not shown: {why}"


def _why_not(scope: ScopeFilter) -> str | None:
    if scope.advisory_id is None or scope.leaked_responses is None:
        return (
            "the advisory gives no count of leaked responses"
            if scope.advisory_id
            else "no advisory with a count of leaked responses"
        )
    if not scope.advisory_filter:
        return NOT_THE_ADVISORY
    if not scope.context_tokens:
        return "the advisory gives no pool or context size (C)"
    return None


def _check(platform_requests: int | None, volume: int | None, size: int, context: int) -> None:
    if platform_requests is not None and platform_requests < max(size, 1):
        raise UsageError(
            f"--platform-requests {platform_requests:,} is below our own {size:,} requests that "
            "could have been read",
            "Give the provider's total request count for the model in the window.",
        )
    if (
        volume is not None
        and platform_requests is not None
        and volume > platform_requests * context
    ):
        raise UsageError(
            f"V = {volume:,} tokens over {platform_requests:,} requests is more than the context "
            f"({context:,}) per request",
            "Check --platform-tokens / --platform-mean-tokens: they are the platform's tokens "
            "(prompt + output) for the model in the window.",
        )
