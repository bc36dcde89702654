"""deploy-check's finding on SGLang's prefix-ordered scheduling over a shared radix cache
(tests/deploy/test_schedule_policy.py) reaches score as deploy-advisory.<advisory>.<node>."""

from __future__ import annotations

import json
from pathlib import Path

from assess.advisories.catalogue import load_advisories
from assess.deploy.check import check_deployment
from assess.deploy.models import NodeLog
from assess.kernel.common import Severity
from assess.vendor.answers_file import load_answers_and_bank
from assess.vendor.scoring import score_answers
from assess.vendor.scoring.evidence import DeployEvidence
from tests.conftest import REPO
from tests.deploy.conftest import parse_text
from tests.deploy.test_schedule_policy import ADVISORY, _log


def test_score_carries_the_finding_naming_the_advisory(tmp_path: Path) -> None:
    """deploy-check's finding reaches score as deploy-advisory.<advisory>.<node>."""
    log = parse_text(_log("lpm", False, "0.5.10"))
    result = check_deployment(
        [NodeLog(name="n1", source="n1.log", parsed=log)], advisories=load_advisories()
    )
    doc = json.loads(result.model_dump_json())
    answers = tmp_path / "answers.yaml"
    answers.write_text((REPO / "samples" / "vendors" / "well-run.yaml").read_text())
    bank, parsed = load_answers_and_bank(answers)
    deploy = DeployEvidence.model_validate(
        {"schema_version": 1, "kind": "assess.deploy-check", **doc}
    )
    scored = score_answers(bank, parsed, load_advisories(), deploy=deploy,
                           evidence_for_vendor=True)  # fmt: skip
    (carried,) = [f for f in scored.findings if f.id == f"deploy-advisory.{ADVISORY}.n1"]
    assert carried.advisories == [ADVISORY] and carried.severity is Severity.CRITICAL
    assert carried.controls
