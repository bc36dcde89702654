"""A mode question answers its yes/no twin (``implies``), for the advisories, the rules and the
controls; two answers that disagree are said, the stricter scored (acc41 D1). An advisory finding
rests on its exposing answers and is one root cause with the findings on them (acc41 m3)."""

from __future__ import annotations

from typing import Any

import pytest

from assess.advisories.catalogue import load_advisories
from assess.kernel.structured import parse_yaml
from assess.vendor.answers_check import check_answers
from assess.vendor.bank import shipped_questionnaire
from assess.vendor.questionnaire import Questionnaire
from assess.vendor.scoring import score_answers
from assess.vendor.scoring.models import ScoreResult

BANK = shipped_questionnaire()
CATALOGUE = load_advisories()
PD = "sglang-pd-kv-transfer-race"
CHECKSUMS, CHECKSUM_MODE = "isolation.transfer_checksums", "isolation.transfer_checksum_mode"
CANARIES, CANARY_MODE = "isolation.kv_canaries", "isolation.kv_canary_mode"
DISAGG = {"engine.name": "sglang", "engine.version": "0.5.22", "deployment.mode": "disaggregated"}


def score(answers: dict[str, Any]) -> ScoreResult:
    body = "".join(f"  {k}: {v!r}\n" for k, v in answers.items())
    doc = parse_yaml("vendor: V\ndate: 2026-11-01\nanswers:\n" + body, "a.yaml")
    return score_answers(BANK, check_answers(doc.data, doc.where, BANK), CATALOGUE)


def every(result: ScoreResult) -> dict[str, Any]:
    """Every finding, merged ones too: id -> finding."""
    return {g.id: g for f in result.findings for g in (f, *f.merged)}


def shape(result: ScoreResult) -> tuple[set[str], int]:
    return set(every(result)), result.points_total


@pytest.mark.parametrize(("mode", "twin"), [("off", "no"), ("log", "no"), ("abort", "yes")])
def test_the_checksum_mode_decides_as_its_yes_no_twin(mode: str, twin: str) -> None:
    by_mode, by_twin = score({**DISAGG, CHECKSUM_MODE: mode}), score({**DISAGG, CHECKSUMS: twin})
    assert shape(by_mode) == shape(by_twin)
    found = every(by_mode)
    assert f"advisory-unconfirmed.{PD}" not in found  # never "cannot tell" on a known mode
    if twin == "no":
        advisory = found[f"advisory.{PD}"]
        assert advisory.severity.value == "high"
        assert {CHECKSUMS, CHECKSUM_MODE} <= set(advisory.rests_on)
        assert {"disaggregated-transfers-unverified", f"control-absent.{CHECKSUMS}"} <= set(found)
        assert CHECKSUM_MODE in found["disaggregated-transfers-unverified"].rests_on
    else:
        assert not [i for i in found if PD in i or CHECKSUMS in i]


@pytest.mark.parametrize(("mode", "twin"), [("none", "no"), ("log", "yes"), ("raise", "yes")])
def test_the_canary_mode_decides_as_its_yes_no_twin(mode: str, twin: str) -> None:
    by_mode, by_twin = score({CANARY_MODE: mode}), score({CANARIES: twin})
    assert shape(by_mode) == shape(by_twin)
    absent = every(by_mode).get(f"control-absent.{CANARIES}")
    assert (absent is not None) is (twin == "no")
    if absent is not None:
        assert absent.rests_on == [CANARIES, CANARY_MODE]


def test_an_implied_twin_is_covered_and_not_listed_in_place_beside_its_mode() -> None:
    result = score({**DISAGG, CHECKSUM_MODE: "abort"})
    assert CHECKSUMS not in {q.id for q in result.questions_to_send}
    assert result.answers[CHECKSUMS].value is True
    assert CHECKSUM_MODE in result.answers[CHECKSUMS].note
    in_place = [c.question for c in result.controls_in_place]
    assert CHECKSUM_MODE in in_place and CHECKSUMS not in in_place


@pytest.mark.parametrize(("mode", "twin"), [("off", "yes"), ("abort", "no"), ("log", "yes")])
def test_twins_that_disagree_are_said_and_the_stricter_reading_scores(mode: str, twin: str) -> None:
    result = score({**DISAGG, CHECKSUM_MODE: mode, CHECKSUMS: twin})
    found = every(result)
    assert f"advisory.{PD}" in found  # never the laxer reading
    said = found[f"answers-disagree.{CHECKSUMS}"]
    assert said.rests_on == [CHECKSUMS, CHECKSUM_MODE]
    assert result.answers[CHECKSUMS].value is False
    assert CHECKSUMS not in [c.question for c in result.controls_in_place]
    canaries = every(score({CANARY_MODE: "none", CANARIES: "yes"}))
    assert {f"answers-disagree.{CANARIES}", f"control-absent.{CANARIES}"} <= set(canaries)


def test_twins_that_agree_rest_on_both_and_say_nothing_more() -> None:
    result = score({**DISAGG, CHECKSUM_MODE: "off", CHECKSUMS: "no"})
    assert not [i for i in every(result) if i.startswith("answers-disagree")]
    assert CHECKSUM_MODE in every(result)[f"advisory.{PD}"].rests_on


@pytest.mark.parametrize("mode", ["off", "abort"])
def test_without_an_advisory_the_mode_merges_and_scores_as_its_twin(mode: str) -> None:
    vllm = {**DISAGG, "engine.name": "vllm", "engine.version": "0.11.0"}
    twin = "no" if mode == "off" else "yes"
    by_mode, by_twin = score({**vllm, CHECKSUM_MODE: mode}), score({**vllm, CHECKSUMS: twin})
    rows = [(f.id, f.points, [m.id for m in f.merged]) for f in by_mode.findings]
    assert rows == [(f.id, f.points, [m.id for m in f.merged]) for f in by_twin.findings]


def test_a_mode_per_model_is_read_per_model() -> None:
    answers = {**DISAGG, "vendor.models": "a, b"}
    body = "".join(f"  {k}: {v!r}\n" for k, v in answers.items())
    body += f"  {CHECKSUM_MODE}:\n    value: abort\n    per: {{b: 'off'}}\n"
    doc = parse_yaml("vendor: V\ndate: 2026-11-01\nanswers:\n" + body, "a.yaml")
    result = score_answers(BANK, check_answers(doc.data, doc.where, BANK), CATALOGUE)
    assert result.answers[CHECKSUMS].per == {"b": False}
    assert every(result)["disaggregated-transfers-unverified"].title.endswith("(for b)")


def test_an_advisory_rests_on_its_exposing_answers_and_counts_once_with_their_findings() -> None:
    result = score({**DISAGG, CHECKSUMS: "no"})
    (head,) = [f for f in result.findings if PD in f.advisories]
    assert head.id == f"advisory.{PD}"
    assert head.rests_on[:4] == ["engine.name", "engine.version", "deployment.mode", CHECKSUMS]
    assert {m.id for m in head.merged} == {
        "disaggregated-transfers-unverified",
        f"control-absent.{CHECKSUMS}",
    }
    # disaggregated + checksums no counted once: 15 points, not 15 + 15
    assert sum(f.points for f in result.findings if CHECKSUMS in f.rests_on) == 15
    vllm = score({"engine.name": "vllm", "engine.version": "0.8.5", "deployment.mode": "aggregated",
                  "cache.prompt_cache_scope": "global"})  # fmt: skip
    timing = every(vllm)["advisory.vllm-prefix-cache-timing"]
    assert "cache.prompt_cache_scope" in timing.rests_on


def test_every_decided_advisory_rests_on_its_exposing_answers() -> None:
    exposing = {
        "vllm-prefix-cache-timing": {"engine.name": "vllm", "engine.version": "0.8.5",
                                     "deployment.mode": "aggregated",
                                     "cache.prompt_cache_scope": "global"},
        "sglang-cache-salt-ignored": {"engine.name": "sglang", "engine.version": "0.5.10",
                                      "deployment.mode": "aggregated",
                                      "cache.prompt_cache_scope": "organization"},
        "sglang-hicache-l3-unsalted": {"engine.name": "sglang", "engine.version": "0.5.19",
                                       "deployment.mode": "aggregated",
                                       "cache.external_tiers_namespaced": "no"},
        PD: {**DISAGG, CHECKSUMS: "no"},
    }  # fmt: skip
    for adv, answers in exposing.items():
        finding = every(score(answers))[f"advisory.{adv}"]
        wanted = {c.question for c in CATALOGUE[adv].exposed_if}
        assert wanted and wanted <= set(finding.rests_on), adv


def test_implies_is_checked_against_both_questions() -> None:
    raw = BANK.model_dump(by_alias=True, exclude_none=True)
    for q in raw["questions"]:
        if q["id"] == CHECKSUM_MODE:
            q["implies"] = {"question": CHECKSUMS, "values": {"maybe": False, "abort": "sure"}}
    problems = [m for _, m in Questionnaire.model_validate(raw).problems()]
    assert "'maybe' is not an allowed value of 'isolation.transfer_checksum_mode'" in problems
    assert "'isolation.transfer_checksums' is a bool question; compare with true or false" in (
        problems
    )
