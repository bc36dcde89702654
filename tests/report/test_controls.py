"""The framework controls of each finding in the review (docs/controls.md): report.json, the
HTML findings, the register's controls column and the OSCAL references, one source of truth."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from openpyxl import load_workbook

from assess.controls.catalogue import load_crosswalk
from assess.report.oscal_schema import schema_errors
from tests.report.conftest import invoke
from tests.report.test_oscal import demo_args


@pytest.fixture(scope="module")
def review(module_tmp: Path) -> Path:
    out = module_tmp / "controls"
    result = invoke(*demo_args(out, "json,oscal,xlsx,html"))
    assert result.exit_code == 0, result.output
    return out


def _report(review: Path) -> dict[str, Any]:
    return json.loads((review / "report.json").read_text(encoding="utf-8"))


def _oscal(review: Path) -> dict[str, Any]:
    return json.loads((review / "report.oscal.json").read_text(encoding="utf-8"))


def test_report_json_findings_carry_the_crosswalks_controls(review: Path) -> None:
    crosswalk = load_crosswalk()
    findings = _report(review)["findings"]
    # every finding but the one saying evidence was left out of the scoring ("unmapped")
    assert [f["id"] for f in findings if not f["controls"]] == ["evidence-not-about-vendor.probe"]
    for f in findings:
        mapped = [c.model_dump() for c in crosswalk.for_finding(f["id"])]
        assert all(c in f["controls"] for c in mapped), f["id"]
    advisory = next(f for f in findings if f["id"] == "advisory.glm-5.3-kv-leak")
    assert {
        "framework": "csa-aicm",
        "version": "1.0",
        "id": "I&S-06",
        "title": "Segmentation and Segregation",
    } in advisory["controls"]


def test_the_html_shows_the_controls_in_each_finding(review: Path) -> None:
    html = (review / "report.html").read_text(encoding="utf-8")
    start = html.index('<section id="findings">')
    findings = html[start : html.index("</section>", start)]
    mapped = [f for f in _report(review)["findings"] if f["controls"]]
    assert findings.count('<div class="small muted controls">') == len(mapped) > 0
    assert (
        "CSA AICM 1.0: STA-09, I&amp;S-06; ISO/IEC 42001 2023: A.10.3; NIST AI RMF 1.0: "
        "MANAGE 3.1, MEASURE 2.7" in findings
    )
    detail = html[html.index('<section id="detail">') :]
    assert "I&amp;S-06 Segmentation and Segregation (csa-aicm 1.0)" in detail


def test_the_register_has_a_controls_column(review: Path) -> None:
    book = load_workbook(review / "findings-register.xlsx")
    rows = [list(r) for r in book.worksheets[0].iter_rows(values_only=True)]
    assert rows[0][-1] == "controls" and rows[0][:3] == ["ref_id", "name", "description"]
    cells = [r[-1] for r in rows[1:]]
    expected = [
        "; ".join(f"{c['framework']}:{c['id']}" for c in f["controls"]) or None
        for f in _report(review)["findings"]
    ]
    assert cells == expected
    assert cells[0].startswith("csa-aicm:STA-09; csa-aicm:I&S-06; iso-42001:A.10.3")


def test_oscal_findings_reference_their_controls_and_stay_valid(review: Path) -> None:
    doc = _oscal(review)
    assert schema_errors(doc) == []
    ar = doc["assessment-results"]
    (result,) = ar["results"]
    resources = {r["uuid"]: r for r in ar["back-matter"]["resources"]}
    by_ref = {f["ref"]: f for f in _report(review)["findings"]}
    for finding in result["findings"]:
        ref = finding["title"].split(" ", 1)[0]
        controls = by_ref[ref]["controls"]
        ids = [(p["class"], p["value"]) for p in finding["props"] if p["name"] == "control-id"]
        assert ids == [(c["framework"], c["id"]) for c in controls]
        assert [link["text"] for link in finding["links"]] == [
            f"{c['id']} {c['title']}" for c in controls
        ]
        for link in finding["links"]:
            resource = resources[link["href"][1:]]
            assert resource["rlinks"][0]["href"].startswith("https://")
            # where its ids and titles were checked (acc41 m9: each mapping with its source)
            assert re.search(r"/[0-9a-f]{40}/", resource["rlinks"][1]["href"])
            assert resource["rlinks"][1]["href"] in resource["description"]
    titles = {r["title"] for r in resources.values()}
    assert {
        "CSA AI Controls Matrix (AICM) 1.0",
        "ISO/IEC 42001:2023 Annex A",
        "NIST AI Risk Management Framework 1.0",
    } <= titles
    selections = result["reviewed-controls"]["control-selections"]
    chosen = {c["control-id"] for s in selections for c in s.get("include-controls", [])}
    assert {"csa-aicm-I_S-06", "iso-42001-A.4.5", "nist-ai-rmf-MEASURE_2.7"} <= chosen


def test_a_framework_id_as_it_is_written_would_not_be_valid_oscal(review: Path) -> None:
    """Why the selections hold tokens: 'I&S-06' and 'MEASURE 2.7' are not OSCAL control ids."""
    doc = copy.deepcopy(_oscal(review))
    selection = doc["assessment-results"]["results"][0]["reviewed-controls"]["control-selections"][
        1
    ]
    selection["include-controls"][0]["control-id"] = "I&S-06"
    errors = schema_errors(doc)
    assert any("include-controls/0/control-id" in e for e in errors)
