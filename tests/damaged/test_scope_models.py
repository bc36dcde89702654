"""Model names as deployments write them (issue 36, item 4).

Measured before the change: ``zai-org/GLM-5.3-FP8`` (the incident deployment's own name) did not
match glm-5.3 in `scope` while `score` and `deploy-check` matched it; 50 requests at 900k tokens
gave "nothing affected", exit 0, with no word of the model names it did not match.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assess.kernel.model_ids import normalise_model_id
from tests.scope.helpers import conserved, ndjson, scope, write

SAME = [
    "zai-org/GLM-5.3-FP8",
    "GLM-5.3-AWQ",
    "glm-5.3_int4",
    "@cf/zai-org/glm-5.3-fp8",
    "us.zai.glm-5.3-w4a16:0",
    "glm-5.3-FP8-dynamic",
]
OTHER = ["glm-5.30", "glm-5.3x", "glm-5.3-flash", "glm-5.3-fp8x", "fp8", "glm-5.3-v2"]


def _record(i: int, model: str | None) -> dict[str, Any]:
    return {
        "timestamp": "2026-09-01T10:00:00Z",
        "model": model,
        "prompt_tokens": 900_000,
        "request_id": f"req-{i}",
        "status": "200",
    }


@pytest.mark.parametrize("name", SAME)
def test_build_suffixes_name_the_same_model(name: str) -> None:
    assert normalise_model_id(name) == "glm-5.3"


@pytest.mark.parametrize("name", OTHER)
def test_other_models_stay_other(name: str) -> None:
    assert normalise_model_id(name) != "glm-5.3"


@pytest.mark.parametrize("fmt", ["ndjson", "csv", "parquet", "json"])
@pytest.mark.parametrize("fast", [True, False])
def test_the_incident_deployments_name_is_in_scope(tmp_path: Path, fmt: str, fast: bool) -> None:
    records = [_record(i, SAME[i % len(SAME)]) for i in range(50)]
    records += [_record(100 + i, m) for i, m in enumerate(OTHER)]
    result = scope([write(tmp_path / f"log.{fmt}", records, fmt)], fast=fast)
    conserved(result)
    assert result.counts.over_threshold == 50
    seen = {m.model: m.requests for m in result.assessment.models_seen}
    assert {m: n for m, n in seen.items() if m in OTHER} == dict.fromkeys(OTHER, 1)


def test_nothing_matched_is_not_assessable_and_lists_the_names_seen(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    """The names are listed by the assessment (issue 35's models_seen): this checks that the
    near misses of the normaliser are among them and that the run is no all-clear."""
    records = [_record(i, "glm-5.30") for i in range(30)] + [_record(40, "glm-5.3x")]
    path = tmp_path / "log.ndjson"
    path.write_bytes(ndjson(records))
    result = run_cli("scope", str(path), "--json", str(tmp_path / "out.json"))
    assert result.exit_code == 2
    doc = json.loads((tmp_path / "out.json").read_text())
    assert doc["verdict"] == "not_assessable"
    assert doc["assessment"]["models_seen"] == [
        {"model": "glm-5.30", "requests": 30},
        {"model": "glm-5.3x", "requests": 1},
    ]
