"""The shipped probe samples are real runs and valid evidence documents."""

from __future__ import annotations

import pytest

from assess.probe.models import ProbeResult
from tests.conftest import REPO

SAMPLES = REPO / "samples" / "probes"


@pytest.mark.parametrize("name,leak", [("leaky-lab.json", True), ("fixed-lab.json", False)])
def test_sample_is_a_valid_probe_result(name: str, leak: bool) -> None:
    text = (SAMPLES / name).read_text(encoding="utf-8")
    result = ProbeResult.from_text(text, name, fmt="json")
    assert result.kind == "assess.probe" and result.schema_version == 1
    assert result.leak_found is leak and result.complete and result.mode == "boundary"
    assert [a.key_env for a in result.accounts] == ["ASSESS_API_KEY", "LAB_KEY_B"]
    assert "lab-tenant" not in text  # the keys used to make them
    if leak:
        values = {m.value for m in result.markers}
        assert result.hits and all(h.text in values for h in result.hits)
    else:
        assert result.stats.rejected == 12 and result.stats.rule_of_three is not None
