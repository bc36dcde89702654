"""The remediation plan: owners from review.yaml, exposure actions, what moved since --previous."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.report.conftest import REPORT_ASSETS, copy_assets, full_args, invoke

JSON = ("--format", "json")


def plan(out: Path) -> dict[str, dict[str, Any]]:
    rows = json.loads((out / "report.json").read_text())["remediation"]
    return {row["id"]: row for row in rows}


@pytest.fixture(scope="module")
def first(module_tmp: Path) -> Path:
    src = copy_assets(module_tmp / "in1")
    out = module_tmp / "first"
    result = invoke(*full_args(src, out, *JSON, "--review", str(REPORT_ASSETS / "review.yaml")))
    assert result.exit_code == 0, result.output
    return out


def test_one_row_per_finding_then_the_exposure_actions(first: Path) -> None:
    rows = json.loads((first / "report.json").read_text())["remediation"]
    assert [r["ref"] for r in rows] == [
        "F-01",
        "F-02",
        "F-03",
        "F-04",
        "F-05",
        "E-01",
        "E-02",
        "E-03",
    ]
    assert [r["id"] for r in rows[5:]] == [
        "exposure.purge",
        "exposure.notify",
        "exposure.disclosed",
    ]
    assert "Purge the 7 received and the 3 possibly affected request ids" in rows[5]["title"]
    assert "affected-requests.csv" in rows[5]["title"]
    assert (
        rows[6]["title"]
        == "Notify the owners of the 2 affected account(s); trace the 1 with no account"
    )


def test_owners_come_from_the_review_file_by_ref_or_id(first: Path) -> None:
    rows = plan(first)
    kv = rows["contradicted.isolation.kv_canaries"]  # given as F-01
    assert (kv["owner"], kv["due"], kv["status"]) == (
        "Vendor management",
        "2026-10-31",
        "in progress",
    )
    assert kv["overdue"] is False  # due after the review date (2026-09-21)
    checks = rows["no-transfer-checksums"]  # given by id
    assert (checks["owner"], checks["status"], checks["overdue"]) == ("Platform team", "open", True)
    assert rows["exposure.purge"]["status"] == "done"
    unowned = rows["unknown-critical-answer"]
    assert (unowned["owner"], unowned["status"], unowned["change"]) == (None, "open", "")


def test_no_exposure_actions_without_logs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["report", "--answers", str(REPORT_ASSETS / "score.json"), "--out", str(out)]
    # the review file plans exposure.purge: a known action, so no error when it does not apply
    args += ["--review", str(REPORT_ASSETS / "review.yaml")]
    assert invoke(*args, *JSON).exit_code == 0
    assert not [i for i in plan(out) if i.startswith("exposure.")]


def _second_score(name: str, doc: dict[str, Any]) -> None:
    """The re-assessment: one finding fixed (gone), one new."""
    if name != "score.json":
        return
    doc["findings"] = [f for f in doc["findings"] if f["id"] != "unknown-critical-answer"]
    doc["findings"].append(
        {
            "id": "new-finding",
            "severity": "low",
            "title": "A new low finding",
            "detail": "",
            "remediation": "Fix it.",
            "rests_on": [],
            "source": "score",
        }
    )


def test_previous_review_shows_what_moved(first: Path, tmp_path: Path) -> None:
    review = tmp_path / "review.yaml"
    text = (REPORT_ASSETS / "review.yaml").read_text()
    # F-01's status moves on; checksums and purge are no longer listed: their status carries over
    text = text.replace("    status: in progress", "    status: done", 1)
    text = text.split("  no-transfer-checksums:")[0]
    review.write_text(text)
    src = copy_assets(tmp_path / "in", _second_score)
    out = tmp_path / "second"
    args = full_args(src, out, *JSON, "--review", str(review), "--previous", str(first))
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    doc = json.loads((out / "report.json").read_text())
    rows = plan(out)
    kv = rows["contradicted.isolation.kv_canaries"]
    assert (kv["change"], kv["previous_status"], kv["status"]) == (
        "status changed",
        "in progress",
        "done",
    )
    carried = rows["no-transfer-checksums"]
    assert (carried["owner"], carried["due"], carried["change"]) == (
        "Platform team",
        "2026-09-01",
        "still open",
    )
    assert rows["exposure.purge"]["change"] == "unchanged"  # done then, done now
    assert rows["new-finding"]["change"] == "new"
    gone = rows["unknown-critical-answer"]
    assert (gone["change"], gone["status"], gone["ref"]) == ("closed", "done", "-")
    assert doc["previous"]["generated_at"] == "2026-09-21T14:13:20Z"
    assert doc["previous"]["report_id"] == "TPRM-2026-099"
    assert [i["role"] for i in doc["inputs"]].count("previous") == 1
    html_out = tmp_path / "html"
    args = full_args(src, html_out, "--format", "html", "--previous", str(first / "report.json"))
    assert invoke(*args).exit_code == 0
    html = (html_out / "report.html").read_text()
    assert "Since the previous review (TPRM-2026-099 v2.1) of 2026-09-21" in html
    assert "status changed" in html and ">closed<" in html


def test_a_previous_that_is_no_review_is_refused(tmp_path: Path) -> None:
    src = copy_assets(tmp_path / "in")
    args = full_args(src, tmp_path / "out", *JSON, "--previous", str(src / "score.json"))
    result = invoke(*args)
    assert result.exit_code == 2
    assert "score.json: not an assess.report document" in result.output
    missing = invoke(*full_args(src, tmp_path / "out", *JSON, "--previous", str(tmp_path)))
    assert missing.exit_code == 2 and "cannot read the earlier review" in missing.output


def test_with_review_and_previous_json_and_manifest_stay_byte_identical(
    first: Path, tmp_path: Path
) -> None:
    """SOURCE_DATE_EPOCH (set by invoke) still pins every byte, whatever the output folder."""
    outs = []
    for name in ("a", "b"):
        src = copy_assets(tmp_path / f"in-{name}")
        out = tmp_path / name / "review"
        review = str(REPORT_ASSETS / "review.yaml")
        args = full_args(src, out, *JSON, "--review", review, "--previous", str(first))
        assert invoke(*args).exit_code == 0
        outs.append(out)
    for name in ("report.json", "manifest.json"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
        assert str(tmp_path) not in (outs[0] / name).read_text()
    manifest = json.loads((outs[0] / "manifest.json").read_text())
    assert {"review", "previous"} <= {i["role"] for i in manifest["inputs"]}
    assert manifest["command"][-4:] == [
        "--review",
        "tests/assets/report/review.yaml",
        "--previous",
        "first",  # a folder outside the working folder: by name only
    ]


def test_the_python_api_takes_the_review_file_and_the_previous_review(first: Path) -> None:
    from assess import build_report

    report = build_report(
        REPORT_ASSETS / "score.json",
        logs=[REPORT_ASSETS / "scope.json"],
        review=REPORT_ASSETS / "review.yaml",
        previous=first,
        generated_at="2026-09-30T00:00:00Z",
    )
    assert report.governance.status == "approved-with-conditions"
    assert report.previous is not None and report.previous.report_id == "TPRM-2026-099"
    assert {r.change for r in report.remediation} == {"still open", "unchanged"}  # same plan


def test_a_plan_with_every_entry_commented_out_is_empty() -> None:
    from assess.report.governance import ReviewFile

    text = (REPORT_ASSETS / "review.yaml").read_text().split("remediation:")[0]
    review = ReviewFile.from_text(text + "remediation:\n  # F-01:\n  #   owner: x\n")
    assert review.remediation == {}


def test_exposure_actions_not_done_are_carried_when_logs_are_not_given_again(
    first: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    args = ["report", "-a", str(REPORT_ASSETS / "score.json"), "--previous", str(first)]
    assert invoke(*args, "--out", str(out), *JSON).exit_code == 0
    rows = plan(out)
    notify = rows["exposure.notify"]  # open then: still to do, whatever this run scoped
    assert (notify["ref"], notify["status"], notify["change"]) == ("E-01", "open", "still open")
    purge = rows["exposure.purge"]  # done then
    assert (purge["change"], purge["note"]) == ("closed", "Done by the previous review.")


@pytest.mark.parametrize(
    "generated_at", ["1970-01-01T00:00:00Z", "2026-09-21T14:13:20Z", "2031-06-30T23:59:59Z"]
)
def test_the_demos_due_dates_follow_its_review_date_and_are_never_overdue(
    generated_at: str,
) -> None:
    import datetime as dt

    from assess.cli.report import demo_request
    from assess.report.api import review

    plan = review(demo_request(), generated_at=generated_at).report.remediation
    dated = {i.id: i for i in plan if i.due}
    assert set(dated) == {
        "advisory.glm-5.3-kv-leak",
        "pool-smaller-than-context.prefill",
        "exposure.purge",
        "exposure.notify",
    }
    assert not any(i.overdue for i in plan)
    day = dt.date.fromisoformat(generated_at[:10])
    # as many days after the review date as the file puts them after its approval (2026-09-21)
    assert dated["exposure.purge"].due == (day + dt.timedelta(days=4)).isoformat()
    assert dated["advisory.glm-5.3-kv-leak"].due == (day + dt.timedelta(days=24)).isoformat()


def test_assess_report_keeps_the_review_files_due_dates() -> None:
    from assess.cli.report import demo_request
    from assess.report.api import review

    req = replace(demo_request(), due_from_review_date=False)
    plan = review(req, generated_at="2031-06-30T23:59:59Z").report.remediation
    notify = next(i for i in plan if i.id == "exposure.notify")  # in progress
    assert notify.due == "2026-09-30" and notify.overdue
