"""LangSmith runs (samples/logs/langsmith-runs.jsonl, Run objects as the SDK's schemas.py defines
them; hand counts in tests/presets/expected/langsmith.json): parent runs, whose tokens sum their
children's, are never counted; the project id is never a session; a runs query page and a JSON
array read the same runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assess.scope.api import scope_run
from tests.scope.helpers import conserved

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "logs" / "langsmith-runs.jsonl"
EXPECTED = json.loads(
    (Path(__file__).resolve().parents[1] / "presets" / "expected" / "langsmith.json").read_text()
)


def _runs() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SAMPLE.read_text().splitlines()[:-1]]


@pytest.mark.parametrize("preset", ["auto", "langsmith"])
def test_the_sample_by_detection_and_by_id(preset: str) -> None:
    result = scope_run([str(SAMPLE)], preset=preset, served_by="workers-ai").result
    conserved(result)
    assert result.preset == "langsmith"
    assert result.counts.model_dump() == EXPECTED["counts"]
    assert result.affected.request_ids == EXPECTED["affected"]["request_ids"]
    assert result.affected.sessions == 2  # th-1 and s-2, not the one project id
    # the root chain's 1,581,281 rolled-up tokens are not counted again
    # only the prompt at the trigger could have been read: the ones over it were placeholders
    assert result.disclosed.prompt_tokens_total == 681280
    assert result.possibly_affected.status == {"error": 1}


@pytest.mark.parametrize("form", ["array", "query-pages"])
def test_a_json_array_and_runs_query_pages(tmp_path: Path, form: str) -> None:
    runs = _runs()
    path = tmp_path / "runs.json"
    if form == "array":
        path.write_text(json.dumps(runs, indent=2))
    else:  # POST /runs/query pages, one per line, as a script saving each response writes them
        pages = [
            {"runs": runs[:6], "cursors": {"next": "c2"}},
            {"runs": runs[6:], "cursors": {"next": None}},
        ]
        path.write_text("".join(json.dumps(page) + "\n" for page in pages))
    result = scope_run([str(path)], served_by="workers-ai").result
    conserved(result)
    assert result.preset == "langsmith"
    counts = EXPECTED["counts"]
    assert result.counts.model_dump() == {
        **counts,
        "records_read": counts["records_read"] - 1,
        "records_skipped": 0,
    }
    assert sorted(result.affected.request_ids) == sorted(EXPECTED["affected"]["request_ids"])


def test_explain_shows_where_the_model_came_from(run_cli: Any) -> None:
    result = run_cli("scope", str(SAMPLE), "--served-by", "workers-ai", "--explain", "--json", "-")
    assert result.exit_code == 1
    (reading,) = json.loads(result.stdout)["reading"]
    assert reading["preset"] == "langsmith" and reading["chosen_by"] == "auto"
    fields = {f["field"]: f for f in reading["fields"]}
    assert fields["model"]["by_path"] == {
        "extra.metadata.ls_model_name": 6,  # 01 06 07 08 09 11
        "extra.invocation_params.model": 1,  # 02
    }
    assert fields["session_id"]["by_path"] == {
        "extra.metadata.thread_id": 1,
        "extra.metadata.session_id": 1,
    }
