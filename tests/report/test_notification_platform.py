"""`assess report` carries scope's platform statement (--platform-requests, --platform-tokens,
--platform-mean-tokens, --served-by): the appendix shows N, V and the range, equals the pack
`assess scope` writes with the same options, and `assess verify` re-runs them (docs/report.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.report.conftest import invoke, json_review

SAMPLES = REPO / "samples"
# Langfuse records no serving provider: without --served-by every row is possibly affected
PLATFORM = ["--platform-requests", "2000000", "--platform-mean-tokens", "3000"]
STATEMENT = [*PLATFORM, "--served-by", "workers-ai"]
PACK_FILES = ("accounts.csv", "requests.csv", "method.md", "pack.json")


def _review(tmp_path: Path, *extra: str) -> Path:
    """A review of copied inputs (the manifest names them by file name) in tmp_path/review."""
    shutil.copy(SAMPLES / "logs" / "langfuse.json", tmp_path / "langfuse.json")
    return json_review(tmp_path, tmp_path / "langfuse.json", *extra)


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


def test_verify_quotes_the_values_that_differ(tmp_path: Path) -> None:
    out = _review(tmp_path, *STATEMENT)
    path = out / "manifest.json"
    manifest = json.loads(path.read_text())
    at = manifest["command"].index("--platform-requests")
    manifest["command"][at + 1] = "3000000"
    path.write_text(json.dumps(manifest, indent=2) + "\n")
    edited = invoke("verify", str(out), "--inputs", str(tmp_path)).output
    assert "method.platform_requests_N: 2000000 stated, 3000000 recomputed" in edited
    assert "disclosed.estimate.platform_requests: 2000000 stated, 3000000 recomputed" in edited


def test_the_review_shows_the_range_and_a_readable_method_never_the_point_figure(
    tmp_path: Path,
) -> None:
    shutil.copy(SAMPLES / "vendors" / "well-run.yaml", tmp_path / "well-run.yaml")
    out = tmp_path / "review"
    args = ["report", "-a", str(tmp_path / "well-run.yaml"), "--logs", str(SAMPLES / "logs")]
    args[-1] += "/cloudflare-ai-gateway.ndjson"
    result = invoke(*args, *PLATFORM, "--format", "html,json", "--out", str(out))
    assert result.exit_code == 0, result.output
    html = (out / "report.html").read_text()
    assert "Probability at least one did" not in html and "P(at least one)" not in html
    assert "The chance that a leak carried our data (a range)" in html
    method = html.split("Method statement")[1].split("</dl>")[0]
    assert "<dt>Platform requests N</dt><dd>2,000,000 (given with --platform-requests)" in method
    for raw in ("None", "True", "advisorys", "platform requests N None"):
        assert raw not in method, raw
    share = json.loads((out / "report.json").read_text())["exposure"]["disclosed"]
    assert share["platform_share"]["superseded_by"] == "estimate"


def test_from_a_scope_json_the_console_says_why_and_what_to_run(tmp_path: Path) -> None:
    scope_json = tmp_path / "scope.json"
    invoke("scope", str(SAMPLES / "logs" / "langfuse.json"), "--json", str(scope_json))
    answers = str(SAMPLES / "vendors" / "well-run.yaml")
    out = tmp_path / "review"
    result = invoke("report", "-a", answers, "--logs", str(scope_json), "--out", str(out))
    assert result.exit_code == 0, result.output
    said = result.output.replace("\n", " ")
    assert "Notification appendix not available: the logs were given as" in said
    assert "without their account or time" in said
    assert "assess scope LOGS --notification-pack DIR" in said
    why = json.loads((out / "report.json").read_text())["notification"]["why_not"]
    assert "--platform-requests" in why
