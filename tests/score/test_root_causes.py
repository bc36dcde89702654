"""One finding per root cause: no two findings rest on exactly the same answers; stable refs."""

from __future__ import annotations

from pathlib import Path

import pytest

from assess.advisories.catalogue import load_advisories
from assess.deploy.api import check_deployment
from assess.vendor.answers_file import load_answers_and_bank
from assess.vendor.scoring import score_answers
from assess.vendor.scoring.evidence import DeployEvidence
from assess.vendor.scoring.evidence_file import load_probe
from assess.vendor.scoring.models import ScoreResult
from tests.conftest import REPO
from tests.score.test_checks import BANK, answers

SAMPLES = sorted((REPO / "samples" / "vendors").glob("*.yaml"))
PROBES = [None, *sorted((REPO / "samples" / "probes").glob("*.json"))]


SERVERLOGS = [REPO / "samples" / "serverlogs" / f"sglang-{r}.log" for r in ("prefill", "decode")]


def score(path: Path, probe: Path | None = None, deploy: bool = False) -> ScoreResult:
    bank, answers = load_answers_and_bank(path)
    evidence = load_probe(probe) if probe is not None else None
    logs = check_deployment(SERVERLOGS).model_dump(mode="json") if deploy else None
    checked = DeployEvidence.model_validate(logs) if logs is not None else None
    return score_answers(
        bank, answers, load_advisories(), evidence, checked, evidence_for_vendor=True
    )


@pytest.mark.parametrize("deploy", [False, True], ids=["no-logs", "startup-logs"])
@pytest.mark.parametrize("probe", PROBES, ids=lambda p: p.stem if p else "no-probe")
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_no_two_findings_rest_on_the_same_answers(
    path: Path, probe: Path | None, deploy: bool
) -> None:
    result = score(path, probe, deploy)
    # two advisories on one engine version are two root causes (different remedies)
    keys = [(frozenset(f.rests_on), tuple(f.advisories)) for f in result.findings if f.rests_on]
    assert len(keys) == len(set(keys)), [sorted(k) for k in keys if keys.count(k) > 1]


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_refs_follow_the_order_and_points_count_once(path: Path) -> None:
    result = score(path)
    assert [f.ref for f in result.findings] == [
        f"F-{n:02d}" for n in range(1, len(result.findings) + 1)
    ]
    ranks = [f.severity.rank for f in result.findings]
    assert ranks == sorted(ranks, reverse=True)
    assert result.points_total == sum(f.points for f in result.findings)
    assert all(m.points == 0 for f in result.findings for m in f.merged)


def test_one_answer_is_one_row_with_the_worst_severity_and_every_reason() -> None:
    result = score(REPO / "samples" / "vendors" / "incident-like.yaml")
    about = [f for f in result.findings if "isolation.proxy_aborts_mid_transfer" in f.rests_on]
    assert [(f.id, f.severity.value, f.points) for f in about] == [
        ("proxy-aborts-disaggregated", "high", 15)
    ]
    assert [m.id for m in about[0].merged] == ["control-absent.isolation.proxy_aborts_mid_transfer"]
    assert "control-absent.isolation.proxy_aborts_mid_transfer" in about[0].detail
    checksums = [f for f in result.findings if "isolation.transfer_checksums" in f.rests_on]
    assert [f.id for f in checksums] == ["advisory.sglang-pd-kv-transfer-race"]
    # the SGLang transfer-race advisory rests on the checksum answer that decides it: one root
    # cause with the rule and the control on that answer (acc41 m3), its 15 points counted once
    assert [m.id for m in checksums[0].merged] == [
        "disaggregated-transfers-unverified",
        "control-absent.isolation.transfer_checksums",
    ]
    # Before the merge 201 points: two medium findings (5 each) and the high rule (15) again.
    assert result.points_total == 176


def test_findings_on_exactly_the_same_answers_become_one() -> None:
    body = (
        "  deployment.mode: disaggregated\n"
        "  deployment.advertised_context_tokens: 1048576\n"
        "  deployment.kv_pool_tokens: {prefill: 681280, decode: 900000}\n"
    )
    result = score_answers(BANK, answers(body), load_advisories())
    keys = [
        frozenset(f.rests_on)
        for f in result.findings
        if f.rests_on and f.id != "attested-only" and not f.advisories
    ]  # findings of different advisories are different root causes (merge.py)
    assert len(keys) == len(set(keys))
    pool = [f for f in result.findings if f.id.startswith("pool-smaller")]
    assert [(f.id, f.severity.value, f.points) for f in pool] == [
        ("pool-smaller-than-context.prefill", "critical", 40)
    ]
    # The decode pool rests on exactly these answers too; the attested-only summary (a cause of
    # its own: the evidence behind them) stays a finding with its points.
    assert [(m.id, m.severity.value) for m in pool[0].merged] == [
        ("pool-smaller-than-context.decode", "high")
    ]
    assert [f.id for f in result.findings if f.id == "attested-only"] == ["attested-only"]


def test_verifying_an_answer_never_raises_the_points() -> None:
    # Found by the property test: attested-only on exactly the pool finding's answers was folded
    # into it (its point lost); verifying deployment.mode took it off the summary, which then
    # stood alone, so the stronger evidence scored one point more.
    body = (
        "  deployment.mode: disaggregated\n"
        "  deployment.advertised_context_tokens: 1048576\n"
        "  deployment.kv_pool_tokens: {prefill: 681280, decode: 900000}\n"
    )
    weak = score_answers(BANK, answers(body), load_advisories())
    verified = body.replace(
        "deployment.mode: disaggregated",
        "deployment.mode: {value: disaggregated, evidence: verified}",
    )
    strong = score_answers(BANK, answers(verified), load_advisories())
    assert strong.points_total <= weak.points_total
    assert strong.score <= weak.score


def test_one_claim_contradicted_on_two_nodes_is_one_finding() -> None:
    result = score(REPO / "samples" / "vendors" / "well-run.yaml", deploy=True)
    version = [f for f in result.findings if "engine.version" in f.rests_on]
    assert [f.id for f in version] == ["attestation-contradicted.engine-version.sglang-decode"]
    assert [m.id for m in version[0].merged] == [
        "attestation-contradicted.engine-version.sglang-prefill"
    ]
    assert result.tier.value == "critical"
