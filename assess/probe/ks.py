"""One-sided two-sample Kolmogorov-Smirnov test, in our own code (no scipy at run time).

The cache audit asks: are *hit* latencies stochastically smaller than *miss* latencies? The
statistic is ``D+ = max_t (F_hit(t) - F_miss(t))`` over the pooled sample, the empirical CDFs
taken with ties counted (``side='right'``), exactly as ``scipy.stats.ks_2samp(hits, misses,
alternative='greater')`` computes it. The p-value is:

* exact when ``n_hit * n_miss <= EXACT_MAX_CELLS``: the share of the ``C(n+m, n)`` equally likely
  orderings (lattice paths) whose CDF difference reaches ``D+`` somewhere, counted with Python's
  exact integers (scipy counts in floats; both agree to rounding);
* otherwise Hodges' asymptotic formula (his eq. 5.3), the one scipy uses in ``asymp`` mode.

scipy stays exact up to 10,000 per sample; above ``EXACT_MAX_CELLS`` we switch earlier to keep
the run fast. Ties between the samples are taken as they come (the test assumes continuous data).
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from fractions import Fraction

EXACT_MAX_CELLS = 250_000


@dataclass(frozen=True)
class KsResult:
    """The statistic D+, its p-value and how the p-value was computed."""

    statistic: float
    p_value: float
    method: str


def _d_plus_scaled(hits: list[float], misses: list[float]) -> int:
    """Return ``D+ * n * m`` as an integer (a CDF difference is a multiple of ``1 / (n m)``)."""
    a, b = sorted(hits), sorted(misses)
    n, m = len(a), len(b)
    best = 0
    for t in a + b:
        i = bisect.bisect_right(a, t)
        j = bisect.bisect_right(b, t)
        best = max(best, i * m - j * n)
    return best


def _exact_p(n: int, m: int, h: int) -> float:
    """Return P(D+ >= h / lcm) under the null: paths reaching ``i*(L/n) - j*(L/m) >= h``."""
    lcm = n * m // math.gcd(n, m)
    step_i, step_j = lcm // n, lcm // m
    # inside[j] = paths from (0, 0) to (i, j) that stayed below h (i hits, j misses so far)
    inside = [1 if -j * step_j < h else 0 for j in range(m + 1)]
    for j in range(1, m + 1):
        inside[j] = inside[j - 1] if inside[j] else 0
    for i in range(1, n + 1):
        row = [0] * (m + 1)
        for j in range(m + 1):
            if i * step_i - j * step_j >= h:
                continue
            row[j] = inside[j] + (row[j - 1] if j else 0)
        inside = row
    total = math.comb(n + m, n)
    return float(Fraction(total - inside[m], total))


def _asymptotic_p(n: int, m: int, d: float) -> float:
    big, small = float(max(n, m)), float(min(n, m))
    en = big * small / (big + small)
    z = math.sqrt(en) * d
    expt = -2 * z**2 - 2 * z * (big + 2 * small) / math.sqrt(big * small * (big + small)) / 3.0
    return min(1.0, max(0.0, math.exp(expt)))


def ks_less_than(hits: list[float], misses: list[float]) -> KsResult:
    """Test whether ``hits`` tend to be smaller than ``misses`` (one-sided, two-sample KS).

    Raises:
        ValueError: when either sample is empty.
    """
    n, m = len(hits), len(misses)
    if not n or not m:
        raise ValueError("the KS test needs at least one value in each sample")
    scaled = _d_plus_scaled(hits, misses)
    lcm = n * m // math.gcd(n, m)
    h = round(Fraction(scaled, n * m) * lcm)
    d = h / lcm
    if h == 0:
        return KsResult(0.0, 1.0, "exact")
    if n * m <= EXACT_MAX_CELLS:
        return KsResult(d, _exact_p(n, m, h), "exact")
    return KsResult(d, _asymptotic_p(n, m, d), "asymptotic")


def smallest_reachable_p(n: int, m: int) -> float:
    """Return the p-value of complete separation: the best any run of this size can show."""
    return 1.0 / math.comb(n + m, n) if n * m <= EXACT_MAX_CELLS else _asymptotic_p(n, m, 1.0)


def samples_needed(d: float, alpha: float) -> int | None:
    """Return about how many samples per arm an effect of size ``d`` needs to reach ``alpha``
    (equal arms, from the asymptotic bound ``p ~ exp(-n d^2)``); None when ``d`` is 0."""
    if d <= 0:
        return None
    return math.ceil(math.log(1 / alpha) / d**2)
