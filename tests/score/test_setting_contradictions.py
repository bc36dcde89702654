"""A startup log's cache settings (deploy-check ``nodes[].cache_settings``) against the
answers, and deploy-check's advisory findings carried into score (issue 41 review, defect 0)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from assess.advisories.catalogue import load_advisories
from assess.vendor.answers_file import load_answers_and_bank
from assess.vendor.scoring import score_answers
from assess.vendor.scoring.evidence import DeployEvidence
from assess.vendor.scoring.models import ScoreResult
from tests.conftest import REPO


def _answer(value: Any) -> dict[str, Any]:
    note = {"note": "aggregated / no external tier"} if value == "not_applicable" else {}
    return {"value": value, "evidence": "documented", **note}


def _score(
    tmp_path: Path, answers: dict[str, Any], node: dict[str, Any], findings: Any = ()
) -> ScoreResult:
    doc = yaml.safe_load((REPO / "samples" / "vendors" / "well-run.yaml").read_text())
    doc["answers"].update({q: _answer(v) for q, v in answers.items()})
    path = tmp_path / "answers.yaml"
    path.write_text(yaml.safe_dump(doc))
    bank, parsed = load_answers_and_bank(path)
    deploy = DeployEvidence.model_validate(
        {
            "schema_version": 1,
            "kind": "assess.deploy-check",
            "nodes": [{"name": "n1", "engine": "sglang", "version": "0.5.22", **node}],
            "findings": list(findings),
        }
    )
    return score_answers(bank, parsed, load_advisories(), deploy=deploy, evidence_for_vendor=True)


def _contradicted(result: ScoreResult) -> list[str]:
    return [f.id for f in result.findings if f.contradiction]


AGG = {"deployment.mode": "aggregated", "isolation.transfer_checksums": "not_applicable"}


def test_prefix_cache_on_in_the_log_contradicts_prompt_cache_off(tmp_path: Path) -> None:
    node = {"role": "aggregated", "cache_settings": {"prefix_cache": True}}
    result = _score(tmp_path, {**AGG, "cache.prompt_cache_scope": "off"}, node)
    assert _contradicted(result) == ["attestation-contradicted.cache-setting.prefix_cache.n1"]
    assert result.tier.value == "critical"
    off = _score(
        tmp_path,
        {**AGG, "cache.prompt_cache_scope": "off"},
        {"role": "aggregated", "cache_settings": {"prefix_cache": False}},
    )
    assert _contradicted(off) == []


def test_schedule_policy_in_the_log_contradicts_the_answer(tmp_path: Path) -> None:
    node = {"role": "aggregated", "cache_settings": {"schedule_policy": "lpm"}}
    result = _score(tmp_path, {**AGG, "engine.schedule_policy": "fcfs"}, node)
    assert _contradicted(result) == ["attestation-contradicted.cache-setting.schedule_policy.n1"]


def test_kv_canary_none_in_the_log_contradicts_canaries_on(tmp_path: Path) -> None:
    node = {"role": "aggregated", "cache_settings": {"kv_canary": "none"}}
    result = _score(tmp_path, {**AGG, "isolation.kv_canary_mode": "log"}, node)
    (finding,) = [f for f in result.findings if f.contradiction]
    assert finding.id == "attestation-contradicted.cache-setting.kv_canary.n1"
    assert finding.rests_on == [
        "isolation.kv_canary_mode",
        "isolation.kv_canaries",
        "evidence:deploy-check",
    ]


def test_transfer_checksum_off_in_the_log_contradicts_checksums_on(tmp_path: Path) -> None:
    node = {"role": "prefill", "cache_settings": {"kv_transfer_checksum": False}}
    result = _score(tmp_path, {"isolation.transfer_checksum_mode": "abort"}, node)
    assert _contradicted(result) == [
        "attestation-contradicted.cache-setting.kv_transfer_checksum.n1"
    ]


def test_disaggregation_mode_in_the_log_contradicts_aggregated(tmp_path: Path) -> None:
    node = {"role": "unknown", "cache_settings": {"disaggregation_mode": "decode"}}
    result = _score(tmp_path, AGG, node)
    assert _contradicted(result) == [
        "attestation-contradicted.cache-setting.disaggregation_mode.n1"
    ]


def test_external_tier_in_the_log_contradicts_no_external_tier(tmp_path: Path) -> None:
    node = {"role": "aggregated", "cache_settings": {"external_kv_tier": "lmcache"}}
    answers = {
        **AGG,
        "cache.prompt_cache_scope": "organization",
        "cache.external_tiers_namespaced": "not_applicable",
    }
    result = _score(tmp_path, answers, node)
    assert _contradicted(result) == ["attestation-contradicted.cache-setting.external_kv_tier.n1"]


def test_deploy_check_advisory_finding_is_carried_into_the_score(tmp_path: Path) -> None:
    expose = {
        "id": "advisory-settings-expose",
        "severity": "critical",
        "title": "n1: settings expose it to advisory sglang-cache-salt-ignored",
        "detail": "disable_radix_cache=false",
        "remediation": "Upgrade sglang to 0.5.11 or later",
        "rests_on": ["sglang-cache-salt-ignored", "n1"],
        "node": "n1",
    }
    result = _score(tmp_path, AGG, {"role": "aggregated"}, [expose])
    (finding,) = [f for f in result.findings if f.id.startswith("deploy-advisory.")]
    assert finding.id == "deploy-advisory.sglang-cache-salt-ignored.n1"
    assert finding.severity.value == "critical"
    assert finding.advisories == ["sglang-cache-salt-ignored"]
    assert [c.id for c in finding.controls][:2] == ["STA-09", "I&S-06"]
    assert finding.title == "settings expose it to advisory sglang-cache-salt-ignored"
    assert result.tier.value != "low"


def test_an_answer_the_log_contradicts_is_not_listed_in_place(tmp_path: Path) -> None:
    """acc41 m7: the controls in place (console, JSON, report: one list) are facts in the
    vendor's favour; a claim the scored startup log disproves is not one."""
    answers = {**AGG, "cache.prompt_cache_scope": "off", "engine.schedule_policy": "fcfs"}
    seen = {"prefix_cache": True, "schedule_policy": "lpm"}
    result = _score(tmp_path, answers, {"role": "aggregated", "cache_settings": seen})
    in_place = {c.question for c in result.controls_in_place}
    assert not {"cache.prompt_cache_scope", "engine.schedule_policy"} & in_place
    assert "isolation.kv_canaries" in in_place  # not contradicted: still listed
    agreeing = {"prefix_cache": False, "schedule_policy": "fcfs"}
    kept = _score(tmp_path, answers, {"role": "aggregated", "cache_settings": agreeing})
    in_place = {c.question for c in kept.controls_in_place}
    assert {"cache.prompt_cache_scope", "engine.schedule_policy"} <= in_place
