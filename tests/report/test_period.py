"""The assessment period: `--period`, else the review file's scope.period; both given and
different is exit 2 naming both values and the file. `assess verify` replays it the same way."""

from __future__ import annotations

import json
from pathlib import Path

from assess.cli.report import DEMO_REVIEW, DEMO_SERVERLOGS, DEMO_VENDOR
from tests.report.conftest import invoke
from tests.report.test_oscal import SAMPLES

#: The deploy logs of the samples are dated 2026-08-26: a period starting after it makes them stale.
LATE = "2026-09-01..2026-09-20"


def review_file(tmp_path: Path, period: str) -> Path:
    start, end = period.split("..")
    text = (SAMPLES / DEMO_REVIEW).read_text()
    text = text.replace("start: 2026-08-24", f"start: {start}")
    text = text.replace("end: 2026-09-20", f"end: {end}")
    path = tmp_path / "review.yaml"
    path.write_text(text)
    return path


def report_args(out: Path, *extra: str) -> list[str]:
    args = ["report", "-a", str(SAMPLES / DEMO_VENDOR), "--format", "json", "--out", str(out)]
    for log in DEMO_SERVERLOGS:
        args += ["--deploy-log", str(SAMPLES / log)]
    return [*args, *extra]


def stale(out: Path) -> list[str]:
    report = json.loads((out / "report.json").read_text())
    return [f["id"] for f in report["findings"] if f["id"].startswith("evidence-stale")]


def test_the_review_files_period_is_used_without_period(tmp_path: Path) -> None:
    review = review_file(tmp_path, LATE)
    done = invoke(*report_args(tmp_path / "a", "--review", str(review)))
    assert done.exit_code == 0, done.output
    assert stale(tmp_path / "a") == ["evidence-stale.deploy-check"]
    same = invoke(*report_args(tmp_path / "b", "--period", LATE))
    assert same.exit_code == 0, same.output
    assert stale(tmp_path / "b") == stale(tmp_path / "a")
    # the demo's own period covers its evidence: nothing stale
    demo = invoke(*report_args(tmp_path / "c", "--review", str(SAMPLES / DEMO_REVIEW)))
    assert demo.exit_code == 0, demo.output
    assert stale(tmp_path / "c") == []


def test_the_same_period_twice_is_accepted(tmp_path: Path) -> None:
    review = review_file(tmp_path, LATE)
    done = invoke(*report_args(tmp_path / "a", "--review", str(review), "--period", LATE))
    assert done.exit_code == 0, done.output
    assert stale(tmp_path / "a") == ["evidence-stale.deploy-check"]


def test_two_different_periods_are_exit_2_naming_both_and_the_file(tmp_path: Path) -> None:
    review = review_file(tmp_path, LATE)
    other = "2026-08-01..2026-09-30"
    done = invoke(*report_args(tmp_path / "a", "--review", str(review), "--period", other))
    assert done.exit_code == 2
    assert f"--period {other}" in done.output and f"scope.period {LATE}" in done.output
    assert f"{review}:" in done.output and "Traceback" not in done.output
    assert not (tmp_path / "a").exists()


def test_verify_replays_the_review_files_period(tmp_path: Path) -> None:
    review = review_file(tmp_path, LATE)
    out = tmp_path / "a"
    assert invoke(*report_args(out, "--review", str(review))).exit_code == 0
    checked = invoke("verify", str(out), "--inputs", str(tmp_path))
    assert checked.exit_code == 2, checked.output  # unsigned: nothing differs, nothing proven
    assert "DIFFERS" not in checked.output
    assert "score recomputed from the inputs" in checked.output
