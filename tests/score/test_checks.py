"""Computed checks: advisories, pool against context, unknowns, attested-only claims."""

from __future__ import annotations

import pytest

from assess.advisories.catalogue import load_advisories
from assess.kernel.common import EvidenceLevel
from assess.kernel.errors import InputError
from assess.kernel.structured import parse_yaml
from assess.vendor.answers import AnswerSet
from assess.vendor.answers_check import check_answers
from assess.vendor.bank import shipped_questionnaire
from assess.vendor.scoring import score_answers

BANK = shipped_questionnaire()


def answers(body: str) -> AnswerSet:
    doc = parse_yaml("vendor: V\ndate: 2026-11-01\nanswers:\n" + body, "a.yaml")
    return check_answers(doc.data, doc.where, BANK)


def findings(body: str) -> dict[str, str]:
    result = score_answers(BANK, answers(body), load_advisories())
    return {f.id: f.severity.value for f in result.findings}


@pytest.mark.parametrize(
    ("engine", "version", "mode", "expected"),
    [
        ("sglang", "0.5.21", "disaggregated", ("advisory.glm-5.3-kv-leak", "critical")),
        ("sglang", "v0.5.21.post1", "disaggregated", ("advisory.glm-5.3-kv-leak", "critical")),
        ("sglang", "0.5.20", "disaggregated", ("advisory.glm-5.3-kv-leak", "critical")),
        # PEP 440 leaves 0.5.22rc1 outside "<0.5.22"; a release candidate of the fix is not the
        # fix, so it is flagged
        ("sglang", "0.5.22rc1", "disaggregated", ("advisory.glm-5.3-kv-leak", "critical")),
        ("sglang", "0.5.22.post1", "disaggregated", None),
        # an unknown version or mode cannot rule it out, and is not risk: info, no points
        ("sglang", "unknown", "disaggregated", ("advisory-unconfirmed.glm-5.3-kv-leak", "info")),
        ("sglang", "0.5.21", "unknown", ("advisory-unconfirmed.glm-5.3-kv-leak", "info")),
        ("sglang", "0.5.22", "disaggregated", None),
        ("sglang", "0.5.21", "aggregated", None),
        ("vllm", "0.5.21", "disaggregated", None),
    ],
)
def test_advisory_rule(
    engine: str, version: str, mode: str, expected: tuple[str, str] | None
) -> None:
    found = findings(
        f"  engine.name: {engine}\n  engine.version: '{version}'\n  deployment.mode: {mode}\n"
    )
    advisory = {k: v for k, v in found.items() if k.endswith(".glm-5.3-kv-leak")}
    assert advisory == (dict([expected]) if expected else {})


def test_pool_check_reports_the_unbacked_share_per_role() -> None:
    body = (
        "  deployment.mode: disaggregated\n"
        "  deployment.advertised_context_tokens: 1048576\n"
        "  deployment.kv_pool_tokens: {prefill: 681280, decode: 900000}\n"
    )
    result = score_answers(BANK, answers(body), load_advisories())
    # Both rest on the same answers: one row (the worst), the decode finding merged into it.
    heads = [f for f in result.findings if f.id.startswith("pool-")]
    assert [f.id for f in heads] == ["pool-smaller-than-context.prefill"]
    assert "pool-smaller-than-context.decode" in heads[0].detail
    pools = {f.id: f for f in (*heads, *heads[0].merged) if f.id.startswith("pool-")}
    assert {k: f.severity.value for k, f in pools.items()} == {
        "pool-smaller-than-context.prefill": "critical",
        "pool-smaller-than-context.decode": "high",
    }
    assert "35% of the window" in pools["pool-smaller-than-context.prefill"].title
    assert "14% of the window" in pools["pool-smaller-than-context.decode"].title


def test_pool_at_least_the_context_is_fine() -> None:
    found = findings(
        "  deployment.advertised_context_tokens: 1048576\n"
        "  deployment.kv_pool_tokens: {aggregated: 1048576}\n"
    )
    assert not any(k.startswith("pool-") for k in found)


def test_unknown_answers_are_questions_to_send_not_risk_points() -> None:
    result = score_answers(BANK, answers(""), load_advisories())
    assert result.score == 0 and result.tier.value == "low"
    # the engine is not named: every engine advisory is "cannot tell" (info, no points)
    assert result.findings and all(
        f.id.startswith("advisory-unconfirmed.") and f.points == 0 for f in result.findings
    )
    assert result.coverage.share == 0 and result.evidence_verdict == "insufficient-evidence"
    asked = [q.id for q in result.questions_to_send]
    assert len(asked) == len(BANK.questions)
    # weightiest first: a critical question before a control, a control before a name
    assert asked.index("engine.version") < asked.index("isolation.kv_canaries")
    assert asked.index("isolation.kv_canaries") < asked.index("vendor.name")
    assert {q.priority.value for q in result.questions_to_send[:5]} == {"high"}


def test_attested_claims_are_listed_without_points_and_counted_by_evidence_level() -> None:
    attested = score_answers(
        BANK,
        answers("  isolation.kv_canaries: {value: yes, evidence: attested}\n"),
        load_advisories(),
    )
    documented = score_answers(
        BANK,
        answers("  isolation.kv_canaries: {value: yes, evidence: documented}\n"),
        load_advisories(),
    )
    own = [f for f in attested.findings if not f.id.startswith("advisory-unconfirmed.")]
    assert {f.id: f.severity.value for f in own} == {"attested-only": "info"}
    assert attested.score == 0 and "attested-only" not in {f.id for f in documented.findings}
    assert attested.coverage.by_evidence[EvidenceLevel.ATTESTED] > 0
    assert documented.coverage.by_evidence[EvidenceLevel.DOCUMENTED] > 0
    assert attested.coverage.share == documented.coverage.share > 0


def test_bad_version_in_answers_is_an_input_error_naming_the_line() -> None:
    with pytest.raises(InputError, match=r"a\.yaml:5: engine\.version: version: 'next' is not"):
        answers("  engine.name: sglang\n  engine.version: next\n")
