"""Cache-audit evidence in the score: bound to the vendor like the canary probe (host, model,
date); sharing across organisations critical, across keys of one organisation high; a clean
result with a positive control verifies the salting control; inconclusive said as such."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from assess.kernel.errors import InputError, UsageError
from assess.vendor.api import score_answers
from assess.vendor.scoring.models import ScoreResult
from tests.conftest import REPO
from tests.score.cache_docs import NO_CONTROL, NOT_SHARED, SHARED, WITHIN_ORG, write_cache_doc

INCIDENT = REPO / "samples" / "vendors" / "incident-like.yaml"  # salted per tenant: yes (attested)
SALTED = "isolation.prefix_cache_salted_per_tenant"


def _score(tmp_path: Path, shared: dict[str, bool], **kwargs: Any) -> ScoreResult:
    doc = write_cache_doc(tmp_path / "cache.json", shared, **kwargs)
    return score_answers(INCIDENT, probe=doc)


def _ids(result: ScoreResult) -> dict[str, Any]:
    return {f.id: f for f in result.findings}


def test_sharing_across_organisations_is_critical_and_contradicts_the_salting_claim(
    tmp_path: Path,
) -> None:
    result = _score(tmp_path, SHARED)
    finding = _ids(result)["attestation-contradicted.cache-probe-shared"]
    assert finding.severity.value == "critical" and finding.contradiction
    assert SALTED in finding.rests_on and "evidence:cache-probe" in finding.rests_on
    assert finding.evidence_level.value == "verified"
    assert "KS p" in finding.detail and "api.edge-inference.example" in finding.detail
    binding = next(e for e in result.evidence if e.kind == "cache-probe")
    assert binding.scored and binding.about_vendor and binding.freshness == "current"


def test_sharing_within_one_organisation_is_high(tmp_path: Path) -> None:
    finding = _ids(_score(tmp_path, WITHIN_ORG))["cache-probe-shared-within-organisation"]
    assert finding.severity.value == "high"


def test_a_clean_result_with_its_control_is_a_verified_control(tmp_path: Path) -> None:
    plain = score_answers(INCIDENT)
    before = next(c for c in plain.controls_in_place if c.question == SALTED)
    assert before.evidence.value == "attested"
    result = _score(tmp_path, NOT_SHARED)
    assert _ids(result)["cache-probe-not-shared"].severity.value == "info"
    control = next(c for c in result.controls_in_place if c.question == SALTED)
    assert control.evidence.value == "verified" and "cache probe run" in control.note
    assert sum(c.question == SALTED for c in result.controls_in_place) == 1


def test_inconclusive_says_so_and_verifies_nothing(tmp_path: Path) -> None:
    result = _score(tmp_path, NO_CONTROL)
    finding = _ids(result)["cache-probe-inconclusive"]
    assert "inconclusive" in finding.title.lower() and "positive control" in finding.detail
    control = next(c for c in result.controls_in_place if c.question == SALTED)
    assert control.evidence.value == "attested"
    assert not any(f.id.startswith("cache-probe-shared") for f in result.findings)


def test_an_audit_stopped_early_is_not_a_clean_result(tmp_path: Path) -> None:
    result = _score(tmp_path, NOT_SHARED, complete=False)
    assert "cache-probe-inconclusive" in _ids(result)


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"endpoint": "http://127.0.0.1:8040/v1"}, "evidence-not-about-vendor.cache-probe"),
        ({"model": "some-other-model"}, "evidence-not-about-vendor.cache-probe"),
        ({"when": datetime(2026, 1, 5, tzinfo=UTC)}, "evidence-stale.cache-probe"),
    ],
)
def test_an_audit_of_the_lab_another_model_or_another_time_does_not_score(
    tmp_path: Path, kwargs: dict[str, Any], expected: str
) -> None:
    result = _score(tmp_path, SHARED, **kwargs)
    ids = _ids(result)
    assert expected in ids and "probe --mode cache" in ids[expected].remediation
    assert not any("cache-probe-shared" in f for f in ids)
    assert not next(e for e in result.evidence if e.kind == "cache-probe").scored
    forced = write_cache_doc(tmp_path / "forced.json", SHARED, **kwargs)
    counted = score_answers(INCIDENT, probe=forced, evidence_for_vendor=True)
    assert "attestation-contradicted.cache-probe-shared" in _ids(counted)


def test_canary_and_cache_evidence_together_and_one_of_each(tmp_path: Path) -> None:
    canary = REPO / "samples" / "probes" / "leaky-lab.json"
    cache = write_cache_doc(tmp_path / "cache.json", SHARED)
    result = score_answers(INCIDENT, probe=[canary, cache], evidence_for_vendor=True)
    assert {e.kind for e in result.evidence} == {"probe", "cache-probe"}
    assert len(result.inputs) == 3
    with pytest.raises(UsageError, match="second cache-probe"):
        score_answers(INCIDENT, probe=[cache, cache])


def test_a_bad_cache_document_names_the_file_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1, "kind": "assess.cache-probe", "verdict": "maybe"}\n')
    with pytest.raises(InputError, match=r"bad\.json.*verdict"):
        score_answers(INCIDENT, probe=bad)


def test_score_cli_takes_both_probes(tmp_path: Path, run_cli: Any) -> None:
    cache = write_cache_doc(tmp_path / "cache.json", SHARED)
    out = run_cli("score", str(INCIDENT), "--probe", str(cache), "--fail-on", "critical")
    assert out.exit_code == 1, out.output
    assert "Evidence (cache-probe): https://api.edge-inference.example/v1" in out.output
