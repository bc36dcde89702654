"""Evidence shown for what it is (issue 37): the lab simulation is never the vendor's result on
pages 1-2; findings of unscored evidence are not counted; one tier rule; no top action the
answers already meet; page 1 states the recommendation and the decision asked; the docs'
re-assessment example is the command's real output and consistent."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest

from assess.report.evidence_use import met_by_answers
from assess.report.models import VendorProfile
from tests.conftest import REPO
from tests.report.conftest import EPOCH, invoke

TIERS = ["low", "medium", "high", "critical"]


@pytest.fixture(scope="module")
def demo(demo_review: tuple[Path, str]) -> Path:
    return demo_review[0]  # read only: built once for the session (tests/report/conftest.py)


def _pages(pdf: Path) -> list[str]:
    import pypdf

    return [p.extract_text() for p in pypdf.PdfReader(io.BytesIO(pdf.read_bytes())).pages]


def test_pages_1_and_2_never_call_the_lab_simulation_a_leak(demo: Path) -> None:
    pages = _pages(demo / "report.pdf")
    first_two = "\n".join(pages[:2])
    for said in ("LEAK", "found a leak", "Leak found"):
        assert said not in first_two, said
    assert "lab simulation, not this vendor" in pages[0]
    assert "not scored" in pages[0]
    assert "is a lab simulation, not this vendor" in first_two  # the summary's sentence
    assert not any("LEAK FOUND" in page for page in pages)  # nor any section's headline


def test_page_1_states_the_recommendation_and_the_decision_asked(demo: Path) -> None:
    page = _pages(demo / "report.pdf")[0]
    assert "Recommendation: Do not approve" in page
    assert "Decision asked: approve, approve with conditions, or reject the use of" in page
    assert "Recorded: Rejected." in re.sub(r"\s+", " ", page)


def test_the_json_marks_the_run_and_the_html_labels_it(demo: Path) -> None:
    doc = json.loads((demo / "report.json").read_text())
    (run,) = doc["probes"]["runs"]
    assert run["scored"] is False and run["not_scored"] == "lab simulation, not this vendor"
    html = (demo / "report.html").read_text()
    assert "LEAK FOUND" not in html
    assert "not scored: lab simulation, not this vendor" in html


def _reassess(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, demo: Path) -> tuple[str, Path]:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "samples").symlink_to(REPO / "samples")
    shutil.copytree(demo, "assess-demo")  # what `assess demo --out assess-demo` writes
    args = ["report", "-a", "samples/vendors/incident-like-after-fix.yaml", "--deploy-log"]
    args += ["samples/serverlogs/sglang-prefill.log", "--previous", "assess-demo"]
    result = invoke(*args, "--format", "html,json", "--out", "after")
    assert result.exit_code == 0, result.output
    return result.output, tmp_path / "after"


def test_the_reassessment_example_is_consistent_and_documented(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, demo: Path
) -> None:
    output, after = _reassess(tmp_path, monkeypatch, demo)
    doc = json.loads((after / "report.json").read_text())
    counted = [f for f in doc["findings"] if f["counted"]]
    uncounted = [f for f in doc["findings"] if not f["counted"]]
    assert uncounted and all(f["source"] == "deploy-check" for f in uncounted)
    counts = {
        s: sum(1 for f in counted if f["severity"] == s) for s in doc["scoring"]["severity_counts"]
    }
    assert counts == doc["scoring"]["severity_counts"]
    # one tier rule: any critical finding makes the tier at least high; never above the worst
    worst = max((TIERS.index(f["severity"]) for f in counted if f["severity"] in TIERS), default=0)
    assert TIERS.index(doc["tier"]) <= worst
    if counts["critical"]:
        assert TIERS.index(doc["tier"]) >= TIERS.index("high")
    assert "critical" not in doc["summary"]["tier_sentence"]
    # no top action the answers meet (the vendor answered sglang 0.5.22)
    assert doc["vendor"]["engine_version"] == "0.5.22"
    assert not any("0.5.22" in a for a in doc["summary"]["top_actions"])
    # the docs page shows this run's real output
    page = (REPO / "docs" / "report.md").read_text()
    block = page.split("--previous assess-demo --format html,json --out after\n", 1)[1]
    shown = block.split("$ grep", 1)[0]
    assert shown == output
    since = re.search(r"Since the previous review[^<]*", (after / "report.html").read_text())
    assert since is not None and since.group(0) in block
    assert EPOCH in page.split("assess demo --out assess-demo", 1)[0].rsplit("```console", 1)[1]


@pytest.mark.parametrize(
    ("action", "version", "met"),
    [
        ("Upgrade sglang to 0.5.22 or later.", "0.5.22", True),
        ("Upgrade sglang to 0.5.22 or later.", "0.5.23", True),
        ("Upgrade sglang to 0.5.22 or later.", "0.5.21", False),
        ("Upgrade sglang to 0.5.22 or later.", "unknown", False),
        ("Upgrade vllm to 0.9 or later.", "0.5.22", False),
        ("Enable deferred KV release.", "0.5.22", False),
    ],
)
def test_an_upgrade_the_answers_meet_is_no_action(action: str, version: str, met: bool) -> None:
    vendor = VendorProfile(name="v", engine="sglang", engine_version=version)
    assert met_by_answers(action, vendor) is met


def test_the_smaller_things_a_committee_notices(demo: Path) -> None:
    """Issue 37's last bullet, on the demo: no literal backticks, info findings not open plan
    items, the answers in questionnaire order, an unknown critical answer marked, the two pool
    figures explained."""
    pages = _pages(demo / "report.pdf")
    assert not any("`" in page for page in pages)
    doc = json.loads((demo / "report.json").read_text())
    info = {f["id"] for f in doc["findings"] if f["severity"] == "info"}
    assert info and not info & {i["id"] for i in doc["remediation"]}
    from assess.report.models import Report
    from assess.report.tables import answer_sheet

    sheet = [row.id for row in answer_sheet(Report.model_validate(doc))]
    from assess.vendor.bank import load_questionnaire

    asked = [q.id for q in load_questionnaire(None).questions]
    assert sheet == [q for q in asked if q in sheet]
    assert sheet != sorted(sheet)
    html = (demo / "report.html").read_text()
    unknown_critical = [a for a in doc["answers"] if a["critical"] and a["value"] == "unknown"]
    assert unknown_critical and "unknown on a critical question" in html
    assert "2,213,888 in its log, 2,040,000 in the vendor&#39;s answers" in html
