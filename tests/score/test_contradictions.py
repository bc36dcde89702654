"""Technical evidence against claims: probe leaks and startup logs contradict attestations."""

from __future__ import annotations

from pathlib import Path

import pytest

from assess.advisories.catalogue import load_advisories
from assess.kernel.errors import InputError
from assess.vendor.answers_file import load_answers_and_bank
from assess.vendor.scoring import score_answers
from assess.vendor.scoring.evidence_file import load_deploy_check, load_probe
from assess.vendor.scoring.models import ScoreResult
from tests.conftest import ASSETS, REPO

S = ASSETS / "score"


def score(sample: str, probe: str | None = None, deploy: str | None = None) -> ScoreResult:
    bank, answers = load_answers_and_bank(REPO / "samples" / "vendors" / f"{sample}.yaml")
    return score_answers(
        bank,
        answers,
        load_advisories(),
        probe=load_probe(S / probe) if probe else None,
        deploy=load_deploy_check(S / deploy) if deploy else None,
    )


def test_probe_leak_contradicts_claimed_isolation() -> None:
    result = score("well-run", probe="probe-leak.json")
    (finding,) = [f for f in result.findings if f.contradiction]
    assert finding.id == "attestation-contradicted.probe-leak"
    assert finding.severity.value == "critical"
    assert finding.rests_on == [
        "isolation.page_ownership_tags",
        "isolation.kv_canaries",
        "verification.canary_tests_in_ci",
        "verification.isolation_tested_after_changes",
        "evidence:probe",
    ]
    assert finding.evidence_level is not None and finding.evidence_level.value == "verified"
    assert "1 hit(s) in 200 probe(s)" in finding.detail
    # 41 points is tier high by the numbers; a leak the probe demonstrated against a claim of
    # isolation is decisive (scoring.decisive in the questionnaire): tier critical
    assert (result.score, result.tier.value) == (41, "critical")
    assert [(d.rule, d.finding) for d in result.decided_by] == [
        ("verified-contradiction", "attestation-contradicted.probe-leak")
    ]


def test_one_contradicting_startup_log_makes_an_excellent_vendor_critical() -> None:
    plain = score("well-run")
    result = score("well-run", deploy="deploy-pool-only.json")
    assert plain.tier.value == "low"
    contradicted = [f.id for f in result.findings if f.contradiction]
    assert contradicted == ["attestation-contradicted.kv-pool.prefill-0"]
    assert result.score < 70  # the points alone would say high
    assert result.tier.value == "critical"
    assert [d.rule for d in result.decided_by] == ["verified-contradiction"]


def test_demonstrated_leak_without_claims_is_decisive_too() -> None:
    result = score("incident-like", probe="probe-leak.json")
    assert result.tier.value == "critical"
    # the points already make it critical: the rule holds its floor, it did not decide the tier
    assert ("leak-demonstrated", "probe-leak-found") in [
        (d.rule, d.finding) for d in result.floors_met
    ]
    assert "leak-demonstrated" not in [d.rule for d in result.decided_by]


def test_without_decisive_rules_the_points_decide() -> None:
    bank, answers = load_answers_and_bank(REPO / "samples" / "vendors" / "well-run.yaml")
    bank = bank.model_copy(update={"scoring": bank.scoring.model_copy(update={"decisive": []})})
    result = score_answers(
        bank, answers, load_advisories(), probe=load_probe(S / "probe-leak.json")
    )
    assert (result.score, result.tier.value, result.decided_by) == (41, "high", [])


def test_probe_leak_without_claims_is_a_plain_critical_finding() -> None:
    result = score("incident-like", probe="probe-leak.json")
    ids = [f.id for f in result.findings if f.severity.value == "critical"]
    assert "probe-leak-found" in ids
    assert not any(f.contradiction for f in result.findings)


def test_clean_probe_is_information_only() -> None:
    clean = score("well-run", probe="probe-clean.json")
    plain = score("well-run")
    assert clean.score == plain.score
    (info,) = [f for f in clean.findings if f.id == "probe-no-leak-observed"]
    assert info.severity.value == "info"
    assert "0.99%" in info.detail


def test_startup_logs_contradict_pool_and_version_claims() -> None:
    result = score("well-run", deploy="deploy-incident.json")
    # the version claim contradicted on two nodes is one finding (one root cause), both kept
    rows = [f.id for f in result.findings if f.contradiction]
    assert rows == [
        "attestation-contradicted.engine-version.decode-0",
        "attestation-contradicted.kv-pool.prefill-0",
    ]
    every = [*result.findings, *(m for f in result.findings for m in f.merged)]
    contradicted = {f.id: f for f in every if f.contradiction}
    assert sorted(contradicted) == [
        "attestation-contradicted.engine-version.decode-0",
        "attestation-contradicted.engine-version.prefill-0",
        "attestation-contradicted.kv-pool.prefill-0",
    ]
    pool = contradicted["attestation-contradicted.kv-pool.prefill-0"]
    assert "35% of the window has no backing memory" in pool.detail
    assert pool.rests_on == [
        "deployment.kv_pool_tokens",
        "deployment.pool_checked_after_config_change",
        "evidence:deploy-check",
    ]
    assert result.tier.value == "critical"


def test_startup_logs_fill_unknown_answers_without_contradiction() -> None:
    result = score("evasive", deploy="deploy-incident.json")
    by_id = {f.id: f for f in [*result.findings, *(m for f in result.findings for m in f.merged)]}
    assert by_id["deploy-pool-smaller-than-context.prefill-0"].severity.value == "critical"
    assert not by_id["deploy-pool-smaller-than-context.prefill-0"].contradiction
    # the evasive vendor said "proprietary"; the logs say sglang
    assert by_id["attestation-contradicted.engine-name.prefill-0"].contradiction


def test_consistent_logs_add_nothing() -> None:
    plain = score("incident-like")
    with_logs = score("incident-like", deploy="deploy-incident.json")
    assert [f.id for f in with_logs.findings] == [f.id for f in plain.findings]


def test_wrong_evidence_document_names_file_and_field() -> None:
    with pytest.raises(InputError) as info:
        load_probe(S / "probe-wrong-kind.json")
    assert info.value.message.endswith(
        "probe-wrong-kind.json: this is an assess.scope document, not an assess.probe result"
    )
    with pytest.raises(InputError) as info:
        load_deploy_check(S / "probe-leak.json")
    assert "probe-leak.json: this is an assess.probe document, not an assess.deploy-check" in (
        info.value.message
    )


def test_evidence_without_a_kind_names_the_missing_fields(tmp_path: Path) -> None:
    empty = tmp_path / "e.json"
    empty.write_text("{}")
    with pytest.raises(InputError) as info:
        load_probe(empty)
    assert "e.json: kind: Field required" in info.value.message
    assert "e.json: leak_found: Field required" in info.value.message


def test_evidence_given_as_answers_is_one_clear_problem() -> None:
    with pytest.raises(InputError) as info:
        load_answers_and_bank(S / "deploy-incident.json")
    assert info.value.message.endswith(
        "deploy-incident.json:3: this is an assess.deploy-check document, not an answers file"
    )


def test_loopback_probe_of_another_model_is_labelled_and_not_scored() -> None:
    """The lab's leaky probe (127.0.0.1, model lab-glm-5.3) is not evidence against a vendor."""
    bank, answers = load_answers_and_bank(REPO / "samples" / "vendors" / "well-run.yaml")
    lab = load_probe(REPO / "samples" / "probes" / "leaky-lab.json")
    plain = score_answers(bank, answers, load_advisories())
    result = score_answers(bank, answers, load_advisories(), probe=lab)
    (binding,) = result.evidence
    assert (binding.about_vendor, binding.scored) == (False, False)
    assert binding.reason.startswith("loopback host (127.0.0.1): a lab or simulation")
    assert not any(f.contradiction for f in result.findings)
    (label,) = [f for f in result.findings if f.id == "evidence-not-about-vendor.probe"]
    assert (label.severity.value, label.points) == ("info", 0)
    assert (result.score, result.tier) == (plain.score, plain.tier)
    vouched = score_answers(bank, answers, load_advisories(), probe=lab, evidence_for_vendor=True)
    assert vouched.evidence[0].scored and vouched.tier.value == "critical"


def test_probe_of_another_model_on_a_real_host_is_not_about_the_vendor() -> None:
    bank, answers = load_answers_and_bank(REPO / "samples" / "vendors" / "well-run.yaml")
    probe = load_probe(S / "probe-leak.json").model_copy(update={"model": "llama-3-8b"})
    result = score_answers(bank, answers, load_advisories(), probe=probe)
    assert result.evidence[0].reason.startswith("another model (llama-3-8b")
    assert result.tier.value == "low"


def test_probe_of_the_vendors_model_is_about_the_vendor() -> None:
    result = score("well-run", probe="probe-leak.json")
    (binding,) = result.evidence
    assert binding.about_vendor and binding.scored
    assert binding.endpoint == "https://api.example.com/v1"
