"""The cache-isolation audit in the review: its section (the two distributions drawn per level,
the statistic), its finding, its OSCAL TEST observation (NIST's schema) and `assess verify`."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from assess.report.cache_audit import CacheLevel, distribution_chart
from assess.report.oscal_schema import schema_errors
from tests.conftest import REPO
from tests.report.conftest import invoke
from tests.score.cache_docs import NO_CONTROL, SHARED, cache_result, write_cache_doc

VENDOR = REPO / "samples" / "vendors" / "incident-like.yaml"


@pytest.fixture(scope="module")
def made(module_tmp: Path) -> Path:
    """A review of the incident-like vendor with a cache audit that found sharing (all formats)."""
    root = module_tmp / "cache"
    (root / "in").mkdir(parents=True)
    shutil.copy(VENDOR, root / "in" / "incident-like.yaml")
    cache = write_cache_doc(root / "in" / "cache.json", SHARED)
    args = ["report", "-a", str(root / "in" / "incident-like.yaml"), "--probe", str(cache)]
    result = invoke(*args, "--format", "html,pdf,json,oscal", "--out", str(root / "review"))
    assert result.exit_code == 0, result.output
    return root


def _report(root: Path) -> dict[str, Any]:
    return json.loads((root / "review" / "report.json").read_text())


def test_the_review_carries_the_audit_and_its_finding(made: Path) -> None:
    doc = _report(made)
    section = doc["cache_probes"]
    assert section["assessed"] and len(section["runs"]) == 1
    run = section["runs"][0]
    assert run["verdict"] == "shared-across-organisations" and run["scored"]
    cross = next(lv for lv in run["levels"] if lv["level"] == "other-organisation")
    assert cross["p_value"] < 1e-8 and len(cross["hit_ms"]) == len(cross["miss_ms"]) == 16
    finding = next(f for f in doc["findings"] if "cache-probe" in f["id"])
    assert finding["id"] == "attestation-contradicted.cache-probe-shared"
    assert finding["severity"] == "critical"
    assert any(i["role"] == "probe" and i["path"].endswith("cache.json") for i in doc["inputs"])


def test_the_html_draws_hit_and_miss_per_level_inline(made: Path) -> None:
    html = (made / "review" / "report.html").read_text()
    section = html[html.index('id="cache-audit"') :]
    section = section[: section.index("</section>")]
    assert section.count('data-arm="hit"') == 2 and section.count('data-arm="miss"') == 2
    assert "SHARED-ACROSS-ORGANISATIONS" in section and "D+ 1.00" in section
    assert "http" not in re.sub(r'xmlns="http://www.w3.org/2000/svg"', "", section.split(
        "Method:")[0]).replace("https://api.edge-inference.example/v1", "")  # fmt: skip


def test_the_pdf_shows_the_section(made: Path) -> None:
    from pypdf import PdfReader

    text = "".join(
        page.extract_text() or "" for page in PdfReader(made / "review" / "report.pdf").pages
    )
    assert "Prompt-cache isolation audit" in text
    assert "hit (16): median" in text  # the chart's legend: the SVG was drawn in the PDF


def test_the_chart_marks_the_gap_only_when_hits_are_faster() -> None:
    fast = CacheLevel(level="x", hit_ms=[1.0, 2.0], miss_ms=[5.0, 6.0], ks_statistic=1.0)
    slow = CacheLevel(level="x", hit_ms=[5.0, 6.0], miss_ms=[1.0, 2.0], ks_statistic=0.0)
    assert "stroke-dasharray" in distribution_chart(fast)
    assert "stroke-dasharray" not in distribution_chart(slow)
    assert "no samples" in distribution_chart(CacheLevel(level="x", hit_ms=[1.0]))


def test_oscal_carries_the_audit_as_a_test_observation(made: Path) -> None:
    doc = json.loads((made / "review" / "report.oscal.json").read_text())
    assert schema_errors(doc) == []
    result = doc["assessment-results"]["results"][0]
    cache = [o for o in result["observations"] if o["title"].startswith("Prompt-cache isolation")]
    assert len(cache) == 1 and cache[0]["methods"] == ["TEST"]
    assert "other-organisation: median hit" in cache[0]["description"]
    assert {
        "name": "verdict",
        "ns": "urn:assess:oscal",
        "value": "shared-across-organisations",
    } in cache[0]["props"]
    linked = [
        f for f in result["findings"]
        if any(r["observation-uuid"] == cache[0]["uuid"] for r in f.get("related-observations", []))
    ]  # fmt: skip
    assert linked, "the cache finding links its observation"


def test_verify_recomputes_with_the_audit_and_catches_an_edit(made: Path, tmp_path: Path) -> None:
    ok = invoke("verify", str(made / "review"), "--inputs", str(made / "in"))
    assert "ok      score recomputed from the inputs" in ok.output, ok.output
    assert "DIFFERS" not in ok.output
    root = tmp_path / "edited"
    shutil.copytree(made, root)
    # the audit rewritten as inconclusive: another input, another score
    write_cache_doc(root / "in" / "cache.json", NO_CONTROL)
    bad = invoke("verify", str(root / "review"), "--inputs", str(root / "in"))
    assert bad.exit_code == 1, bad.output
    assert "DIFFERS input cache.json (probe)" in bad.output


def test_a_lab_audit_is_shown_not_scored(tmp_path: Path) -> None:
    cache = write_cache_doc(tmp_path / "lab.json", SHARED, endpoint="http://127.0.0.1:8040/v1")
    out = tmp_path / "review"
    result = invoke("report", "-a", str(VENDOR), "--probe", str(cache), "--format", "json",
                    "--out", str(out))  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads((out / "report.json").read_text())
    run = doc["cache_probes"]["runs"][0]
    assert not run["scored"] and run["not_scored"] == "lab simulation, not this vendor"
    assert not any(f["id"].startswith("attestation-contradicted.cache") for f in doc["findings"])


def test_a_contaminated_level_reads_cannot_compare_never_not_visible(tmp_path: Path) -> None:
    """CLOSING 40 left: OSCAL said "caching not visible" for a `contaminated` level; it says
    what the console says (docs/probe.md), and so does the HTML table."""
    doc = cache_result(SHARED, contaminated=("other-organisation",))
    level = {lv.level: lv for lv in doc.levels}["other-organisation"]
    assert level.contaminated and not level.caching_visible  # the probe's own check
    cache = tmp_path / "cache.json"
    cache.write_text(doc.model_dump_json(indent=2) + "\n")
    out = tmp_path / "review"
    result = invoke("report", "-a", str(VENDOR), "--probe", str(cache), "--format",
                    "html,json,oscal", "--out", str(out))  # fmt: skip
    assert result.exit_code == 0, result.output
    oscal = json.loads((out / "report.oscal.json").read_text())
    assert schema_errors(oscal) == []
    said = [
        o["description"]
        for o in oscal["assessment-results"]["results"][0]["observations"]
        if o["title"].startswith("Prompt-cache isolation")
    ]
    assert len(said) == 1
    other = said[0].split("other-organisation:")[1].split(";")[0]
    assert "contaminated (misses already cached): cannot compare" in other, other
    assert "not visible" not in other
    same = said[0].split("same-account:")[1].split(";")[0]
    assert "caching visible" in same  # a comparable level keeps its words
    html = " ".join((out / "report.html").read_text().split())
    assert "contaminated (misses already cached): cannot compare" in html
    assert CacheLevel.model_validate(level.model_dump(mode="json")).state.startswith("contam")
