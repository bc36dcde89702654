"""`assess report` carries scope's platform statement (--platform-requests, --platform-tokens,
--platform-mean-tokens, --served-by): the appendix shows N, V and the range, equals the pack
`assess scope` writes with the same options, and `assess verify` re-runs them (docs/report.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.report.conftest import invoke

SAMPLES = REPO / "samples"
# Langfuse records no serving provider: without --served-by every row is possibly affected
PLATFORM = ["--platform-requests", "2000000", "--platform-mean-tokens", "3000"]
STATEMENT = [*PLATFORM, "--served-by", "workers-ai"]
PACK_FILES = ("accounts.csv", "requests.csv", "method.md", "pack.json")


def _review(tmp_path: Path, *extra: str) -> Path:
    """A review of copied inputs (the manifest names them by file name) in tmp_path/review."""
    shutil.copy(SAMPLES / "vendors" / "well-run.yaml", tmp_path / "well-run.yaml")
    shutil.copy(SAMPLES / "logs" / "langfuse.json", tmp_path / "langfuse.json")
    out = tmp_path / "review"
    args = ["report", "-a", str(tmp_path / "well-run.yaml"), "--logs"]
    args += [str(tmp_path / "langfuse.json"), *extra, "--format", "json", "--out", str(out)]
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return out


def test_the_review_pack_equals_scopes_with_the_same_options(tmp_path: Path) -> None:
    out = _review(tmp_path, *STATEMENT)
    pack = tmp_path / "pack"
    scoped = invoke(
        "scope", str(tmp_path / "langfuse.json"), *STATEMENT, "--notification-pack", str(pack)
    )
    assert scoped.exit_code == 1, scoped.output
    for name in PACK_FILES:
        assert (out / f"notification-{name}").read_bytes() == (pack / name).read_bytes(), name
    report = json.loads((out / "report.json").read_text())
    method = report["notification"]["method"]
    assert method["platform_requests_N"] == 2_000_000
    assert method["platform_tokens_V"] == 6_000_000_000
    assert method["V_from"] == "N x --platform-mean-tokens"
    assert method["range"].startswith("lower = L_others x |S| / N")
    assert method["assumptions"] and all(a["bias"] for a in method["assumptions"])
    estimate = report["exposure"]["disclosed"]["estimate"]
    assert estimate["applies"] is True
    assert estimate["platform_requests"] == 2_000_000
    assert estimate["upper"]["denominator"] > 0
    # --served-by made the Langfuse rows affected, and the review says so
    assert report["exposure"]["received"] == 5
    assert report["exposure"]["filter"]["serving_platform"] == "workers-ai"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["command"][6:12] == STATEMENT


def test_without_the_statement_the_appendix_has_no_range(tmp_path: Path) -> None:
    out = _review(tmp_path)
    method = json.loads((out / "report.json").read_text())["notification"]["method"]
    assert method["platform_requests_N"] is None
    received = json.loads((out / "report.json").read_text())["exposure"]["received"]
    assert received == 0  # no provider logged: possibly affected, not received


def test_verify_reruns_the_recorded_statement_and_an_edit_fails(tmp_path: Path) -> None:
    out = _review(tmp_path, *STATEMENT)
    agreed = invoke("verify", str(out), "--inputs", str(tmp_path))
    assert agreed.exit_code == 2, agreed.output  # unsigned: agrees, not proven
    assert "DIFFERS" not in agreed.output
    path = out / "manifest.json"
    manifest = json.loads(path.read_text())
    at = manifest["command"].index("--platform-requests")
    manifest["command"][at + 1] = "3000000"
    path.write_text(json.dumps(manifest, indent=2) + "\n")
    edited = invoke("verify", str(out), "--inputs", str(tmp_path))
    assert edited.exit_code == 1, edited.output
    assert "DIFFERS notification appendix recomputed from the logs" in edited.output
    assert "DIFFERS output notification-method.md re-rendered" in edited.output


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--served-by", "acme-cloud"], "acme-cloud"),
        (["--platform-requests", "0"], "--platform-requests"),
    ],
)
def test_the_statement_is_validated_as_scope_validates_it(
    tmp_path: Path, args: list[str], said: str
) -> None:
    answers = str(SAMPLES / "vendors" / "well-run.yaml")
    logs = str(SAMPLES / "logs" / "langfuse.json")
    result = invoke("report", "-a", answers, "--logs", logs, *args, "--out", str(tmp_path / "r"))
    assert result.exit_code == 2, result.output
    assert said in result.output
    assert not (tmp_path / "r" / "report.json").exists()


def test_the_statement_needs_raw_logs(tmp_path: Path) -> None:
    answers = str(SAMPLES / "vendors" / "well-run.yaml")
    alone = invoke("report", "-a", answers, *PLATFORM, "--out", str(tmp_path / "a"))
    assert alone.exit_code == 2 and "only apply to --logs" in alone.output
    scope_json = tmp_path / "scope.json"
    invoke("scope", str(SAMPLES / "logs" / "langfuse.json"), "--json", str(scope_json))
    doc = invoke(
        "report", "-a", answers, "--logs", str(scope_json), *PLATFORM, "--out", str(tmp_path / "b")
    )
    assert doc.exit_code == 2 and "scoped already" in doc.output, doc.output
