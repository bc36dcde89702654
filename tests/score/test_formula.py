"""The score is recomputable from the findings; scoring is a pure function."""

from __future__ import annotations

import re

import pytest

from assess.advisories.catalogue import load_advisories
from assess.kernel.common import Severity
from assess.vendor.answers_file import load_answers_and_bank
from assess.vendor.scoring import score_answers
from assess.vendor.scoring.models import Tier
from tests.conftest import REPO
from tests.score.test_samples import score_sample


def recompute(formula: str, severities: list[str]) -> tuple[int, str]:
    """Recompute score and tier from the formula text alone, as a reader of the report would."""
    cap = int(re.search(r"min\((\d+),", formula).group(1))  # type: ignore[union-attr]
    points = {s: int(p) for p, s in re.findall(r"(\d+) x (\w+)", formula)}
    score = min(cap, sum(points[s] for s in severities))
    thresholds = {t: int(v) for t, v in re.findall(r"(\w+) if score >= (\d+)", formula)}
    tier = "low"
    for name in ("medium", "high", "critical"):
        if score >= thresholds[name]:
            tier = name
    if "critical" in severities and tier in ("low", "medium"):
        tier = "high"
    return score, tier


@pytest.mark.parametrize("name", ["incident-like", "well-run", "evasive"])
def test_score_and_tier_recompute_from_the_formula(name: str) -> None:
    result = score_sample(name)
    severities = [f.severity.value for f in result.findings]
    assert recompute(result.formula, severities) == (result.score, result.tier.value)
    assert sum(f.points for f in result.findings) >= result.score
    assert sum(result.counts.values()) == len(result.findings)


def test_formula_text_is_documented() -> None:
    formula = score_sample("well-run").formula
    assert formula.startswith(
        "score = min(100, 40 x critical + 15 x high + 5 x medium + 1 x low + 0 x info)"
    )
    assert "any critical finding makes the tier at least high" in formula


def test_one_critical_finding_makes_the_tier_at_least_high() -> None:
    bank, answers = load_answers_and_bank(REPO / "samples" / "vendors" / "well-run.yaml")
    changed = answers.model_copy(
        update={
            "answers": {
                **answers.answers,
                "engine.version": answers.get("engine.version").model_copy(
                    update={"value": "0.5.21"}
                ),
            }
        }
    )
    result = score_answers(bank, changed, load_advisories())
    assert [f.id for f in result.findings if f.severity.value == "critical"] == [
        "advisory.glm-5.3-kv-leak"
    ]
    assert result.score == 41
    assert result.tier is Tier.HIGH
    # with fewer points per critical finding the threshold alone would say "medium"
    points = {**bank.scoring.points, Severity.CRITICAL: 20}
    light = bank.model_copy(update={"scoring": bank.scoring.model_copy(update={"points": points})})
    result = score_answers(light, changed, load_advisories())
    assert result.score == 21
    assert result.tier is Tier.HIGH


def test_scoring_is_pure() -> None:
    bank, answers = load_answers_and_bank(REPO / "samples" / "vendors" / "incident-like.yaml")
    advisories = load_advisories()
    first = score_answers(bank, answers, advisories).model_dump_json()
    assert all(
        score_answers(bank, answers, advisories).model_dump_json() == first for _ in range(3)
    )
