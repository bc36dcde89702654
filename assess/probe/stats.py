"""Upper bounds on a leak rate from hits in probes (pure, stdlib only).

The headline number is the exact one-sided 95% Clopper-Pearson upper bound: the largest leak
rate p for which seeing this few hits still has probability >= 5%. With 0 hits in N probes it is
``1 - 0.05 ** (1 / N)``, which the "rule of three" (3/N) approximates from above; both are given,
and the Wilson score bound for comparison.
"""

from __future__ import annotations

import math

METHOD = "clopper-pearson exact, one-sided 95%"
ALPHA = 0.05
_Z_ONE_SIDED_95 = 1.6448536269514722


def _binom_cdf(hits: int, n: int, p: float) -> float:
    """Return P(X <= hits) for X ~ Binomial(n, p)."""
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0 if hits < n else 1.0
    log_p, log_q = math.log(p), math.log1p(-p)
    total = 0.0
    for k in range(hits + 1):
        log_term = (
            math.lgamma(n + 1)
            - math.lgamma(k + 1)
            - math.lgamma(n - k + 1)
            + k * log_p
            + (n - k) * log_q
        )
        total += math.exp(log_term)
    return min(total, 1.0)


def clopper_pearson_upper(hits: int, n: int, alpha: float = ALPHA) -> float:
    """Return the exact one-sided (1 - alpha) upper bound on p for ``hits`` of ``n``.

    Raises:
        ValueError: when n < 1 or hits is outside 0..n.
    """
    if n < 1 or not 0 <= hits <= n:
        raise ValueError(f"need 0 <= hits <= n and n >= 1 (got {hits} of {n})")
    if hits == n:
        return 1.0
    if hits == 0:
        return 1.0 - float(alpha ** (1.0 / n))
    lo, hi = hits / n, 1.0
    for _ in range(100):  # bisection to well below float resolution of a rate
        mid = (lo + hi) / 2
        if _binom_cdf(hits, n, mid) > alpha:
            lo = mid
        else:
            hi = mid
    return hi


def wilson_upper(hits: int, n: int, z: float = _Z_ONE_SIDED_95) -> float:
    """Return the Wilson score one-sided 95% upper bound on p.

    Raises:
        ValueError: when n < 1.
    """
    if n < 1:
        raise ValueError("n must be >= 1")
    phat = hits / n
    denom = 1 + z * z / n
    centre = phat + z * z / (2 * n)
    spread = z * math.sqrt(phat * (1 - phat) / n + z * z / (4 * n * n))
    return min(1.0, (centre + spread) / denom)


def rule_of_three(n: int) -> float:
    """Return 3/N, the textbook 95% upper bound for 0 events in N trials (capped at 1)."""
    return min(1.0, 3.0 / n)
