"""Upper bounds on the leak rate."""

from __future__ import annotations

import math

import pytest

from assess.probe.result import compute_stats
from assess.probe.stats import clopper_pearson_upper, rule_of_three, wilson_upper


@pytest.mark.parametrize("n", [1, 3, 17, 100, 3000])
def test_zero_hits_bound_is_exact_and_below_rule_of_three(n: int) -> None:
    bound = clopper_pearson_upper(0, n)
    assert math.isclose(bound, 1 - 0.05 ** (1 / n))
    assert bound <= rule_of_three(n)


def test_known_clopper_pearson_values() -> None:
    # one-sided 95% upper bounds = qbeta(0.95, x+1, n-x); checked by numeric integration
    assert clopper_pearson_upper(1, 10) == pytest.approx(0.39416, abs=1e-4)
    assert clopper_pearson_upper(5, 20) == pytest.approx(0.45558, abs=1e-4)
    assert clopper_pearson_upper(20, 20) == 1.0


def test_wilson_is_between_the_rate_and_one() -> None:
    assert 0.1 < wilson_upper(1, 10) < 0.5
    assert wilson_upper(0, 100) == pytest.approx(0.02634, abs=1e-4)


def test_bad_counts_are_refused() -> None:
    with pytest.raises(ValueError):
        clopper_pearson_upper(3, 2)
    with pytest.raises(ValueError):
        wilson_upper(0, 0)


def test_stats_document_says_which_method() -> None:
    stats = compute_stats(hits=0, probes=100)
    assert stats.leak_rate_upper_95 == pytest.approx(0.029513, abs=1e-6)
    assert stats.rule_of_three == 0.03
    assert "clopper-pearson" in stats.method
    empty = compute_stats(hits=0, probes=0)
    assert empty.leak_rate_upper_95 is None and empty.rule_of_three is None
