"""Property tests of the two axes: risk from what is known, evidence coverage beside it."""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from assess.kernel.common import EvidenceLevel
from assess.vendor.answers import CheckedAnswer
from assess.vendor.questionnaire import Question
from assess.vendor.scoring.coverage import applicable_answers, weight
from assess.vendor.scoring.models import ScoreResult, Tier
from tests.score.test_properties import ANSWERS, BANK, EVIDENCE, answer_set, score, value_strategy

#: Questions with an answer that means a control is in place.
SAFE = [q for q in BANK.questions if q.control or q.safe_values]


def safe_value(q: Question) -> Any:
    return q.safe_answer if q.control else q.safe_values[0]


def implied_by_a_mode(answers: dict[str, CheckedAnswer]) -> set[str]:
    """The questions a known mode answer implies (``implies``)."""
    known = {qid for qid, a in answers.items() if a.known or a.per}
    return {q.implies.question for q in BANK.questions if q.implies and q.id in known}


def overruled_by_its_twin(answers: dict[str, CheckedAnswer], question: Question) -> bool:
    """Whether ``question`` is a mode question whose twin is answered otherwise than its safe
    value implies (the stricter twin is scored: the mode answer is not in place)."""
    if question.implies is None or question.implies.question not in answers:
        return False
    twin = answers[question.implies.question]
    implied = dict(question.implies.values).get(str(safe_value(question)))
    return bool(twin.per) or (twin.known and twin.value != implied)


def all_rests(result: ScoreResult) -> set[str]:
    return {r for f in result.findings for m in (f, *f.merged) for r in m.rests_on}


@settings(max_examples=25, deadline=None)
@given(answers=ANSWERS, question=st.sampled_from(BANK.questions), data=st.data())
def test_answering_an_unknown_question_never_lowers_coverage(
    answers: dict[str, CheckedAnswer], question: Question, data: st.DataObject
) -> None:
    value = data.draw(value_strategy(question).filter(lambda v: v != "unknown"))
    evidence = data.draw(EVIDENCE)
    unknown = {**answers, question.id: CheckedAnswer(value="unknown")}
    answered = {**answers, question.id: CheckedAnswer(value=value, evidence=evidence)}
    before, after = score(unknown).coverage, score(answered).coverage
    assert after.share >= before.share
    assert after.answered_weight - before.answered_weight >= 0


@settings(max_examples=25, deadline=None)
@given(
    answers=ANSWERS,
    question=st.sampled_from(SAFE),
    absent=st.sampled_from(["unknown", "unanswered", "unsafe"]),
)
def test_a_documented_control_never_raises_risk(
    answers: dict[str, CheckedAnswer], question: Question, absent: str
) -> None:
    without = dict(answers)
    if absent == "unanswered":
        without.pop(question.id)
    elif absent == "unsafe" and question.control:
        without[question.id] = CheckedAnswer(value=not question.safe_answer)
    else:
        without[question.id] = CheckedAnswer(value="unknown")
    documented = CheckedAnswer(value=safe_value(question), evidence=EvidenceLevel.DOCUMENTED)
    safer, riskier = score({**answers, question.id: documented}), score(without)
    assert sum(f.points for f in safer.findings) <= sum(f.points for f in riskier.findings)
    assert safer.score <= riskier.score and safer.tier.rank <= riskier.tier.rank
    _, ruled_out = applicable_answers(BANK, answer_set({**answers, question.id: documented}))
    # a twin its answered mode question contradicts, or a mode its answered twin contradicts:
    # the stricter reading is scored, the other not listed
    if (
        question.id not in ruled_out
        and question.id not in implied_by_a_mode(answers)
        and not overruled_by_its_twin(answers, question)
    ):
        assert question.id in {c.question for c in safer.controls_in_place}


@settings(max_examples=30, deadline=None)
@given(answers=ANSWERS)
def test_a_tier_is_always_carried_by_a_finding_or_the_verdict(
    answers: dict[str, CheckedAnswer],
) -> None:
    result = score(answers)
    carried = {
        Tier.LOW: 0,
        Tier.MEDIUM: 2,
        Tier.HIGH: 3,
        Tier.CRITICAL: 4,
    }[result.tier]
    backed = any(f.severity.rank >= carried for f in result.findings) or bool(result.decided_by)
    assert backed or result.evidence_verdict == "insufficient-evidence"
    # stronger than the issue asks: the tier never rests on the verdict alone
    assert backed


@settings(max_examples=25, deadline=None)
@given(
    answers=ANSWERS,
    question=st.sampled_from(BANK.questions),
    evidence=EVIDENCE,
    ref=st.sampled_from(["", "  ", "https://example.com/engine"]),
)
def test_not_applicable_removes_a_question_from_risk_and_documented_from_coverage(
    answers: dict[str, CheckedAnswer], question: Question, evidence: EvidenceLevel, ref: str
) -> None:
    """The rule (docs/vendor.md): a not_applicable answer always leaves the risk axis; it leaves
    the coverage weight only with documented or verified evidence that names its source (a
    ``ref``). On attestation only, or with no ref, it stays in the weight, unanswered, and is
    asked again: declaring questions away never raises coverage.
    """
    unknown = {**answers, question.id: CheckedAnswer(value="unknown")}
    _, ruled_out = applicable_answers(BANK, answer_set(unknown))
    assume(question.id not in ruled_out)  # already out: covered by the answers ruling it out
    # a yes/no twin left unknown is answered by its mode question (implies): covered by it
    assume(question.id not in implied_by_a_mode(unknown))
    na = CheckedAnswer(value="not_applicable", note="cannot apply here", evidence=evidence, ref=ref)
    result = score({**answers, question.id: na})
    assert question.id not in all_rests(result)
    assert question.id not in {c.question for c in result.controls_in_place}
    before = score(unknown).coverage
    assert result.coverage.answered_weight == before.answered_weight
    sent = {q.id: q.reason for q in result.questions_to_send}
    if evidence.rank >= EvidenceLevel.DOCUMENTED.rank and ref.strip():
        assert question.id not in sent
        assert question.id in result.coverage.not_applicable
        assert result.coverage.applicable_weight == before.applicable_weight - weight(
            question, BANK.scoring
        )
    else:
        assert sent[question.id] == "not-applicable-undocumented"
        assert question.id in result.coverage.not_applicable_undocumented
        assert result.coverage.applicable_weight == before.applicable_weight
        assert result.coverage.share == before.share
