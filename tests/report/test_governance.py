"""The review file (--review), `assess review new`, and the draft status without one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.report.conftest import REPORT_ASSETS, copy_assets, full_args, invoke

FAST = ("--format", "html,json")
REVIEW = REPORT_ASSETS / "review.yaml"


@pytest.fixture(scope="module")
def signed(module_tmp: Path) -> Path:
    src = copy_assets(module_tmp / "in")
    out = module_tmp / "signed"
    result = invoke(*full_args(src, out, *FAST, "--review", str(REVIEW)))
    assert result.exit_code == 0, result.output
    assert "Status: Approved with conditions (report TPRM-2026-099 v2.1)" in result.output
    return out


def test_governance_lands_in_report_json_under_its_own_key(signed: Path) -> None:
    doc = json.loads((signed / "report.json").read_text())
    gov = doc["governance"]
    assert gov["status"] == "approved-with-conditions"
    assert (gov["report_id"], gov["version"]) == ("TPRM-2026-099", "2.1")
    assert gov["classification"] == "Strictly confidential"
    assert (gov["period_start"], gov["period_end"]) == ("2026-08-01", "2026-09-20")
    assert gov["assessor"] == {
        "name": "Ada Assessor",
        "title": "Risk analyst",
        "date": "2026-09-18",
    }
    assert gov["approver"]["date"] == "2026-09-21"
    assert gov["conditions"] == ["Vendor upgrades to sglang 0.5.22 by 2026-10-31"]
    assert gov["residual_risk_accepted"] is True
    assert gov["residual_risk_review_by"] == "2026-10-31"
    review_inputs = [i for i in doc["inputs"] if i["role"] == "review"]
    assert [i["path"] for i in review_inputs] == ["tests/assets/report/review.yaml"]


def test_signed_review_shows_id_decision_and_people(signed: Path) -> None:
    html = (signed / "report.html").read_text()
    for text in (
        "TPRM-2026-099 v2.1",
        "Strictly confidential",
        "Decision: Approved with conditions",
        "Vendor upgrades to sglang 0.5.22 by 2026-10-31",
        "Rui Reviewer",
        "Cleo Chair",
        "Disclosure risk until the upgrade is accepted for 40 days",
        "2026-08-01 to 2026-09-20",
    ):
        assert text in html, text
    assert "Draft, not approved" not in html


def test_without_a_review_file_the_review_is_a_draft(tmp_path: Path) -> None:
    src = copy_assets(tmp_path / "in")
    result = invoke(*full_args(src, tmp_path / "out", *FAST))
    assert result.exit_code == 0, result.output
    assert "Status: Draft, not approved; give --review review.yaml" in result.output
    doc = json.loads((tmp_path / "out" / "report.json").read_text())
    assert doc["governance"]["status"] == "draft"
    assert doc["governance"]["report_id"] is None
    html = (tmp_path / "out" / "report.html").read_text()
    assert 'class="draft-banner"' in html
    assert "No review file was given (--review)" in html


def test_review_new_writes_a_template_that_refuses_its_placeholders(tmp_path: Path) -> None:
    path = tmp_path / "review.yaml"
    result = invoke("review", "new", str(path))
    assert result.exit_code == 0, result.output
    text = path.read_text()
    assert text.startswith("# The governance of one vendor review")
    assert "outcome: approve, approve-with-conditions" in text
    again = invoke("review", "new", str(path))
    assert again.exit_code == 2 and "exists already" in again.output
    src = copy_assets(tmp_path / "in")
    run = invoke(*full_args(src, tmp_path / "out", *FAST, "--review", str(path)))
    assert run.exit_code == 2
    assert f"{path}:9: report.id:" in run.output
    assert "is the template's placeholder: replace it or delete the line" in run.output
    assert not (tmp_path / "out").exists()


def test_review_new_filled_in_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "review.yaml"
    assert invoke("review", "new", str(path)).exit_code == 0
    filled = {
        "<report id in your register, e.g. TPRM-2026-014>": "R-1",
        "<document version, e.g. 1.0>": "1.0",
        "<as printed on every page, e.g. Confidential>": "Internal",
        "<what was assessed: the vendor's service, the models, our use of it>": "All of it",
        "<first day the assessment covers, YYYY-MM-DD>": "2026-09-01",
        "<last day, YYYY-MM-DD>": "2026-09-02",
        "<who did the assessment>": "A",
        "<role, e.g. Third-party risk analyst>": "Analyst",
        '"<YYYY-MM-DD>"': "2026-09-03",
    }
    text = path.read_text()
    for old, new in filled.items():
        text = text.replace(old, new)
    path.write_text(text)
    src = copy_assets(tmp_path / "in")
    run = invoke(*full_args(src, tmp_path / "out", "--format", "json", "--review", str(path)))
    assert run.exit_code == 0, run.output
    gov = json.loads((tmp_path / "out" / "report.json").read_text())["governance"]
    assert (gov["report_id"], gov["status"], gov["assessor"]["date"]) == (
        "R-1",
        "draft",
        "2026-09-03",
    )


def test_review_new_from_an_earlier_review_lists_its_items(signed: Path, tmp_path: Path) -> None:
    path = tmp_path / "next.yaml"
    result = invoke("review", "new", str(path), "--previous", str(signed))
    assert result.exit_code == 0, result.output
    text = path.read_text()
    assert '  "contradicted.isolation.kv_canaries":\n    owner: "Vendor management"' in text
    assert '    status: "in progress"' in text
    assert '  # "exposure.notify":\n  #   owner: "<owner>"' in text  # unowned: commented out
    # a re-assessment keeps the document's identity; its version and sign-off are new
    assert '  id: "TPRM-2026-099"\n  version: "<document version, was 2.1>"' in text
    assert '  classification: "Strictly confidential"' in text
    assert '  statement: "Nimbus Serverless GLM for the finance team"' in text
    assert '    name: "<who did the assessment>"' in text
    wrong = invoke("review", "new", str(tmp_path / "x.yaml"), "--previous", str(tmp_path / "none"))
    assert wrong.exit_code == 2
    assert "--previous takes the folder of an earlier `assess report` run" in wrong.output


BASE = REVIEW.read_text()


@pytest.mark.parametrize(
    ("old", "new", "where", "message"),
    [
        (
            "  conditions:\n    - Vendor upgrades to sglang 0.5.22 by 2026-10-31\n",
            "",
            "decision",
            "approve-with-conditions needs at least one entry in conditions",
        ),
        (
            "outcome: approve-with-conditions",
            "outcome: approve",
            "decision",
            "approve takes no conditions",
        ),
        ("outcome: approve-with-conditions", "outcome: maybe", "decision.outcome", "Input should"),
        (
            "    name: Rui Reviewer",
            "    name: ada assessor",
            "people",
            "the reviewer is the assessor",
        ),
        (
            "    date: 2026-09-19",
            "    date: 2026-09-17",
            "people",
            "reviewer.date (2026-09-17) is before assessor.date (2026-09-18)",
        ),
        (
            "    end: 2026-09-20",
            "    end: 2026-07-20",
            "scope.period",
            "end (2026-07-20) is before start (2026-08-01)",
        ),
        (
            "  accepted_by: Cleo Chair\n",
            "",
            "residual_risk",
            "an accepted residual risk needs accepted_by and date",
        ),
        ("    status: done", "    status: finished", "remediation.exposure.purge.status", "Input"),
        ("    due: 2026-09-25", "    due: 2026-13-25", "remediation.exposure.purge.due", "date"),
        ("  classification: Strictly confidential", "  classification: ''", "report", "empty"),
        ('  version: "2.1"\n', "", "report.version", "Field required"),
    ],
)
def test_a_bad_review_file_names_file_line_and_field(
    tmp_path: Path, old: str, new: str, where: str, message: str
) -> None:
    assert old in BASE
    path = tmp_path / "review.yaml"
    path.write_text(BASE.replace(old, new, 1))
    src = copy_assets(tmp_path / "in")
    result = invoke(*full_args(src, tmp_path / "out", "--format", "json", "--review", str(path)))
    assert result.exit_code == 2
    assert f"{path}:" in result.output
    assert f": {where}" in result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_a_decision_needs_an_approver(tmp_path: Path) -> None:
    text = BASE.replace("  approver:\n    name: Cleo Chair\n    title: Committee chair\n", "")
    text = text.replace("    date: 2026-09-21\ndecision", "decision")
    path = tmp_path / "review.yaml"
    path.write_text(text)
    src = copy_assets(tmp_path / "in")
    result = invoke(*full_args(src, tmp_path / "out", "--format", "json", "--review", str(path)))
    assert result.exit_code == 2
    assert "a decision needs people.approver" in result.output


def test_a_plan_entry_for_no_item_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "review.yaml"
    path.write_text(BASE.replace("  F-01:", "  F-09:"))
    src = copy_assets(tmp_path / "in")
    result = invoke(*full_args(src, tmp_path / "out", "--format", "json", "--review", str(path)))
    assert result.exit_code == 2
    line = BASE.splitlines().index("  F-01:") + 1
    assert f"{path}:{line}: remediation.F-09: names no finding or exposure action" in result.output
    assert "F-01 (contradicted.isolation.kv_canaries)" in result.output
    assert "E-01 (exposure.purge)" in result.output


def test_an_approval_with_open_grave_items_and_no_accepted_risk_is_pointed_out(
    tmp_path: Path,
) -> None:
    path = tmp_path / "review.yaml"
    path.write_text(BASE.replace("  accepted: true", "  accepted: false"))
    src = copy_assets(tmp_path / "in")
    result = invoke(*full_args(src, tmp_path / "out", *FAST, "--review", str(path)))
    assert result.exit_code == 0, result.output
    html = (tmp_path / "out" / "report.html").read_text()
    assert "Approved while 5 critical or high item(s) of the remediation plan are open" in html
    signed = invoke(*full_args(src, tmp_path / "ok", *FAST, "--review", str(REVIEW)))
    assert signed.exit_code == 0
    assert "Approved while" not in (tmp_path / "ok" / "report.html").read_text()
