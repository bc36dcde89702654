"""What a mode answer leaves in the output (accfinal minors 2 and 3): a mode answer the stricter
twin overruled is not "in place"; a finding decided by a mode answer quotes that answer, never one
the vendor did not give, never a Python bool, never a double full stop."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assess.vendor.scoring.models import ScoreResult
from tests.score.test_mode_twins import (
    CANARIES,
    CANARY_MODE,
    CHECKSUM_MODE,
    CHECKSUMS,
    DISAGG,
    every,
    score,
)


def in_place(result: ScoreResult) -> list[str]:
    return [c.question for c in result.controls_in_place]


@pytest.mark.parametrize(
    ("answers", "mode"),
    [
        ({**DISAGG, CHECKSUM_MODE: "abort", CHECKSUMS: "no"}, CHECKSUM_MODE),
        ({CANARY_MODE: "raise", CANARIES: "no"}, CANARY_MODE),
        ({CANARY_MODE: "log", CANARIES: "no"}, CANARY_MODE),
    ],
)
def test_a_mode_answer_the_stricter_twin_overrules_is_not_in_place(
    answers: dict[str, Any], mode: str
) -> None:
    result = score(answers)
    assert [i for i in every(result) if i.startswith("answers-disagree.")]
    assert mode not in in_place(result)
    # the mirror case: the twin's laxer "yes" is not in place either
    mirror = score({**answers, mode: {CHECKSUM_MODE: "off", CANARY_MODE: "none"}[mode]})
    twin = {CHECKSUM_MODE: CHECKSUMS, CANARY_MODE: CANARIES}[mode]
    assert twin not in in_place(score({**answers, twin: "yes", mode: mirror.answers[mode].value}))


def test_agreeing_or_lone_mode_answers_stay_in_place() -> None:
    assert CHECKSUM_MODE in in_place(score({**DISAGG, CHECKSUM_MODE: "abort", CHECKSUMS: "yes"}))
    assert CHECKSUM_MODE in in_place(score({**DISAGG, CHECKSUM_MODE: "abort"}))
    assert CANARY_MODE in in_place(score({CANARY_MODE: "raise"}))


def test_an_overruled_mode_is_not_in_place_in_the_console_json_or_report(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    body = "".join(f"  {k}: {v}\n" for k, v in DISAGG.items())
    body += f"  {CHECKSUM_MODE}: abort\n  {CHECKSUMS}: no\n  isolation.page_ownership_tags: yes\n"
    answers = tmp_path / "a.yaml"
    answers.write_text("vendor: V\ndate: 2026-11-01\nanswers:\n" + body, encoding="utf-8")
    result = run_cli("score", str(answers))
    assert "In place" in result.stdout
    assert CHECKSUM_MODE not in result.stdout.split("In place")[1].split("Questions to send")[0]
    result = run_cli("score", str(answers), "--json", "-")
    listed = [c["question"] for c in json.loads(result.stdout)["controls_in_place"]]
    assert listed and CHECKSUM_MODE not in listed
    run_cli("report", "--answers", str(answers), "--format", "json", "--out", str(tmp_path / "r"))
    report = json.loads((tmp_path / "r" / "report.json").read_text(encoding="utf-8"))
    assert CHECKSUM_MODE not in json.dumps(report["controls_in_place"])
