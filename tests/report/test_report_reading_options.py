"""`assess report` takes scope's reading options (``--no-own-overlap``, ``--max-inflate-ratio``,
one option definition shared with `assess scope`), records them in the manifest when not the
default, and `assess verify` re-scopes with them: a review made with them verifies, an edit to
either recorded option differs (exit 1), as an edit to N does (docs/report.md, docs/verify.md).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import zstandard

from assess.cli.scope_exposure import MAX_INFLATE_RATIO
from assess.scope.logs.compression import MAX_RATIO, RATIO_FROM
from tests.conftest import REPO
from tests.report.conftest import invoke, json_review

READING = ["--no-own-overlap", "--max-inflate-ratio", "100000"]


def _one_record_over_and_over(path: Path) -> None:
    """One affected record repeated past the first 32 MiB as one zstd frame: about 10,000 times
    smaller, so the default bound (1,000) refuses it and ``--max-inflate-ratio 100000`` reads
    it."""
    line = (
        b'{"timestamp": "2026-09-01T10:00:00Z", "model": "glm-5.3", "prompt_tokens": 900000, '
        b'"request_id": "req-1", "user": "acct-a", "provider": "workers-ai"}\n'
    )
    body = line * (RATIO_FROM // len(line) + 1)
    path.write_bytes(zstandard.ZstdCompressor(level=3).compress(body))
    assert len(body) / path.stat().st_size > MAX_RATIO


def _review(tmp_path: Path, *extra: str) -> Path:
    """A review of copied inputs (the manifest names them by file name) in tmp_path/review."""
    _one_record_over_and_over(tmp_path / "rep.ndjson.zst")
    return json_review(tmp_path, tmp_path / "rep.ndjson.zst", *extra)


def _edit(out: Path, option: str, value: str | None) -> None:
    """Set the recorded ``option``'s value in manifest.json; None drops the flag."""
    path = out / "manifest.json"
    manifest = json.loads(path.read_text())
    command = manifest["command"]
    at = command.index(option)
    if value is None:
        del command[at]
    else:
        command[at + 1] = value
    path.write_text(json.dumps(manifest, indent=2) + "\n")


def test_the_options_are_scopes_own_definitions() -> None:
    from assess.cli import report, scope

    assert report.MAX_INFLATE_RATIO is scope.MAX_INFLATE_RATIO is MAX_INFLATE_RATIO
    assert report.OWN_OVERLAP is scope.OWN_OVERLAP
    assert MAX_INFLATE_RATIO.default == MAX_RATIO  # the default is not recorded


def test_the_review_records_them_and_verify_agrees(tmp_path: Path) -> None:
    out = _review(tmp_path, *READING)
    manifest = json.loads((out / "manifest.json").read_text())
    command = manifest["command"]
    at = command.index(READING[0])
    assert command[at : at + 3] == READING
    exposure = json.loads((out / "report.json").read_text())["exposure"]
    assert exposure["received"] == 1  # read whole under the raised bound
    assert exposure["filter"]["own_overlap"] is False
    agreed = invoke("verify", str(out), "--inputs", str(tmp_path))
    assert agreed.exit_code == 2, agreed.output  # unsigned: agrees, not proven
    assert "DIFFERS" not in agreed.output


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--max-inflate-ratio", "1000", "refused: it inflates more than 1,000 times"),
        ("--no-own-overlap", None, "filter.own_overlap: false stated, true recomputed"),
    ],
)
def test_an_edit_to_a_recorded_option_differs(
    tmp_path: Path, option: str, value: str | None, said: str
) -> None:
    out = _review(tmp_path, *READING)
    _edit(out, option, value)
    edited = invoke("verify", str(out), "--inputs", str(tmp_path))
    assert edited.exit_code == 1, edited.output
    assert said in " ".join(edited.output.split())


def test_the_default_reading_is_not_recorded(tmp_path: Path) -> None:
    """A review made without them records the command it always did; the default bound
    refuses the file, as `assess scope` does."""
    shutil.copy(REPO / "samples" / "vendors" / "well-run.yaml", tmp_path / "well-run.yaml")
    log = REPO / "samples" / "logs" / "litellm.ndjson"
    out = tmp_path / "review"
    args = ["report", "-a", str(tmp_path / "well-run.yaml"), "--logs", str(log)]
    result = invoke(*args, "--format", "json", "--out", str(out))
    assert result.exit_code == 0, result.output
    command = json.loads((out / "manifest.json").read_text())["command"]
    assert "--no-own-overlap" not in command and "--max-inflate-ratio" not in command
    _one_record_over_and_over(tmp_path / "rep.ndjson.zst")
    args[-1] = str(tmp_path / "rep.ndjson.zst")
    refused = invoke(*args, "--format", "json", "--out", str(tmp_path / "refused"))
    assert refused.exit_code == 2, refused.output
    assert "(--max-inflate-ratio)" in refused.output


def test_they_need_raw_logs(tmp_path: Path) -> None:
    answers = str(REPO / "samples" / "vendors" / "well-run.yaml")
    for option in (["--no-own-overlap"], ["--max-inflate-ratio", "50"]):
        alone = invoke("report", "-a", answers, *option, "--out", str(tmp_path / "a"))
        assert alone.exit_code == 2 and "only apply to --logs" in alone.output, alone.output
