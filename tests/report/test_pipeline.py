"""End to end on the shipped samples: raw answers, request logs and server logs; `assess demo`."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import html5lib
import pypdf
import pytest
from typer.testing import CliRunner

from assess.cli import app
from assess.cli.report import DEMO_LOGS, DEMO_PROBE, DEMO_SERVERLOGS, DEMO_VENDOR
from assess.kernel.resources import data_dir
from tests.conftest import CLI_ENV
from tests.report.conftest import copy_assets, full_args, invoke

SAMPLES = data_dir("samples")


def raw_args(out: Path, *extra: str) -> list[str]:
    args = [
        "report",
        "--answers",
        str(SAMPLES / DEMO_VENDOR),
        "--logs",
        str(SAMPLES / DEMO_LOGS),
        "--incident",
        "glm-5.3-kv-leak",
    ]
    for log in DEMO_SERVERLOGS:
        args += ["--deploy-log", str(SAMPLES / log)]
    return [*args, "--out", str(out), "--format", "json,html", *extra]


@pytest.fixture(scope="module")
def raw_review(module_tmp: Path) -> Path:
    out = module_tmp / "raw"
    result = invoke(*raw_args(out))
    assert result.exit_code == 0, result.output
    return out


def test_raw_inputs_are_scored_scoped_and_checked(raw_review: Path) -> None:
    doc = json.loads((raw_review / "report.json").read_text())
    assert doc["tier"] == "critical"
    assert doc["exposure"]["assessed"] and doc["deployment"]["assessed"]
    assert [n["section"] for n in doc["not_assessed"]] == ["probes"]
    roles = sorted(i["role"] for i in doc["inputs"])
    assert roles == ["deploy-log", "deploy-log", "logs", "questionnaire"]
    counts = doc["exposure"]["counts"]
    assert counts["in_window"] == (
        counts["over_threshold"] + counts["at_or_under_threshold"] + counts["unknown_tokens"]
    )
    assert doc["exposure"]["received"] == counts["over_threshold"] > 0
    # the deploy-check's per-node findings are folded into the questionnaire's where they agree
    ids = [f["id"] for f in doc["findings"]]
    assert len(ids) == len(set(ids))
    titles = [f["title"] for f in doc["findings"]]
    assert len(titles) == len(set(titles))
    assert not any(t.startswith("sglang-prefill: ") for t in titles)
    # raw answers are scored here: the uncapped total and its sections are in the report
    scoring = doc["scoring"]
    assert sum(scoring["section_points"].values()) == scoring["points_total"] >= doc["score"]
    html = (raw_review / "report.html").read_text()
    assert f"before the cap the findings add up to {scoring['points_total']} points" in html
    assert "sets the tier to critical, whatever the points add up to" in html


def test_affected_requests_csv_lists_received_and_possibly_affected(raw_review: Path) -> None:
    doc = json.loads((raw_review / "report.json").read_text())
    rows = list(csv.DictReader(io.StringIO((raw_review / "affected-requests.csv").read_text())))
    received = [r for r in rows if r["exposure"] == "received"]
    possible = [r for r in rows if r["exposure"] == "possibly_affected"]
    assert len(received) == doc["exposure"]["received"]
    assert len(possible) == doc["exposure"]["counts"]["unknown_tokens"]
    assert "prompt" not in rows[0] and "response" not in rows[0]
    assert all(int(r["prompt_tokens"]) > 681_280 for r in received)


def test_include_prompts_adds_prompt_and_response_columns(module_tmp: Path) -> None:
    out = module_tmp / "raw-prompts"
    result = invoke(*raw_args(out, "--include-prompts"))
    assert result.exit_code == 0, result.output
    header = (out / "affected-requests.csv").read_text().splitlines()[0].split(",")
    assert header[-2:] == ["prompt", "response"]


def test_include_prompts_fills_the_prompt_and_response_columns(module_tmp: Path) -> None:
    """The columns used to be added but always left empty: the text was not kept while scoping."""
    out = module_tmp / "litellm-prompts"
    args = [
        "report",
        "--answers",
        str(SAMPLES / DEMO_VENDOR),
        "--logs",
        str(SAMPLES / "logs/litellm.ndjson"),
    ]
    args += ["--incident", "glm-5.3-kv-leak", "--out", str(out), "--format", "json"]
    result = invoke(*args, "--include-prompts")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO((out / "affected-requests.csv").read_text())))
    first = next(r for r in rows if r["request_id"] == "chatcmpl-lt-r01")
    # LiteLLM forwarded it to OpenRouter, which does not say who served it (docs/exposure.md)
    assert first["exposure"] == "possibly_affected"
    assert "Summarise the attached contract bundle." in first["prompt"]
    assert "Summary ..." in first["response"]


def test_deploy_check_and_deploy_log_together_is_refused(module_tmp: Path) -> None:
    result = invoke(*raw_args(module_tmp / "never"), "--deploy-check", "x.json")
    assert result.exit_code == 2
    assert "cannot be used together" in result.output


@pytest.fixture(scope="module")
def demo(demo_review: tuple[Path, str]) -> tuple[Path, str]:
    return demo_review  # read only: built once for the session (tests/report/conftest.py)


def test_demo_writes_every_file_and_prints_the_paths(demo: tuple[Path, str]) -> None:
    out, output = demo
    for name in (
        "report.html",
        "report.pdf",
        "report.json",
        "report.oscal.json",
        "findings-register.xlsx",
        "affected-requests.csv",
        "manifest.json",
    ):
        assert (out / name).is_file(), name
        assert str(out / name) in output
    assert "CRITICAL risk" in output
    html5lib.HTMLParser(strict=True).parse((out / "report.html").read_bytes())
    # the lab probe is a simulation: labelled, shown, not scored against the sample vendor
    assert "Demo: the probe evidence is a simulation" in output
    findings = json.loads((out / "report.json").read_text())["findings"]
    (label,) = [f for f in findings if f["id"] == "evidence-not-about-vendor.probe"]
    assert label["severity"] == "info" and "loopback host (127.0.0.1)" in label["title"]
    assert not any(f["contradiction"] and "evidence:probe" in f["rests_on"] for f in findings)


def test_demo_pdf_shows_what_report_json_says(demo: tuple[Path, str]) -> None:
    out, _ = demo
    doc = json.loads((out / "report.json").read_text())
    reader = pypdf.PdfReader(io.BytesIO((out / "report.pdf").read_bytes()))
    text = "".join("".join(p.extract_text().split()) for p in reader.pages)
    assert f"score{doc['score']}/100" in text
    assert f"{doc['tier'].upper()}RISK" in text
    assert f"Received:requestsoverthetriggerinthewindow{doc['exposure']['received']}" in text
    for finding in doc["findings"]:
        assert "".join(finding["title"].split()) in text, finding["title"]
    expected_inputs = {"questionnaire", "logs", "deploy-log", "review"}
    assert doc["governance"]["status"] == "rejected"  # the sample committee's review file
    assert "REJECTED,TPRM-2026-014v1.0" in text
    if (SAMPLES / DEMO_PROBE).is_file():
        expected_inputs.add("probe")
        assert doc["probes"]["assessed"]
    assert {i["role"] for i in doc["inputs"]} == expected_inputs


def test_no_private_folder_reaches_report_json(module_tmp: Path) -> None:
    """Inputs copied to a temporary folder: the review names them by file name only, even where
    the scoring quotes a node's log (these logs contradict the well-run vendor's claims).
    """
    import shutil

    private = module_tmp / "private-folder"
    private.mkdir()
    vendor = "vendors/well-run.yaml"
    for name in (vendor, DEMO_LOGS, DEMO_PROBE, *DEMO_SERVERLOGS):
        shutil.copy(SAMPLES / name, private / Path(name).name)
    # the logs (August) are older than the answers (November): vouched for, so they score
    args = ["report", "-a", str(private / Path(vendor).name), "--evidence-for-vendor"]
    args += ["--logs", str(private / Path(DEMO_LOGS).name), "--incident", "glm-5.3-kv-leak"]
    args += ["--probe", str(private / Path(DEMO_PROBE).name)]
    for log in DEMO_SERVERLOGS:
        args += ["--deploy-log", str(private / Path(log).name)]
    out = module_tmp / "private-out"
    result = invoke(*args, "--out", str(out), "--format", "json,html")
    assert result.exit_code == 0, result.output
    for name in ("report.json", "manifest.json", "report.html"):
        assert "private-folder" not in (out / name).read_text(), name
    doc = json.loads((out / "report.json").read_text())
    assert any("sglang-prefill.log" in f["detail"] for f in doc["findings"])


def test_a_score_computed_without_the_evidence_does_not_claim_it_was_checked(
    module_tmp: Path,
) -> None:
    """A score document of a vendor that claims isolation, plus a leaky probe it never weighed:
    the review used to say the evidence "does not contradict any of the vendor's answers"."""
    src = module_tmp / "score-without-probe"
    src.mkdir()
    vendor, probe = SAMPLES / "vendors/well-run.yaml", SAMPLES / DEMO_PROBE
    scored = invoke("score", str(vendor), "--json", str(src / "score.json"))
    assert scored.exit_code == 0, scored.output
    out = module_tmp / "score-without-probe-out"
    args = ["report", "-a", str(src / "score.json"), "--probe", str(probe), "--out", str(out)]
    result = invoke(*args, "--format", "json,html")
    assert result.exit_code == 0, result.output
    assert "Not assessed (contradictions)" in result.output
    doc = json.loads((out / "report.json").read_text())
    [item] = [n for n in doc["not_assessed"] if n["section"] == "contradictions"]
    assert "leaky-lab.json" in item["reason"]
    html = (out / "report.html").read_text()
    assert "does not contradict" not in html
    html5lib.HTMLParser(strict=True).parse(html)
    # a score computed with that probe has weighed it: nothing to warn about
    # (the lab's probe is not about this vendor: --evidence-for-vendor makes it score)
    with_probe = ["score", str(vendor), "--probe", str(probe), "--evidence-for-vendor"]
    with_probe += ["--json", str(src / "with.json")]
    assert invoke(*with_probe).exit_code in (0, 1)
    out2 = module_tmp / "score-with-probe-out"
    args = ["report", "-a", str(src / "with.json"), "--probe", str(probe), "--out", str(out2)]
    result = invoke(*args, "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads((out2 / "report.json").read_text())
    assert "contradictions" not in [n["section"] for n in doc["not_assessed"]]
    assert any(f["contradiction"] for f in doc["findings"])


def test_a_probe_document_missing_a_field_is_a_clean_exit_2(module_tmp: Path) -> None:
    """It used to end in a pydantic traceback (exit 1) while scoring the raw answers."""
    probe = module_tmp / "half-probe.json"
    probe.write_text('{"schema_version": 1, "kind": "assess.probe"}\n')
    args = ["report", "-a", str(SAMPLES / DEMO_VENDOR), "--probe", str(probe)]
    result = CliRunner(env=CLI_ENV).invoke(app, [*args, "--out", str(module_tmp / "never")])
    assert result.exit_code == 2, result.output
    assert f"{probe}: leak_found: Field required" in result.output
    assert "Traceback" not in result.output
    assert not (module_tmp / "never").exists()


def test_a_review_written_over_an_earlier_one_leaves_none_of_its_files(module_tmp: Path) -> None:
    """The folder ends up holding one review, the one its manifest lists: files of the earlier
    run that this one does not write are removed (and said so); other files stay."""
    src = copy_assets(module_tmp / "overwrite-src")
    out = module_tmp / "overwrite"
    first = invoke(*full_args(src, out, "--format", "json,html"))
    assert first.exit_code in (0, 1), first.output
    assert (out / "report.html").is_file()
    (out / "notes.txt").write_text("the reviewer's own notes")
    refused = invoke(*full_args(src, out, "--format", "json"))
    assert refused.exit_code == 2 and "holds a review already" in refused.output
    assert (out / "report.html").is_file()
    second = invoke(*full_args(src, out, "--format", "json", "--force"))
    assert second.exit_code in (0, 1), second.output
    assert not (out / "report.html").exists()
    assert f"Removed {out / 'report.html'}" in second.output
    assert (out / "notes.txt").read_text() == "the reviewer's own notes"
    manifest = json.loads((out / "manifest.json").read_text())
    listed = {entry["path"] for entry in manifest["outputs"]}
    on_disk = {p.name for p in out.iterdir()} - {"manifest.json", "notes.txt"}
    assert listed == on_disk


def test_logs_with_no_usable_request_are_not_assessable_in_the_report(module_tmp: Path) -> None:
    """As in `assess scope`: logs whose every record is malformed are no evidence that nothing
    was affected; the review says "not assessable" and why, never "none of our requests"."""
    logs = module_tmp / "junk.ndjson"
    logs.write_text('{"x": 1}\n{"x": 2}\n')
    out = module_tmp / "junk-review"
    args = ["report", "--answers", str(SAMPLES / DEMO_VENDOR), "--logs", str(logs)]
    args += ["--incident", "glm-5.3-kv-leak"]
    result = invoke(*args, "--preset", "canonical", "--out", str(out), "--format", "json")
    assert result.exit_code in (0, 1), result.output
    report = json.loads((out / "report.json").read_text())
    exposure = report["exposure"]
    assert exposure["verdict"] == "not_assessable"
    assert exposure["not_assessable"][0].startswith(
        "junk.ndjson: none of the 2 records read is a usable request"
    )
    text = json.dumps(report)
    assert "Not assessable from these logs for glm-5.3-kv-leak: " in text
    assert str(module_tmp) not in text
