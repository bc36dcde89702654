"""Evidence binding: is a probe or deploy-check about the vendor scored, and of the time assessed?

Rule under test (assess/vendor/scoring/freshness.py, README "Evidence binding"): evidence that
ended more than ``scoring.evidence_max_age_days`` (30) before the answers' date, or outside a
stated ``--period``, is stale; evidence not about the vendor (loopback, another model or
service) or stale is shown, labelled and not scored unless ``evidence_for_vendor``.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from assess.advisories.catalogue import load_advisories
from assess.kernel.errors import UsageError
from assess.vendor.answers_file import load_answers_and_bank
from assess.vendor.scoring import score_answers
from assess.vendor.scoring.binding import model_key
from assess.vendor.scoring.evidence import DeployEvidence, ProbeEvidence
from assess.vendor.scoring.evidence_file import load_deploy_check, load_probe
from assess.vendor.scoring.freshness import Period, judge, parse_period
from assess.vendor.scoring.models import ScoreResult
from tests.conftest import ASSETS, REPO

S = ASSETS / "score"
VENDORS = REPO / "samples" / "vendors"
LEAK = load_probe(S / "probe-leak.json")  # api.example.com, glm-5.3, 2026-11-03
POOL = load_deploy_check(S / "deploy-pool-only.json")  # prefill pool < context, no about


def run(
    vendor: str = "well-run",
    probe: ProbeEvidence | None = None,
    deploy: DeployEvidence | None = None,
    **kw: Any,
) -> ScoreResult:
    bank, answers = load_answers_and_bank(VENDORS / f"{vendor}.yaml")
    return score_answers(bank, answers, load_advisories(), probe=probe, deploy=deploy, **kw)


def about(**fields: Any) -> DeployEvidence:
    return DeployEvidence.model_validate({**POOL.model_dump(), "about": fields})


def dated(start: str, end: str) -> Any:
    return {"start": start, "end": end, "dated": True}


PLAIN = run()


def test_deploy_check_of_another_model_is_labelled_and_not_scored() -> None:
    result = run(deploy=about(models_seen=["Qwen/Qwen3-32B"], nodes=["prefill-0"]))
    (binding,) = result.evidence
    assert (binding.kind, binding.about_vendor, binding.scored) == ("deploy-check", False, False)
    assert binding.reason == "another model (Qwen/Qwen3-32B is not in vendor.models)"
    assert binding.nodes == ["prefill-0"]
    (label,) = [f for f in result.findings if f.id == "evidence-not-about-vendor.deploy-check"]
    assert (label.severity.value, label.points, label.rests_on) == (
        "info",
        0,
        ["evidence:deploy-check"],
    )
    assert not any(f.contradiction for f in result.findings)
    assert (result.score, result.tier) == (PLAIN.score, PLAIN.tier)


def test_deploy_check_of_the_vendors_model_in_a_quantised_build_is_about_the_vendor() -> None:
    # well-run serves zai-org/GLM-5.3; its nodes load the FP8 build
    result = run(deploy=about(models_seen=["/models/zai-org/GLM-5.3-FP8/"]))
    assert result.evidence[0].about_vendor and result.evidence[0].scored
    assert result.tier.value == "critical"  # the pool claim is contradicted


def test_a_stated_service_that_is_not_the_vendors_unbinds_the_logs() -> None:
    other = run(deploy=about(service="Batch API", models_seen=["zai-org/GLM-5.3-FP8"]))
    assert not other.evidence[0].about_vendor
    assert other.evidence[0].reason == (
        "another service (Batch API; the vendor's is Private Inference API)"
    )
    same = run(deploy=about(service="private inference  API"))
    assert same.evidence[0].scored
    assert same.evidence[0].reason.startswith("service private inference  API is the vendor's")


def test_a_stated_model_binds_logs_that_name_none_and_is_noted_when_they_disagree() -> None:
    stated = run(deploy=about(model="meta-llama/Llama-4-Scout"))
    assert stated.evidence[0].models == ["meta-llama/Llama-4-Scout"]
    assert stated.evidence[0].about_vendor
    contradicted = run(deploy=about(model="zai-org/GLM-5.3", models_seen=["Qwen/Qwen3-32B"]))
    assert not contradicted.evidence[0].about_vendor  # what the logs name decides
    assert "(stated --model zai-org/GLM-5.3, but the logs name Qwen/Qwen3-32B)" in (
        contradicted.evidence[0].reason
    )


def test_evidence_for_vendor_scores_unbound_deploy_evidence() -> None:
    vouched = run(deploy=about(models_seen=["Qwen/Qwen3-32B"]), evidence_for_vendor=True)
    assert vouched.evidence[0].scored and not vouched.evidence[0].about_vendor
    assert vouched.evidence[0].reason.endswith("counted for this vendor (--evidence-for-vendor)")
    assert vouched.tier.value == "critical"


# --- dates ------------------------------------------------------------------------------------


def probe_on(day: str) -> ProbeEvidence:
    return LEAK.model_copy(update={"started_at": f"{day}T10:00:00Z", "finished_at": ""})


@pytest.mark.parametrize(
    ("day", "freshness", "scored"),
    [
        ("2026-10-03", "current", True),  # 30 days before the answers (2026-11-02): the limit
        ("2026-10-02", "stale", False),  # 31 days before
        ("2026-11-02", "current", True),
        ("2027-06-01", "current", True),  # after the answers: tests the claims as made
    ],
)
def test_probe_older_than_the_answers_by_more_than_the_limit_is_stale(
    day: str, freshness: str, scored: bool
) -> None:
    result = run(probe=probe_on(day))
    (binding,) = result.evidence
    assert (binding.about_vendor, binding.freshness, binding.scored) == (True, freshness, scored)
    assert binding.dates == day
    assert (result.tier.value == "critical") is scored
    if not scored:
        (label,) = [f for f in result.findings if f.id == "evidence-stale.probe"]
        assert "more than 30 days before the answers (2026-11-02)" in label.title
        assert label.points == 0


def test_a_stated_period_decides_instead_of_the_answers_date() -> None:
    august = parse_period("2026-08-01..2026-08-31")
    outside = run(probe=LEAK, period=august)
    assert outside.evidence[0].freshness == "stale" and not outside.evidence[0].scored
    assert (
        "outside the stated period 2026-08-01..2026-08-31" in outside.evidence[0].freshness_reason
    )
    old = run(probe=probe_on("2026-08-15"), period=august)  # old for the answers, in the period
    assert old.evidence[0].freshness == "current" and old.tier.value == "critical"
    vouched = run(probe=LEAK, period=august, evidence_for_vendor=True)
    assert vouched.evidence[0].scored and vouched.tier.value == "critical"


def test_undated_evidence_scores_and_says_it_is_undated() -> None:
    undated = run(probe=LEAK.model_copy(update={"started_at": "", "finished_at": ""}))
    assert (undated.evidence[0].freshness, undated.evidence[0].scored) == ("undated", True)
    yearless = about(period={"start": "10-14 11:02:31", "end": "10-14 11:05:09", "dated": False})
    result = run(deploy=yearless)
    assert result.evidence[0].freshness == "undated" and result.evidence[0].scored
    assert "print no year (10-14 11:02:31 to 10-14 11:05:09)" in result.evidence[0].freshness_reason


def test_dated_startup_logs_from_long_before_the_answers_are_stale() -> None:
    august = about(period=dated("2026-08-26T09:14:02", "2026-08-26T09:16:46"))
    result = run(deploy=august)
    (binding,) = result.evidence
    assert (binding.freshness, binding.scored, binding.dates) == ("stale", False, "2026-08-26")
    assert [f.id for f in result.findings if f.id.startswith("evidence-")] == [
        "evidence-stale.deploy-check"
    ]
    assert (result.score, result.tier) == (PLAIN.score, PLAIN.tier)
    # the incident-like vendor answered on 2026-09-01: the same logs are 6 days old, current
    incident = run("incident-like", deploy=august)
    assert incident.evidence[0].freshness == "current" and incident.evidence[0].scored


def test_judge_at_the_edges() -> None:
    day = dt.date(2026, 11, 2)
    assert judge(None, day, 30) == (
        "undated",
        "the evidence carries no date, so its age is not known",
    )
    span = (dt.date(2026, 9, 20), dt.date(2026, 10, 3))
    assert judge(span, day, 30)[0] == "current"  # ended within the limit
    assert judge(span, day, 29)[0] == "stale"
    period = Period(dt.date(2026, 10, 3), dt.date(2026, 10, 31))
    assert judge(span, day, 0, period)[0] == "current"  # overlaps on its last day


@pytest.mark.parametrize("text", ["2026-09-01", "2026-09-01..", "2026-09-31..2026-10-01", "a..b"])
def test_a_bad_period_is_a_usage_error(text: str) -> None:
    with pytest.raises(UsageError, match="expected FROM..TO"):
        parse_period(text)
    with pytest.raises(UsageError, match="ends before it starts"):
        parse_period("2026-10-01..2026-09-01")


def test_cli_period_and_bad_period(run_cli: Any, tmp_path: Path) -> None:
    well_run = str(VENDORS / "well-run.yaml")
    probe = str(S / "probe-leak.json")
    bad = run_cli("score", well_run, "--probe", probe, "--period", "soon")
    assert bad.exit_code == 2 and "--period 'soon': expected FROM..TO" in bad.output
    doc = json.loads(
        run_cli(
            "score", well_run, "--probe", probe, "--period", "2026-01-01..2026-01-31", "--json", "-"
        ).stdout
    )
    assert doc["evidence"][0]["freshness"] == "stale" and doc["tier"] == "low"


@pytest.mark.parametrize(
    ("a", "b"),
    [("zai-org/GLM-5.3", "/models/GLM-5.3-FP8/"), ("@cf/zai-org/glm-5.3", "GLM-5.3-AWQ"),
     ("meta-llama/Llama-4-Scout", "llama-4-scout")],
)  # fmt: skip
def test_model_key_matches_builds_of_one_model(a: str, b: str) -> None:
    assert model_key(a) == model_key(b)
    assert model_key("Qwen/Qwen3-32B") != model_key("Qwen/Qwen3-32B-Instruct")
