"""`assess verify DIR`: every listed file re-hashed, the PDF's report.json, the score recomputed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from assess.report.verify import recorded_command
from tests.conftest import REPO
from tests.report.conftest import invoke

# verify re-renders the same review's PDF in most tests here: once per report (conftest.py)
pytestmark = pytest.mark.usefixtures("rerendered_pdf_once")
SAMPLES = REPO / "samples"
INPUTS = {
    "incident-like.yaml": SAMPLES / "vendors" / "incident-like.yaml",
    "cloudflare-ai-gateway.ndjson": SAMPLES / "logs" / "cloudflare-ai-gateway.ndjson",
    "leaky-lab.json": SAMPLES / "probes" / "leaky-lab.json",
    "sglang-prefill.log": SAMPLES / "serverlogs" / "sglang-prefill.log",
    "sglang-decode.log": SAMPLES / "serverlogs" / "sglang-decode.log",
}
OUTPUTS = [
    "affected-requests.csv",
    "notification-accounts.csv",
    "notification-method.md",
    "notification-pack.json",
    "notification-requests.csv",
    "report.html",
    "report.json",
    "report.pdf",
]


@pytest.fixture(scope="module")
def made(module_tmp: Path) -> Path:
    """A review of copied inputs (named by file name in the manifest) in made/review."""
    root = module_tmp / "made"
    (root / "in").mkdir(parents=True)
    for name, src in INPUTS.items():
        shutil.copy(src, root / "in" / name)
    src = root / "in"
    args = ["report", "-a", str(src / "incident-like.yaml"), "--incident", "glm-5.3-kv-leak"]
    args += [
        "--logs",
        str(src / "cloudflare-ai-gateway.ndjson"),
        "--probe",
        str(src / "leaky-lab.json"),
    ]
    args += ["--deploy-log", str(src / "sglang-prefill.log")]
    args += ["--deploy-log", str(src / "sglang-decode.log"), "--out", str(root / "review")]
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return root


def copy_of(made: Path, dest: Path) -> Path:
    shutil.copytree(made, dest)
    return dest


def verify(root: Path, *extra: str) -> Any:
    return invoke("verify", str(root / "review"), "--inputs", str(root / "in"), *extra)


def test_a_fresh_unsigned_review_agrees_but_is_not_proven(made: Path) -> None:
    result = verify(made)
    assert result.exit_code == 2, result.output
    assert "DIFFERS" not in result.output
    assert "ok      score recomputed from the inputs: score 100, tier critical" in result.output
    assert "ok      PDF attachment report.json: identical to report.json" in result.output
    last = result.output.rstrip().splitlines()[-1]
    assert "every check holds" not in last
    assert "not proven: the files agree with manifest.json, but that proves nothing" in last
    assert "The bundle is unsigned" in last and last.endswith("(30 checks)")
    for name in OUTPUTS:  # rebuilt from the inputs and rendered again: the same bytes
        assert f"ok      output {name} re-rendered: byte for byte as written" in result.output
    assert "ok      exposure recomputed from the logs: 5 received as stated" in result.output
    assert (
        "ok      notification appendix recomputed from the logs: 4 account(s) as stated"
    ) in result.output


def test_the_flip_tests_cover_every_listed_file(made: Path) -> None:
    manifest = json.loads((made / "review" / "manifest.json").read_text())
    assert sorted(e["path"] for e in manifest["outputs"]) == OUTPUTS
    assert sorted(e["path"] for e in manifest["inputs"]) == sorted(INPUTS)


@pytest.mark.parametrize("name", [*OUTPUTS, *INPUTS])
def test_one_flipped_byte_in_any_listed_file_fails(made: Path, tmp_path: Path, name: str) -> None:
    root = copy_of(made, tmp_path / "copy")
    path = root / ("in" if name in INPUTS else "review") / name
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    result = verify(root)
    assert result.exit_code == 1, result.output
    differs = [line for line in result.output.splitlines() if line.startswith("DIFFERS")]
    kind = "input" if name in INPUTS else "output"
    assert any(line.startswith(f"DIFFERS {kind} {name}") for line in differs), differs
    assert "difference(s)" in result.output


def test_a_score_edited_with_matching_hashes_is_caught(made: Path, tmp_path: Path) -> None:
    """An edit that also rewrites the manifest's hashes: the PDF and the recomputation disagree."""
    import hashlib

    root = copy_of(made, tmp_path / "copy")
    review = root / "review"
    doc = json.loads((review / "report.json").read_text())
    doc["score"], doc["tier"] = 35, "medium"
    data = (json.dumps(doc, indent=2) + "\n").encode()
    (review / "report.json").write_bytes(data)
    manifest = json.loads((review / "manifest.json").read_text())
    for entry in manifest["outputs"]:
        if entry["path"] == "report.json":
            entry["sha256"], entry["bytes"] = hashlib.sha256(data).hexdigest(), len(data)
    (review / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    result = verify(root)
    assert result.exit_code == 1
    assert "ok      output report.json" in result.output
    assert "DIFFERS PDF attachment report.json: the PDF's report.json" in result.output
    assert (
        "DIFFERS score recomputed from the inputs: score 35, tier medium, points 191 stated; "
        "recomputed 100, critical, 191"
    ) in result.output


def test_a_notification_file_edited_with_matching_hashes_is_caught(
    made: Path, tmp_path: Path
) -> None:
    """An account dropped from the notification CSV, the manifest re-hashed: re-rendering the
    pack from the logs gives other bytes."""
    import hashlib

    root = copy_of(made, tmp_path / "copy")
    review = root / "review"
    path = review / "notification-accounts.csv"
    data = b"".join(path.read_bytes().splitlines(keepends=True)[:-1])
    path.write_bytes(data)
    manifest = json.loads((review / "manifest.json").read_text())
    for entry in manifest["outputs"]:
        if entry["path"] == path.name:
            entry["sha256"], entry["bytes"] = hashlib.sha256(data).hexdigest(), len(data)
    (review / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    result = verify(root)
    assert result.exit_code == 1, result.output
    assert "ok      output notification-accounts.csv: sha256" in result.output
    assert "DIFFERS output notification-accounts.csv re-rendered" in result.output


def test_a_missing_input_is_cannot_check_never_differs(made: Path, tmp_path: Path) -> None:
    root = copy_of(made, tmp_path / "copy")
    (root / "in" / "leaky-lab.json").unlink()
    result = verify(root)
    assert result.exit_code == 2, result.output
    assert "DIFFERS" not in result.output
    assert "skipped input leaky-lab.json (probe): cannot check: not present under" in (
        result.output
    )
    assert "skipped score recomputed from the inputs: cannot check: leaky-lab.json not present" in (
        result.output
    )
    assert "(give --inputs FOLDER)" in result.output
    assert "cannot check 3 item(s)" in result.output.splitlines()[-1]
    # the logs alone missing: the score is recomputed, the rest cannot be checked
    (root / "in" / "cloudflare-ai-gateway.ndjson").unlink()
    shutil.copy(INPUTS["leaky-lab.json"], root / "in" / "leaky-lab.json")
    no_logs = verify(root)
    assert no_logs.exit_code == 2, no_logs.output
    assert "ok      score recomputed from the inputs" in no_logs.output
    assert (
        "skipped exposure, governance, plan and outputs re-rendered from the inputs: cannot "
        "check: cloudflare-ai-gateway.ndjson not present"
    ) in no_logs.output
    alone = invoke("verify", str(root / "review"), "--no-inputs", "--json", "-")
    assert alone.exit_code == 2, alone.output  # nothing differs; unsigned, so nothing proven
    doc = json.loads(alone.stdout)
    assert doc["signature"] == "unsigned"
    statuses = {c["what"]: c["status"] for c in doc["checks"]}
    assert statuses["input leaky-lab.json (probe)"] == "not-checked"
    assert statuses["output report.pdf"] == "ok"


def test_a_fresh_demo_verifies_and_is_byte_identical_twice(tmp_path: Path) -> None:
    for out in ("demo", "demo-again"):
        assert invoke("demo", "--out", str(tmp_path / out)).exit_code == 0
    listed = ["manifest.json", *OUTPUTS]
    for name in listed:  # SOURCE_DATE_EPOCH is set by invoke: the same bytes
        assert (tmp_path / "demo" / name).read_bytes() == (
            tmp_path / "demo-again" / name
        ).read_bytes()
    runs = [invoke("verify", str(tmp_path / out), "--json", "-") for out in ("demo", "demo-again")]
    assert [r.exit_code for r in runs] == [2, 2]  # unsigned: agrees, not proven
    first, second = (json.loads(r.stdout) for r in runs)
    assert first["checks"] == second["checks"]
    assert first["checks"][0]["what"] == "signature"
    assert all(c["status"] == "ok" for c in first["checks"][1:])


def test_bad_usage_is_exit_2(tmp_path: Path) -> None:
    missing = invoke("verify", str(tmp_path / "nowhere"))
    assert missing.exit_code == 2 and "no such folder" in missing.output
    (tmp_path / "empty").mkdir()
    empty = invoke("verify", str(tmp_path / "empty"))
    assert empty.exit_code == 2 and "no manifest.json in it" in empty.output
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "manifest.json").write_text('{"kind": "assess.manifest"}')
    bad = invoke("verify", str(tmp_path / "bad"))
    assert bad.exit_code == 2 and "Traceback" not in bad.output


def test_recorded_command_reads_the_score_bearing_options() -> None:
    recorded = recorded_command(
        ["assess", "report", "--answers", "a.yaml", "--review", "r.yaml", "--probe", "p1",
         "--probe", "p2", "--some-flag", "--deploy-log", "x.log", "--evidence-for-vendor",
         "--period", "2026-09-01..2026-09-30", "--out", ".", "--format", "json"]
    )  # fmt: skip
    assert recorded.questionnaire == "a.yaml"
    assert recorded.probes == ["p1", "p2"] and recorded.deploy_logs == ["x.log"]
    assert recorded.evidence_for_vendor and recorded.period == "2026-09-01..2026-09-30"


def test_the_recorded_options_are_used_to_recompute(tmp_path: Path) -> None:
    """--evidence-for-vendor and --period change the score; the manifest records both, and
    verify recomputes with them (without them the lab probe would not score)."""
    shutil.copy(SAMPLES / "vendors" / "well-run.yaml", tmp_path / "well-run.yaml")
    shutil.copy(INPUTS["leaky-lab.json"], tmp_path / "leaky-lab.json")
    out = tmp_path / "review"
    args = [
        "report",
        "--answers",
        str(tmp_path / "well-run.yaml"),
        "--probe",
        str(tmp_path / "leaky-lab.json"),
    ]
    args += ["--evidence-for-vendor", "--period", "2026-11-01..2026-12-31", "--format", "json"]
    assert invoke(*args, "--out", str(out)).exit_code == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["command"][-3:] == [
        "--evidence-for-vendor",
        "--period",
        "2026-11-01..2026-12-31",
    ]
    assert json.loads((out / "report.json").read_text())["tier"] == "critical"
    result = invoke("verify", str(out), "--inputs", str(tmp_path))
    assert result.exit_code == 2, result.output  # unsigned: agrees, not proven
    assert "DIFFERS" not in result.output
    bad = invoke(*args[:-4], "--period", "next week", "--out", str(tmp_path / "bad"))
    assert bad.exit_code == 2 and "--period 'next week': expected FROM..TO" in bad.output


def test_a_review_scored_with_an_older_questionnaire_says_which_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review made by an assess whose questionnaire was version 1: the score is not recomputed
    with today's rules (it would "differ" for that reason alone); verify says which version."""
    import assess.vendor.bank as bank

    real = bank.load_questionnaire_file
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(INPUTS["incident-like.yaml"], src / "incident-like.yaml")
    with monkeypatch.context() as patch:
        patch.setattr(
            bank, "load_questionnaire_file", lambda p: real(p).model_copy(update={"version": 1})
        )
        made = invoke("report", "-a", str(src / "incident-like.yaml"), "--out",
                      str(tmp_path / "review"))  # fmt: skip
    assert made.exit_code == 0, made.output
    stated = json.loads((tmp_path / "review" / "report.json").read_text())["scoring"]
    assert stated["questionnaire_version"] == "1"
    result = verify(tmp_path)
    assert result.exit_code == 2, result.output
    assert "DIFFERS" not in result.output
    flat = " ".join(result.output.split())
    assert (
        "skipped score recomputed from the inputs: cannot check: the review was scored with "
        "questionnaire llm-inference-isolation version 1; this assess scores with "
        "llm-inference-isolation version 4" in flat
    )
