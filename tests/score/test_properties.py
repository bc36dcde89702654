"""Property tests: controls and evidence only ever move the score the safe way."""

from __future__ import annotations

import datetime as dt
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from assess.advisories.catalogue import load_advisories
from assess.kernel.common import EvidenceLevel
from assess.vendor.answers import AnswerSet, CheckedAnswer
from assess.vendor.bank import shipped_questionnaire
from assess.vendor.questionnaire import AnswerType, Question
from assess.vendor.scoring import score_answers
from assess.vendor.scoring.evidence import DeployEvidence, DeployNode, ProbeEvidence
from assess.vendor.scoring.models import ScoreResult

BANK = shipped_questionnaire()
ADVISORIES = load_advisories()
CONTROLS = [q for q in BANK.questions if q.control]
UNKNOWN = st.just("unknown")


def value_strategy(q: Question) -> st.SearchStrategy[Any]:
    """Any valid value of ``q``, including 'unknown'."""
    strategies: dict[AnswerType, st.SearchStrategy[Any]] = {
        AnswerType.ENUM: st.sampled_from(q.values),
        AnswerType.BOOL: st.booleans() | UNKNOWN,
        AnswerType.INT: st.integers(min_value=q.min or 0, max_value=3_000_000) | UNKNOWN,
        AnswerType.VERSION: st.sampled_from(["0.4.9", "0.5.20", "0.5.21", "0.5.22", "0.6.0"])
        | UNKNOWN,
        AnswerType.TEXT: st.just("text") | UNKNOWN,
        AnswerType.LIST: st.sampled_from([["@cf/zai-org/glm-5.3"], ["llama-4"]]) | UNKNOWN,
        AnswerType.PER_ROLE: st.dictionaries(
            st.sampled_from(q.roles), st.integers(1, 3_000_000), min_size=1
        )
        | UNKNOWN,
    }
    return strategies[q.type]


EVIDENCE = st.sampled_from(list(EvidenceLevel))
ANSWERS = st.fixed_dictionaries(
    {
        q.id: st.builds(CheckedAnswer, value=value_strategy(q), evidence=EVIDENCE)
        for q in BANK.questions
    }
)


def answer_set(answers: dict[str, CheckedAnswer]) -> AnswerSet:
    return AnswerSet(questionnaire=BANK.id, vendor="v", date=dt.date(2026, 11, 1), answers=answers)


def score(answers: dict[str, CheckedAnswer]) -> ScoreResult:
    return score_answers(BANK, answer_set(answers), ADVISORIES)


def raw_points(result: ScoreResult) -> int:
    return sum(f.points for f in result.findings)


def assert_not_riskier(safer: ScoreResult, riskier: ScoreResult) -> None:
    assert raw_points(safer) <= raw_points(riskier)
    assert safer.score <= riskier.score
    assert safer.tier.rank <= riskier.tier.rank


@settings(max_examples=150, deadline=None)
@given(
    answers=ANSWERS,
    control=st.sampled_from(CONTROLS),
    absent=st.sampled_from(["unsafe", "unknown", "unanswered"]),
    evidence=EVIDENCE,
)
def test_adding_a_control_never_raises_the_score(
    answers: dict[str, CheckedAnswer], control: Question, absent: str, evidence: EvidenceLevel
) -> None:
    without = dict(answers)
    if absent == "unanswered":
        without.pop(control.id)
    else:
        value = (not control.safe_answer) if absent == "unsafe" else "unknown"
        without[control.id] = CheckedAnswer(value=value, evidence=answers[control.id].evidence)
    with_control = {
        **answers,
        control.id: CheckedAnswer(value=control.safe_answer, evidence=evidence),
    }
    assert_not_riskier(score(with_control), score(without))


@settings(max_examples=150, deadline=None)
@given(answers=ANSWERS, control=st.sampled_from(CONTROLS), to_unknown=st.booleans())
def test_removing_a_control_never_lowers_the_score(
    answers: dict[str, CheckedAnswer], control: Question, to_unknown: bool
) -> None:
    evidence = answers[control.id].evidence
    present = {**answers, control.id: CheckedAnswer(value=control.safe_answer, evidence=evidence)}
    value = "unknown" if to_unknown else (not control.safe_answer)
    removed = {**answers, control.id: CheckedAnswer(value=value, evidence=evidence)}
    assert_not_riskier(score(present), score(removed))


@settings(max_examples=100, deadline=None)
@given(answers=ANSWERS, question=st.sampled_from(BANK.questions))
def test_stronger_evidence_never_raises_the_score(
    answers: dict[str, CheckedAnswer], question: Question
) -> None:
    weak = {
        **answers,
        question.id: answers[question.id].model_copy(update={"evidence": EvidenceLevel.ATTESTED}),
    }
    strong = {
        **answers,
        question.id: answers[question.id].model_copy(update={"evidence": EvidenceLevel.VERIFIED}),
    }
    assert_not_riskier(score(strong), score(weak))


@settings(max_examples=50, deadline=None)
@given(answers=ANSWERS)
def test_score_is_bounded_and_deterministic(answers: dict[str, CheckedAnswer]) -> None:
    first = score(answers)
    assert 0 <= first.score <= 100
    assert score(dict(reversed(list(answers.items())))).model_dump(exclude={"answers"}) == (
        first.model_dump(exclude={"answers"})
    )


NODES = st.builds(
    DeployNode,
    name=st.sampled_from(["p0", "p1", "d0"]),
    engine=st.sampled_from(["sglang", "vllm", None]),
    version=st.sampled_from(["0.5.21", "0.5.22", None]),
    role=st.sampled_from(["prefill", "decode", "unknown"]),
    pool_tokens=st.sampled_from([None, 100_000, 681_280, 2_000_000]),
    context_tokens=st.sampled_from([None, 1_048_576]),
)


def deploy_of(nodes: list[DeployNode]) -> DeployEvidence:
    return DeployEvidence(schema_version=1, kind="assess.deploy-check", nodes=nodes)


@settings(max_examples=100, deadline=None)
@given(answers=ANSWERS, nodes=st.lists(NODES, max_size=3), extra=NODES, leak=st.booleans())
def test_more_contradictions_never_lower_the_tier(
    answers: dict[str, CheckedAnswer], nodes: list[DeployNode], extra: DeployNode, leak: bool
) -> None:
    """More evidence (another node's startup log, a leaking probe) never lowers score or tier."""
    fewer = score_answers(BANK, answer_set(answers), ADVISORIES, deploy=deploy_of(nodes))
    probe = ProbeEvidence(schema_version=1, kind="assess.probe", leak_found=True) if leak else None
    more = score_answers(
        BANK, answer_set(answers), ADVISORIES, probe=probe, deploy=deploy_of([*nodes, extra])
    )
    assert sum(f.contradiction for f in fewer.findings) <= sum(
        f.contradiction for f in more.findings
    )
    assert_not_riskier(fewer, more)
    if any(f.contradiction for f in more.findings):
        assert more.tier.value == "critical"


@settings(max_examples=50, deadline=None)
@given(answers=ANSWERS, nodes=st.lists(NODES, max_size=2))
def test_uncapped_total_and_sections_add_up(
    answers: dict[str, CheckedAnswer], nodes: list[DeployNode]
) -> None:
    result = score_answers(BANK, answer_set(answers), ADVISORIES, deploy=deploy_of(nodes))
    assert result.points_total == sum(f.points for f in result.findings)
    assert result.points_total == sum(result.section_points.values())
    assert result.score == min(BANK.scoring.cap, result.points_total)


def unbound_evidence(why: str, nodes: list[DeployNode]) -> tuple[ProbeEvidence, DeployEvidence]:
    """A leaking probe and startup logs that are not about the vendor (or too old to count)."""
    endpoint, model, day, period = "https://api.vendor.example/v1", "llama-4", "2026-11-01", None
    if why == "loopback":
        endpoint = "http://127.0.0.1:8000/v1"
    elif why == "other-model":
        model = "qwen-unrelated"
    else:  # stale: more than evidence_max_age_days before the answers (2026-11-01)
        day = "2026-08-01"
        period = {"start": f"{day}T00:00:00", "end": f"{day}T01:00:00", "dated": True}
    probe = ProbeEvidence(
        schema_version=1,
        kind="assess.probe",
        leak_found=True,
        endpoint=endpoint,
        model=model,
        started_at=f"{day}T10:00:00Z",
    )
    about = {"models_seen": [] if why == "loopback" else [model], "period": period}
    if why == "loopback":
        about["service"] = "a lab"
    deploy = DeployEvidence.model_validate({**deploy_of(nodes).model_dump(), "about": about})
    return probe, deploy


@settings(max_examples=100, deadline=None)
@given(
    answers=ANSWERS,
    nodes=st.lists(NODES, min_size=1, max_size=3),
    why=st.sampled_from(["loopback", "other-model", "stale"]),
)
def test_evidence_not_about_the_vendor_never_moves_the_score(
    answers: dict[str, CheckedAnswer], nodes: list[DeployNode], why: str
) -> None:
    """Unbound or stale evidence is labelled, scores nothing; vouched for, it only adds risk."""
    answers = {
        **answers,
        "vendor.models": CheckedAnswer(value=["llama-4"], evidence=EvidenceLevel.DOCUMENTED),
        "vendor.service": CheckedAnswer(value="Chat API", evidence=EvidenceLevel.DOCUMENTED),
    }
    plain = score(answers)
    probe, deploy = unbound_evidence(why, nodes)
    result = score_answers(BANK, answer_set(answers), ADVISORIES, probe=probe, deploy=deploy)
    assert (result.score, result.tier, result.points_total) == (
        plain.score,
        plain.tier,
        plain.points_total,
    )
    assert [e.scored for e in result.evidence] == [False, False]
    assert not any(f.contradiction for f in result.findings)
    vouched = score_answers(
        BANK,
        answer_set(answers),
        ADVISORIES,
        probe=probe,
        deploy=deploy,
        evidence_for_vendor=True,
    )
    assert [e.scored for e in vouched.evidence] == [True, True]
    assert_not_riskier(plain, vouched)
