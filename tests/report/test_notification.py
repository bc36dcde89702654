"""The notification appendix of `assess report` (docs/report.md): the scope's notification pack
of the same run, in report.json, the HTML and beside the review, listed in the manifest; prompt
text never in it."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from tests.conftest import REPO
from tests.report.conftest import invoke

SAMPLES = REPO / "samples"
SECRET = "patient Jane Roe diagnosed with condition X"


def _logs(tmp_path: Path) -> Path:
    """A canonical log (docs/scope-formats.md) whose every request carries prompt and response
    text: over and under the trigger, three accounts and one request with none."""
    lines = []
    for i, (account, tokens) in enumerate(
        [
            ("acct-a", 700_000),
            ("acct-a", 1200),
            ("acct-b", 900_000),
            ("acct-b", 50),
            (None, 800_000),
            ("acct-c", None),
        ]
    ):
        record = {
            "timestamp": f"2026-09-0{i + 1}T10:00:00Z",
            "model": "glm-5.3",
            "request_id": f"r{i}",
            "account_id": account,
            "prompt_tokens": tokens,
            "provider": "workers-ai",
            "prompt": f"{SECRET} ({i})",
            "response": f"echo {SECRET}",
        }
        lines.append(json.dumps({k: v for k, v in record.items() if v is not None}))
    path = tmp_path / "logs.ndjson"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def _report(tmp_path: Path, logs: Path, *extra: str) -> Path:
    out = tmp_path / "review"
    answers = str(SAMPLES / "vendors" / "incident-like.yaml")
    args = ["report", "-a", answers, "--logs", str(logs), "--format", "html,json"]
    result = invoke(*args, "--out", str(out), *extra)
    assert result.exit_code == 0, result.output
    return out


def test_the_appendix_is_the_pack_of_the_same_run(tmp_path: Path) -> None:
    logs = _logs(tmp_path)
    out = _report(tmp_path, logs)
    pack = tmp_path / "pack"
    scoped = invoke("scope", str(logs), "--notification-pack", str(pack), "--json", "-")
    for name in ("accounts.csv", "requests.csv", "method.md", "pack.json"):
        assert (out / f"notification-{name}").read_bytes() == (pack / name).read_bytes()
    report = json.loads((out / "report.json").read_text())
    appendix = report["notification"]
    assert appendix["available"] is True
    accounts = list(csv.DictReader(io.StringIO((pack / "accounts.csv").read_text())))
    assert [a["account_id"] for a in appendix["accounts"]] == [a["account_id"] for a in accounts]
    # its totals add up to the exposure section of the same review
    assert sum(a["affected"] for a in appendix["accounts"]) == report["exposure"]["received"]
    assert appendix["method"]["advisory"] == "glm-5.3-kv-leak"
    manifest = json.loads((out / "manifest.json").read_text())
    listed = {e["path"] for e in manifest["outputs"]}
    assert set(appendix["files"]) <= listed
    html = (out / "report.html").read_text()
    assert 'id="notification"' in html and "Method statement" in html
    assert "acct-b" in html.split('id="notification"')[1]
    assert scoped.exit_code == 1


def test_no_prompt_text_reaches_the_appendix_or_its_files(tmp_path: Path) -> None:
    out = _report(tmp_path, _logs(tmp_path))
    for name in (
        "report.json",
        "report.html",
        *json.loads((out / "report.json").read_text())["notification"]["files"],
    ):
        assert SECRET not in (out / name).read_text(), name
    # asked for, the text shows where the review shows text, and still not in the pack
    shown = _report(tmp_path / "with", _logs(tmp_path), "--include-prompts")
    assert SECRET in (shown / "affected-requests.csv").read_text()
    for name in (
        "notification-accounts.csv",
        "notification-requests.csv",
        "notification-pack.json",
    ):
        assert SECRET not in (shown / name).read_text()


def test_from_a_scope_json_the_appendix_says_why_it_is_missing(tmp_path: Path) -> None:
    scope_json = tmp_path / "scope.json"
    invoke(
        "scope", str(SAMPLES / "logs" / "cloudflare-ai-gateway.ndjson"), "--json", str(scope_json)
    )
    out = _report(tmp_path, scope_json)
    appendix = json.loads((out / "report.json").read_text())["notification"]
    assert appendix["available"] is False
    assert "per-request rows" in appendix["why_not"]
    assert not list(out.glob("notification-*"))
    assert "Not available: the logs were given as" in (out / "report.html").read_text()


def test_without_logs_there_is_no_appendix(tmp_path: Path) -> None:
    out = tmp_path / "review"
    answers = str(SAMPLES / "vendors" / "incident-like.yaml")
    result = invoke("report", "-a", answers, "--format", "json", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert json.loads((out / "report.json").read_text())["notification"] is None
