"""What a mode answer leaves in the output (accfinal minors 2 and 3): a mode answer the stricter
twin overruled is not "in place"; a finding decided by a mode answer quotes that answer, never one
the vendor did not give, never a Python bool, never a double full stop."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assess.advisories.catalogue import load_advisories
from assess.kernel.structured import parse_yaml
from assess.vendor.answers_check import check_answers
from assess.vendor.answers_file import load_answers_and_bank
from assess.vendor.bank import shipped_questionnaire
from assess.vendor.scoring import score_answers
from assess.vendor.scoring.models import ScoreFinding, ScoreResult
from tests.conftest import REPO
from tests.score.test_mode_twins import (
    CANARIES,
    CANARY_MODE,
    CHECKSUM_MODE,
    CHECKSUMS,
    DISAGG,
    PD,
    every,
    score,
)

LEAKS = re.compile(r"\b(True|False|None)\b|\.\.(?!\.)|\?\.")


def texts(result: ScoreResult) -> list[str]:
    """Every title, detail and remediation of the findings, merged ones too."""
    return [t for f in every(result).values() for t in (f.title, f.detail, f.remediation)]


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


def test_a_finding_decided_by_the_mode_alone_quotes_the_mode_answer() -> None:
    result = score({**DISAGG, CHECKSUM_MODE: "off"})
    found = every(result)
    absent = found[f"control-absent.{CHECKSUMS}"].title
    assert absent.endswith(f"Answered {CHECKSUM_MODE} = off (read as no).")
    advisory = found[f"advisory.{PD}"].detail
    assert f"Exposed by the answers: {CHECKSUM_MODE} = off (read as {CHECKSUMS} = no)." in advisory
    assert f"Answered {CHECKSUM_MODE} = off (read as no). " in advisory + " "  # the merged title
    assert not [t for t in texts(result) if LEAKS.search(t)]
    canary = every(score({CANARY_MODE: "none"}))[f"control-absent.{CANARIES}"].title
    assert canary.endswith(f"Answered {CANARY_MODE} = none (read as no).")


def test_a_mode_that_overrules_the_twin_is_quoted_and_a_twin_answer_as_given() -> None:
    overruling = every(score({**DISAGG, CHECKSUM_MODE: "off", CHECKSUMS: "yes"}))
    title = overruling[f"control-absent.{CHECKSUMS}"].title
    assert title.endswith(f"Answered {CHECKSUM_MODE} = off (read as no).")
    for answers in (
        {**DISAGG, CHECKSUMS: "no"},
        {**DISAGG, CHECKSUM_MODE: "abort", CHECKSUMS: "no"},
    ):
        found = every(score(answers))
        assert found[f"control-absent.{CHECKSUMS}"].title.endswith("Answered no.")
        assert f"Exposed by the answers: {CHECKSUMS} = no." in found[f"advisory.{PD}"].detail


def _samples() -> list[Path]:
    return sorted((REPO / "samples" / "vendors").glob("*.yaml"))


@pytest.mark.parametrize("path", _samples(), ids=lambda p: p.stem)
def test_no_finding_text_leaks_a_python_value_or_a_double_full_stop(path: Path) -> None:
    bank, answers = load_answers_and_bank(path)
    result = score_answers(bank, answers, load_advisories())
    leaks = [t for t in texts(result) if LEAKS.search(t)]
    assert not leaks


def test_a_merged_title_ending_its_sentence_is_not_given_a_second_full_stop() -> None:
    from assess.vendor.scoring.merge import merge_root_causes

    def finding(fid: str, title: str) -> ScoreFinding:
        return ScoreFinding(
            id=fid, severity="high", title=title, detail="D.", remediation="R.",
            rests_on=["q.a"], evidence_level="documented", source="score",
        )  # fmt: skip

    merged = merge_root_causes([finding("a", "First."), finding("b", "Second? Answered no.")])
    assert [f.detail for f in merged] == ["D. Also (b, high): Second? Answered no."]


def test_a_docs_conflict_quotes_a_yes_no_answer_as_yes_and_ends_once() -> None:
    body = (
        "  isolation.kv_page_zeroing:\n"
        "    value: yes\n"
        "    evidence: documented\n"
        "    conflicts:\n"
        "      - {ref: https://example.com/faq, note: 'Pages are reused as they are.'}\n"
    )
    doc = parse_yaml("vendor: V\ndate: 2026-11-01\nanswers:\n" + body, "a.yaml")
    bank = shipped_questionnaire()
    result = score_answers(bank, check_answers(doc.data, doc.where, bank), load_advisories())
    detail = every(result)["docs-conflict.isolation.kv_page_zeroing"].detail
    assert detail == "answered yes; https://example.com/faq says: Pages are reused as they are."
