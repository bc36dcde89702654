"""One numbering of findings: a ref names the same finding in the score document, report.json,
the HTML and the PDF (assess/vendor/scoring/refs.py)."""

from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path
from typing import Any

import pypdf
import pytest

from assess.vendor.scoring.refs import assign_refs, ref_number
from tests.conftest import REPO
from tests.report.conftest import invoke

SAMPLES = REPO / "samples"
LOGS = [str(SAMPLES / "serverlogs" / n) for n in ("sglang-prefill.log", "sglang-decode.log")]


@pytest.fixture(scope="module")
def docs(module_tmp: Path) -> dict[str, Any]:
    deploy = module_tmp / "deploy.json"
    assert invoke("deploy-check", *LOGS, "--json", str(deploy)).exit_code == 1
    answers = str(SAMPLES / "vendors" / "incident-like.yaml")
    evidence = [
        "--deploy-check",
        str(deploy),
        "--probe",
        str(SAMPLES / "probes" / "leaky-lab.json"),
    ]
    score = invoke("score", answers, *evidence, "--json", "-")
    out = module_tmp / "review"
    result = invoke("report", "-a", answers, *evidence, "--out", str(out))
    assert result.exit_code == 0, result.output
    pdf = pypdf.PdfReader(io.BytesIO((out / "report.pdf").read_bytes()))
    return {
        "score": json.loads(score.stdout),
        "report": json.loads((out / "report.json").read_text()),
        "html": (out / "report.html").read_text(),
        "pdf": "".join("".join(page.extract_text() for page in pdf.pages).split()),
    }


def test_every_scored_finding_keeps_its_ref_in_the_report(docs: dict[str, Any]) -> None:
    scored = {f["ref"]: f["id"] for f in docs["score"]["findings"]}
    reviewed = {f["ref"]: f["id"] for f in docs["report"]["findings"]}
    # 20 scored since score carries deploy-check's advisory-settings-expose as deploy-advisory.*
    # (f7cda1d); the review folds deploy-check's own into it, so two deploy-check findings remain.
    # 19 since the transfer-race advisory holds disaggregated-transfers-unverified (acc41 m3).
    assert len(scored) == 19 and len(reviewed) == len(docs["report"]["findings"]) == 21
    assert {ref: reviewed[ref] for ref in scored} == scored


def test_the_deployment_checks_own_findings_are_numbered_after_the_scores(
    docs: dict[str, Any],
) -> None:
    last = max(ref_number(f["ref"]) or 0 for f in docs["score"]["findings"])
    extra = [f for f in docs["report"]["findings"] if f["source"] == "deploy-check"]
    assert [(f["ref"], f["id"]) for f in extra] == [
        ("F-20", "isolation-setting-off"),
        ("F-21", "isolation-settings-not-in-log"),
    ]
    assert all((ref_number(f["ref"]) or 0) > last for f in extra)
    ranks = ["critical", "high", "medium", "low", "info"]
    order = [ranks.index(f["severity"]) for f in docs["report"]["findings"]]
    assert order == sorted(order)  # still worst first


def test_html_and_pdf_show_each_ref_with_its_finding(docs: dict[str, Any]) -> None:
    findings = docs["report"]["findings"]
    page = docs["html"]
    shown = list(dict.fromkeys(re.findall(r"<strong>(F-\d\d)</strong>", page)))
    assert shown == [f["ref"] for f in findings]
    for here, after in zip(findings, [*findings[1:], None], strict=True):
        start = page.index(f"<strong>{here['ref']}</strong>")
        end = page.index(f"<strong>{after['ref']}</strong>") if after else len(page)
        assert here["title"] in html.unescape(page[start:end]), here["ref"]
    text = docs["pdf"]
    positions = [text.find(f["ref"] + f["severity"].upper()) for f in findings]
    assert -1 not in positions and positions == sorted(positions)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ([], []),
        (["", "", ""], ["F-01", "F-02", "F-03"]),
        (["F-02", "", "F-01", "x"], ["F-02", "F-03", "F-01", "F-04"]),
        (["F-09", "F-10", ""], ["F-09", "F-10", "F-11"]),
    ],
)
def test_assign_refs(given: list[str], expected: list[str]) -> None:
    assert assign_refs(given) == expected


def test_the_review_says_what_each_evidence_item_is_about(docs: dict[str, Any]) -> None:
    lines = docs["report"]["scoring"]["evidence"]
    assert lines == [
        "Probe (http://127.0.0.1:8000/v1; model lab-glm-5.3; dated 2026-12-02): not about this "
        "vendor (loopback host (127.0.0.1): a lab or simulation, not the vendor); current; not "
        "scored.",
        "Deployment check (sglang-prefill, sglang-decode; model zai-org/GLM-5.3-FP8; dated "
        "2026-08-26): about this vendor (model zai-org/GLM-5.3-FP8 is served by this vendor "
        "(vendor.models)); current; scored.",
    ]
    page = html.unescape(docs["html"])
    assert all(line in page for line in lines)
    assert [e["scored"] for e in docs["score"]["evidence"]] == [False, True]


def test_a_review_of_the_score_document_keeps_its_refs(
    docs: dict[str, Any], module_tmp: Path
) -> None:
    scored = module_tmp / "score.json"
    scored.write_text(json.dumps(docs["score"]))
    out = module_tmp / "from-score"
    deploy = str(module_tmp / "deploy.json")
    result = invoke("report", "-a", str(scored), "--deploy-check", deploy, "--format", "json",
                    "--out", str(out))  # fmt: skip
    assert result.exit_code == 0, result.output
    again = json.loads((out / "report.json").read_text())
    assert [(f["ref"], f["id"]) for f in again["findings"]] == [
        (f["ref"], f["id"]) for f in docs["report"]["findings"]
    ]
    verified = invoke("verify", str(out), "--inputs", str(module_tmp))
    assert verified.exit_code == 2, verified.output  # unsigned: nothing differs, nothing proven
    assert "DIFFERS" not in verified.output
    assert "score recomputed from the inputs: score 100, tier critical" in verified.output
