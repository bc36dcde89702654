"""deploy-check's findings carry their framework controls (``findings[].controls``), as score's do,
and every finding id deploy-check builds maps to at least one control."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from assess.controls.catalogue import load_crosswalk
from assess.controls.models import FRAMEWORK_KEYS
from tests.conftest import REPO
from tests.controls.test_crosswalk import code_finding_ids

SAMPLES = REPO / "samples" / "serverlogs"
DEPLOY = REPO / "assess" / "deploy"


def test_every_deploy_check_finding_id_maps_to_a_control() -> None:
    """Mapped, not merely listed as unmapped: a committee reads each finding against a control."""
    ids, unread = code_finding_ids(DEPLOY)
    assert unread == []
    assert {"engine-refused-to-start", "advisory-settings-expose", "log-inconclusive"} <= ids
    crosswalk = load_crosswalk()
    assert sorted(i for i in ids if not crosswalk.for_finding(i)) == []


def test_deploy_check_json_findings_carry_their_controls(run_cli: Callable[..., Any]) -> None:
    result = run_cli(
        "deploy-check",
        str(SAMPLES / "sglang-prefill.log"),
        str(SAMPLES / "sglang-decode.log"),
        "--advertised-context",
        "1048576",
        "--json",
        "-",
    )
    doc = json.loads(result.stdout)
    assert doc["findings"]
    for finding in doc["findings"]:
        assert finding["controls"], finding["id"]
        expected = [c.model_dump() for c in load_crosswalk().for_finding(finding["id"])]
        assert finding["controls"] == expected
    by_id = {f["id"]: f for f in doc["findings"]}
    pool = by_id["pool-smaller-than-context"]["controls"]
    assert {"framework": "csa-aicm", "version": "1.0", "id": "I&S-02",
            "title": pool[0]["title"]} in pool  # fmt: skip
    assert {c["framework"] for c in pool} == set(FRAMEWORK_KEYS)
