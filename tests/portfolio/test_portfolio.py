"""`assess portfolio`: many vendors scored and ranked, riskiest first; the trend against earlier
portfolios, scores and reviews; bad files named and left out; same bytes under SOURCE_DATE_EPOCH."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import html5lib
import pytest
from typer.testing import CliRunner, Result

from assess.cli import app
from assess.kernel.errors import InputError
from assess.portfolio.api import build_portfolio, without_file_name
from assess.portfolio.models import Previous
from assess.portfolio.previous import pick
from assess.portfolio.rank import risk_key, trend
from tests.conftest import CLI_ENV, REPO

VENDORS = REPO / "samples" / "vendors"
INCIDENT = str(VENDORS / "incident-like.yaml")
AFTER_FIX = str(VENDORS / "incident-like-after-fix.yaml")
EVASIVE = str(VENDORS / "evasive.yaml")
WELL_RUN = str(VENDORS / "well-run.yaml")
EPOCH = "1790000000"  # 2026-09-21T14:13:20Z


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    """Run the CLI with SOURCE_DATE_EPOCH set; stderr kept apart from stdout."""
    runner = CliRunner()
    return runner.invoke(
        app,
        list(args),
        env={**CLI_ENV, "SOURCE_DATE_EPOCH": EPOCH, **(env or {})},
        catch_exceptions=False,
    )


def ranked(doc: dict[str, Any]) -> list[tuple[int, str]]:
    return [(v["rank"], Path(v["file"]).name) for v in doc["vendors"]]


def test_vendors_are_ranked_riskiest_first_and_the_cap_is_broken_by_points() -> None:
    p = build_portfolio(
        [WELL_RUN, AFTER_FIX, EVASIVE, INCIDENT], generated_at="2026-01-01T00:00:00Z"
    )
    assert [(v.rank, Path(v.file).name) for v in p.vendors] == [
        (1, "incident-like.yaml"),  # critical, 100, 176 points before the cap
        (2, "incident-like-after-fix.yaml"),  # medium, 26
        (3, "evasive.yaml"),  # low, 6: from what is known; its coverage is too low to rate it
        (4, "well-run.yaml"),  # low, 1
    ]
    top = p.vendors[0]
    assert (top.tier, top.score, top.points_total, top.open_critical) == ("critical", 100, 176, 2)
    assert top.section_points["deployment"] == 70 and sum(top.section_points.values()) == 176
    evasive = p.vendors[2]
    assert evasive.evidence_verdict == "insufficient-evidence"
    assert evasive.coverage is not None and evasive.coverage < 0.6 < (top.coverage or 0)
    assert evasive.questions_to_send > 0
    assert top.last_assessed == "2026-09-01" and top.trend == "new" and top.previous is None
    assert p.sections[:3] == ["vendor", "engine", "deployment"]


def test_risk_key_orders_tier_before_score_before_points() -> None:
    assert risk_key("high", 45, 45) > risk_key("medium", 60, 60)
    assert risk_key("critical", 100, 199) > risk_key("critical", 100, 129)
    assert trend(risk_key("low", 1, 1), None) == "new"
    before = Previous(score=28, tier="medium", points_total=28, source="x.json")
    assert trend(risk_key("medium", 28, 28), before) == "same"
    assert trend(risk_key("critical", 100, 199), before) == "riskier"
    assert trend(risk_key("low", 1, 1), before) == "better"


@pytest.fixture(scope="module")
def score_of_incident(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("prev") / "incident-score.json"
    assert invoke("score", INCIDENT, "--json", str(out)).exit_code == 0
    return out


def test_trend_against_a_previous_score(score_of_incident: Path) -> None:
    """The vendor fixed the engine: its after-fix answers rank better than the earlier score."""
    p = build_portfolio([AFTER_FIX], previous=[score_of_incident])
    (row,) = p.vendors
    assert row.trend == "better"
    assert row.score_change == 26 - 100 and row.points_change == 26 - 176
    assert row.previous is not None and row.previous.tier == "critical"
    assert row.previous.source == "incident-score.json"
    assert p.previous_files == ["incident-score.json"]


def test_trend_against_a_previous_portfolio_folder_matches_each_file(tmp_path: Path) -> None:
    files = [INCIDENT, AFTER_FIX, WELL_RUN]
    first = invoke("portfolio", *files, "--out", str(tmp_path / "q1"))
    assert first.exit_code == 0, first.output
    doc = json.loads(
        invoke("portfolio", *files, "--previous", str(tmp_path / "q1"), "--json", "-").stdout
    )
    # two files of one vendor: each compared with its own earlier row, not the latest answers
    assert [v["trend"] for v in doc["vendors"]] == ["same", "same", "same"]
    assert doc["previous_files"] == ["portfolio.json"]


def test_trend_against_a_previous_review(tmp_path: Path) -> None:
    review = tmp_path / "review"
    done = invoke("report", "-q", INCIDENT, "--format", "json", "--out", str(review))
    assert done.exit_code == 0, done.output
    doc = json.loads(
        invoke("portfolio", AFTER_FIX, "--previous", str(review), "--json", "-").stdout
    )
    (row,) = doc["vendors"]
    assert row["trend"] == "better" and row["previous"]["source"] == "report.json"


def test_pick_prefers_the_same_file_then_the_latest_answers() -> None:
    old = Previous(score=1, tier="low", answered_on="2026-01-01", source="a", file="x.yaml")
    new = Previous(score=2, tier="low", answered_on="2026-06-01", source="a", file="y.yaml")
    assert pick([old, new], "x.yaml") is old
    assert pick([old, new], "z.yaml") is new
    assert pick([], "x.yaml") is None


def test_a_bad_file_is_named_and_the_rest_still_ranked(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("answers: [unclosed\n")
    missing = tmp_path / "missing.yaml"
    result = invoke(
        "portfolio",
        INCIDENT,
        str(broken),
        str(missing),
        str(tmp_path / "none-*.yaml"),
        WELL_RUN,
        "--json",
        "-",
    )
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert ranked(doc) == [(1, "incident-like.yaml"), (2, "well-run.yaml")]
    skipped = {Path(s["file"]).name: s["error"] for s in doc["skipped"]}
    assert set(skipped) == {"broken.yaml", "missing.yaml", "none-*.yaml"}
    assert "YAML" in skipped["broken.yaml"] and "matches no file" in skipped["none-*.yaml"]
    assert f"skipped {broken}: line 2: YAML syntax error" in result.stderr
    assert str(broken) not in skipped["broken.yaml"]  # the entry names the file once
    assert skipped["missing.yaml"] == "no such file"
    page_run = invoke("portfolio", INCIDENT, str(broken), "--out", str(tmp_path / "page"))
    assert page_run.exit_code == 0
    page = (tmp_path / "page" / "portfolio.html").read_text()
    assert "Files not ranked" in page and "broken.yaml" in page


def test_no_usable_file_is_exit_2_naming_each(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("kind: assess.answers\n")
    result = invoke("portfolio", str(broken), str(tmp_path / "gone.yaml"))
    assert result.exit_code == 2
    assert "none of the 2 answers files could be scored" in result.stderr
    assert "broken.yaml" in result.stderr and "gone.yaml" in result.stderr
    assert "Traceback" not in result.output
    with pytest.raises(InputError, match="none of the 1"):
        build_portfolio([str(broken)])


def test_a_bad_previous_file_is_exit_2_naming_it(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"kind": "assess.scope", "counts": {}}')
    result = invoke("portfolio", WELL_RUN, "--previous", str(other))
    assert result.exit_code == 2
    assert "other.json" in result.stderr and "assess.scope" in result.stderr


def test_same_epoch_same_bytes(tmp_path: Path) -> None:
    for name in ("a", "b"):
        assert invoke("portfolio", INCIDENT, WELL_RUN, "--out", str(tmp_path / name)).exit_code == 0
    for name in ("portfolio.json", "portfolio.html"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    doc = json.loads((tmp_path / "a" / "portfolio.json").read_text())
    assert doc["generated_at"] == "2026-09-21T14:13:20Z" and doc["kind"] == "assess.portfolio"


def test_the_page_is_valid_html_with_every_column_and_escapes_names(tmp_path: Path) -> None:
    hostile = tmp_path / "hostile.yaml"
    text = Path(WELL_RUN).read_text().replace("Careful Compute GmbH", "<script>alert(1)</script>")
    hostile.write_text(text)
    assert (
        invoke("portfolio", INCIDENT, str(hostile), "--out", str(tmp_path / "out")).exit_code == 0
    )
    page = (tmp_path / "out" / "portfolio.html").read_text()
    html5lib.HTMLParser(strict=True).parse(page)
    assert "<script>" not in page and "&lt;script&gt;" in page
    for column in ("points (uncapped)", "open critical", "last assessed", "trend", "deployment"):
        assert column in page
    assert page.index("Example Edge AI Inc.") < page.index("&lt;script&gt;")


def test_the_table_lists_every_vendor_in_rank_order() -> None:
    result = invoke("portfolio", WELL_RUN, INCIDENT)
    assert result.exit_code == 0
    out = result.stdout
    assert out.index("Example Edge AI Inc.") < out.index("Careful Compute GmbH")
    assert "critical" in out and "2026-09-01" in out and "deployment 70" in out


def test_an_out_path_that_is_a_file_is_exit_2(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("x")
    result = invoke("portfolio", WELL_RUN, "--out", str(taken))
    assert result.exit_code == 2 and "cannot write here" in result.stderr
    assert "Traceback" not in result.output


def test_answers_returned_as_a_spreadsheet_are_ranked_too(tmp_path: Path) -> None:
    """Vendors answer in the exported xlsx: the portfolio scores it as `assess score` does."""
    sheet = tmp_path / "well-run.xlsx"
    done = invoke(
        "questionnaire", "export", "--format", "xlsx", "--out", str(sheet), "--answers", WELL_RUN
    )
    assert done.exit_code == 0, done.output
    doc = json.loads(invoke("portfolio", str(sheet), INCIDENT, "--json", "-").stdout)
    assert ranked(doc) == [(1, "incident-like.yaml"), (2, "well-run.xlsx")]
    assert doc["vendors"][1]["vendor"] == "Careful Compute GmbH" and doc["skipped"] == []


def test_a_previous_folder_of_scores_passes_over_other_documents(
    tmp_path: Path, score_of_incident: Path
) -> None:
    folder = tmp_path / "scores"
    folder.mkdir()
    (folder / "incident.json").write_bytes(score_of_incident.read_bytes())
    (folder / "manifest.json").write_text('{"kind": "assess.manifest", "outputs": []}')
    p = build_portfolio([AFTER_FIX], previous=[folder])
    assert p.vendors[0].trend == "better" and p.previous_files == ["incident.json"]
    with pytest.raises(InputError, match="assess.manifest"):  # named on its own: refused
        build_portfolio([AFTER_FIX], previous=[folder / "manifest.json"])


def _review_with_plan(tmp_path: Path, name: str, statuses: dict[str, str], epoch: str) -> Path:
    """Write a review of the incident-like vendor whose plan gives its findings ``statuses``."""
    plan = "".join(f"  {fid}: {{owner: Ops, status: {st}}}\n" for fid, st in statuses.items())
    review_file = tmp_path / f"{name}.yaml"
    review_file.write_text(
        "kind: assess.review\nschema_version: 1\n"
        "report: {id: TPRM-1, version: '1', classification: Internal}\n"
        "scope: {statement: GLM, period: {start: 2026-08-01, end: 2026-09-20}}\n"
        "people: {assessor: {name: A, date: 2026-09-18}}\n"
        f"remediation:\n{plan}"
    )
    out = tmp_path / name
    args = ["report", "-q", INCIDENT, "--review", str(review_file), "--format", "json"]
    done = invoke(*args, "--out", str(out), env={"SOURCE_DATE_EPOCH": epoch})
    assert done.exit_code == 0, done.output
    return out


def test_open_critical_leaves_out_what_the_latest_reviews_plan_settled(tmp_path: Path) -> None:
    alone = json.loads(invoke("portfolio", INCIDENT, "--json", "-").stdout)["vendors"][0]
    done = invoke("report", "-q", INCIDENT, "--format", "json", "--out", str(tmp_path / "r"))
    assert done.exit_code == 0, done.output
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    critical = [f["id"] for f in report["findings"] if f["severity"] == "critical"]
    assert alone["open_critical"] == len(critical) >= 2
    assert alone["critical_settled"] == 0 and alone["plan_from"] is None
    older = _review_with_plan(tmp_path, "older", dict.fromkeys(critical, "done"), EPOCH)
    newer = _review_with_plan(
        tmp_path,
        "newer",
        {critical[0]: "accepted", critical[1]: "in progress"},
        str(int(EPOCH) + 86400),
    )
    # the latest review's plan counts, whatever the order the files are given in
    for order in ((older, newer), (newer, older)):
        args = [a for p in order for a in ("--previous", str(p / "report.json"))]
        (row,) = json.loads(invoke("portfolio", INCIDENT, *args, "--json", "-").stdout)["vendors"]
        assert row["open_critical"] == len(critical) - 1
        assert row["critical_settled"] == 1 and row["plan_from"] == "report.json"
    only_older = invoke(
        "portfolio", INCIDENT, "--previous", str(older), "--out", str(tmp_path / "p")
    )
    assert only_older.exit_code == 0
    (row,) = json.loads((tmp_path / "p" / "portfolio.json").read_text())["vendors"]
    assert row["open_critical"] == 0 and row["critical_settled"] == len(critical)
    page = (tmp_path / "p" / "portfolio.html").read_text()
    assert f"{len(critical)} done or accepted in report.json" in page
    assert f"(+{len(critical)} settled)" in only_older.stdout


def test_a_previous_score_or_portfolio_settles_nothing(tmp_path: Path) -> None:
    score = tmp_path / "score.json"
    assert invoke("score", INCIDENT, "--json", str(score)).exit_code == 0
    (row,) = json.loads(
        invoke("portfolio", INCIDENT, "--previous", str(score), "--json", "-").stdout
    )["vendors"]
    assert row["critical_settled"] == 0 and row["plan_from"] is None and row["open_critical"] >= 2


def test_a_skipped_reason_keeps_its_line_numbers_without_the_file_name() -> None:
    message = "v.yaml:3: answers.q1: Field required\nv.yaml:7: vendor: not a string\nsee v.yaml"
    assert without_file_name(message, "v.yaml") == (
        "line 3: answers.q1: Field required\nline 7: vendor: not a string\nsee v.yaml"
    )
    assert without_file_name("v.yaml: no such file", "v.yaml") == "no such file"
    assert without_file_name("other.yaml:2: bad", "v.yaml") == "other.yaml:2: bad"
