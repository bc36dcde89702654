"""Every shipped vendor sample: exact findings, score and tier."""

from __future__ import annotations

import pytest

from assess.advisories.catalogue import load_advisories
from assess.vendor.answers_file import load_answers_and_bank
from assess.vendor.scoring import score_answers
from assess.vendor.scoring.models import ScoreResult
from tests.conftest import REPO

# Risk from what is known: unknown answers add no points (they lower the coverage instead) and
# claims resting on the vendor's word alone are listed without points (attested-only, info).
INCIDENT = [
    ("advisory.glm-5.3-kv-leak", "critical"),
    ("pool-smaller-than-context.prefill", "critical"),
    # disaggregated SGLang, transfer checksums answered off: the transfer-race advisory, one root
    # cause with disaggregated-transfers-unverified and the checksum control (merged into it)
    ("advisory.sglang-pd-kv-transfer-race", "high"),
    ("control-absent.deployment.pool_checked_after_config_change", "high"),
    ("control-absent.verification.isolation_tested_after_changes", "high"),
    # deferred KV release would offset it, but only attested: the vendor's word offsets nothing
    ("proxy-aborts-disaggregated", "high"),
    ("control-absent.isolation.cross_tenant_leak_monitoring", "medium"),
    ("control-absent.isolation.kv_canaries", "medium"),
    ("control-absent.isolation.page_ownership_tags", "medium"),
    ("control-absent.verification.canary_tests_in_ci", "medium"),
    ("shared-tenancy-only", "medium"),
    ("slow-disclosure", "medium"),
    ("slow-security-patching", "medium"),
    ("control-absent.isolation.kv_page_zeroing", "low"),
    ("advisory-model-served.glm-5.3-kv-leak", "info"),
    # SGLang >= 0.5.18, whether an LMCache tier is used is not answered: cannot tell, no points
    ("advisory-unconfirmed.sglang-lmcache-unsalted", "info"),
    ("attested-only", "info"),
]
WELL_RUN = [
    ("control-absent.isolation.kv_page_zeroing", "low"),
    ("advisory-model-served.glm-5.3-kv-leak", "info"),
    ("advisory-unconfirmed.sglang-lmcache-unsalted", "info"),
]
AFTER_FIX = [
    ("control-absent.isolation.deferred_kv_release", "medium"),
    ("control-absent.isolation.kv_canaries", "medium"),
    ("control-absent.isolation.page_ownership_tags", "medium"),
    ("shared-tenancy-only", "medium"),
    ("slow-disclosure", "medium"),
    ("control-absent.isolation.kv_page_zeroing", "low"),
    ("advisory-model-served.glm-5.3-kv-leak", "info"),
    ("advisory-unconfirmed.sglang-lmcache-unsalted", "info"),
    ("attested-only", "info"),
]
EVASIVE = [
    ("shared-tenancy-only", "medium"),
    ("control-absent.incident.bug_bounty", "low"),
    ("attested-only", "info"),
    ("engine-not-matchable", "info"),
]


def score_sample(name: str) -> ScoreResult:
    bank, answers = load_answers_and_bank(REPO / "samples" / "vendors" / f"{name}.yaml")
    return score_answers(bank, answers, load_advisories())


@pytest.mark.parametrize(
    ("name", "expected", "score", "tier", "verdict"),
    [
        ("incident-like", INCIDENT, 100, "critical", "sufficient"),
        ("well-run", WELL_RUN, 1, "low", "sufficient"),
        ("evasive", EVASIVE, 6, "low", "insufficient-evidence"),
        ("incident-like-after-fix", AFTER_FIX, 26, "medium", "sufficient"),
    ],
)
def test_sample_findings_exactly(
    name: str, expected: list[tuple[str, str]], score: int, tier: str, verdict: str
) -> None:
    result = score_sample(name)
    assert [(f.id, f.severity.value) for f in result.findings] == expected
    assert (result.score, result.tier.value) == (score, tier)
    assert result.evidence_verdict == verdict
    assert not any(f.contradiction for f in result.findings)


def test_incident_like_names_the_advisory_and_the_unbacked_share() -> None:
    result = score_sample("incident-like")
    by_id = {f.id: f for f in result.findings}
    advisory = by_id["advisory.glm-5.3-kv-leak"]
    assert advisory.title == "sglang 0.5.21 (disaggregated) is affected by advisory glm-5.3-kv-leak"
    assert advisory.remediation == "Upgrade sglang to 0.5.22 or later."
    assert advisory.rests_on == ["engine.name", "engine.version", "deployment.mode"]
    pool = by_id["pool-smaller-than-context.prefill"]
    assert "35% of the window has no backing memory" in pool.title
    assert "681,280" in pool.detail and "1,048,576" in pool.detail and "367,296" in pool.detail
    assert pool.evidence_level is not None and pool.evidence_level.value == "attested"


def test_vendor_and_answers_are_in_the_result() -> None:
    result = score_sample("well-run")
    assert result.vendor.name == "Careful Compute GmbH"
    assert result.vendor.service == "Private Inference API"
    assert result.answered_on.isoformat() == "2026-11-02"
    assert result.answers["engine.version"].value == "0.5.22"
    assert result.questionnaire.id == "llm-inference-isolation"


def test_the_evasive_vendor_is_insufficient_evidence_with_its_questions_to_send() -> None:
    result = score_sample("evasive")
    assert result.coverage.share < result.coverage.sufficient_at
    first = [q.id for q in result.questions_to_send[:3]]
    assert first == ["engine.version", "deployment.mode", "deployment.kv_pool_tokens"]
    assert "tenancy.model" not in {q.id for q in result.questions_to_send}  # answered
