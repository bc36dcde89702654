"""Every shipped vendor sample: exact findings, score and tier."""

from __future__ import annotations

import pytest

from assess.advisories.catalogue import load_advisories
from assess.vendor.answers_file import load_answers_and_bank
from assess.vendor.scoring import score_answers
from assess.vendor.scoring.models import ScoreResult
from tests.conftest import REPO

INCIDENT = [
    ("advisory.glm-5.3-kv-leak", "critical"),
    ("pool-smaller-than-context.prefill", "critical"),
    ("control-absent.deployment.pool_checked_after_config_change", "high"),
    ("control-absent.verification.isolation_tested_after_changes", "high"),
    ("disaggregated-transfers-unverified", "high"),
    ("proxy-aborts-disaggregated", "high"),
    ("unknown-answer.isolation.rejects_over_length_at_admission", "high"),
    ("control-absent.isolation.cross_tenant_leak_monitoring", "medium"),
    ("control-absent.isolation.kv_canaries", "medium"),
    ("control-absent.isolation.page_ownership_tags", "medium"),
    ("control-absent.verification.canary_tests_in_ci", "medium"),
    ("shared-tenancy-only", "medium"),
    ("slow-disclosure", "medium"),
    ("slow-security-patching", "medium"),
    ("unknown-answer.incident.notifies_affected_customers", "medium"),
    ("attested-only", "low"),
    ("control-absent.isolation.kv_page_zeroing", "low"),
    ("unknown-answer.isolation.kv_transfer_batch_capped", "low"),
    ("unknown-answer.verification.third_party_isolation_audit", "low"),
    ("advisory-model-served.glm-5.3-kv-leak", "info"),
]
WELL_RUN = [
    ("control-absent.isolation.kv_page_zeroing", "low"),
    ("advisory-model-served.glm-5.3-kv-leak", "info"),
]
AFTER_FIX = [
    ("control-absent.isolation.deferred_kv_release", "medium"),
    ("control-absent.isolation.kv_canaries", "medium"),
    ("control-absent.isolation.page_ownership_tags", "medium"),
    ("shared-tenancy-only", "medium"),
    ("slow-disclosure", "medium"),
    ("attested-only", "low"),
    ("control-absent.isolation.kv_page_zeroing", "low"),
    ("unknown-answer.verification.third_party_isolation_audit", "low"),
    ("advisory-model-served.glm-5.3-kv-leak", "info"),
]
EVASIVE = [
    ("unknown-answer.deployment.kv_pool_tokens", "high"),
    ("unknown-answer.deployment.mode", "high"),
    ("unknown-answer.deployment.pool_checked_after_config_change", "high"),
    ("unknown-answer.engine.version", "high"),
    ("unknown-answer.isolation.rejects_over_length_at_admission", "high"),
    ("shared-tenancy-only", "medium"),
    ("unknown-answer.incident.notifies_affected_customers", "medium"),
    ("unknown-answer.isolation.cross_tenant_leak_monitoring", "medium"),
    ("unknown-answer.isolation.deferred_kv_release", "medium"),
    ("unknown-answer.isolation.kv_canaries", "medium"),
    ("unknown-answer.isolation.page_ownership_tags", "medium"),
    ("unknown-answer.isolation.prefix_cache_salted_per_tenant", "medium"),
    ("unknown-answer.isolation.proxy_aborts_mid_transfer", "medium"),
    ("unknown-answer.isolation.transfer_checksums", "medium"),
    ("unknown-answer.verification.canary_tests_in_ci", "medium"),
    ("attested-only", "low"),
    ("control-absent.incident.bug_bounty", "low"),
    ("unknown-answer.isolation.kv_transfer_batch_capped", "low"),
    ("unknown-answer.verification.third_party_isolation_audit", "low"),
    ("engine-not-matchable", "info"),
]


def score_sample(name: str) -> ScoreResult:
    bank, answers = load_answers_and_bank(REPO / "samples" / "vendors" / f"{name}.yaml")
    return score_answers(bank, answers, load_advisories())


@pytest.mark.parametrize(
    ("name", "expected", "score", "tier"),
    [
        ("incident-like", INCIDENT, 100, "critical"),
        ("well-run", WELL_RUN, 1, "low"),
        ("evasive", EVASIVE, 100, "critical"),
        ("incident-like-after-fix", AFTER_FIX, 28, "medium"),
    ],
)
def test_sample_findings_exactly(
    name: str, expected: list[tuple[str, str]], score: int, tier: str
) -> None:
    result = score_sample(name)
    assert [(f.id, f.severity.value) for f in result.findings] == expected
    assert (result.score, result.tier.value) == (score, tier)
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
