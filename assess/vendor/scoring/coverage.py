"""The evidence axis (pure): what share of the questionnaire's weight is answered, and how well.

Risk is scored from what is known; what is not known is measured here instead: each question
weighs the points of its ``weight`` (a critical question at least ``unknown_critical_severity``'s,
every question at least 1). A question that does not apply (answered ``not_applicable``, or its
``not_applicable_when`` holds) leaves the risk. Answered ``not_applicable`` with documented or
verified evidence and a ``ref`` it leaves the weight too; on attestation only (or with no ``ref``)
it stays in the weight, unanswered, and is asked again (so a file of bare not_applicable answers
never looks well covered). One ruled out by other answers (transfer controls once serving is
``aggregated``) counts as covered by them: answering a question never lowers the coverage. An
answer dated more than ``coverage.answer_max_age_days`` before the answers is stale: it still
scores, but it does not count as covered and is asked again. The unknown and stale questions are
the questions to send.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Literal

from assess.kernel.common import EvidenceLevel, Severity
from assess.vendor.answers import AnswerSet, CheckedAnswer, Value
from assess.vendor.questionnaire import NOT_APPLICABLE, Question, Questionnaire
from assess.vendor.questionnaire_scoring import Scoring
from assess.vendor.scoring.findings import value_text
from assess.vendor.scoring.models import (
    ControlInPlace,
    CoverageResult,
    EvidenceVerdict,
    QuestionToSend,
)
from assess.vendor.scoring.rules import holds

Reason = Literal["unknown", "stale", "not-applicable-undocumented"]


def applicable_answers(bank: Questionnaire, answers: AnswerSet) -> tuple[AnswerSet, list[str]]:
    """Return ``answers`` with every question whose ``not_applicable_when`` holds set to
    ``not_applicable`` (its note says which answers make it so), in questionnaire order, and the
    ids so ruled out."""
    current = answers
    ruled_out: list[str] = []
    for q in bank.questions:
        when = q.not_applicable_when
        if when is None or current.get(q.id).not_applicable:
            continue
        if all(holds(c, current) for c in when.all) and (
            not when.any or any(holds(c, current) for c in when.any)
        ):
            because = ", ".join(
                f"{c.question} = {value_text(current.value(c.question))}"
                for c in (*when.all, *when.any)
            )
            was = current.get(q.id)
            marked = was.model_copy(
                update={"value": NOT_APPLICABLE, "per": {}, "note": f"does not apply: {because}"}
            )
            current = current.model_copy(update={"answers": {**current.answers, q.id: marked}})
            ruled_out.append(q.id)
    return current, ruled_out


def priority(q: Question, scoring: Scoring) -> Severity:
    """Return how much ``q`` matters: its weight, at least unknown_critical_severity if critical."""
    floor = scoring.unknown_critical_severity if q.critical else Severity.INFO
    return max(q.weight, floor, key=lambda s: s.rank)


def weight(q: Question, scoring: Scoring) -> int:
    """Return ``q``'s coverage weight: the points of its priority, at least 1."""
    return max(1, scoring.points[priority(q, scoring)])


def _answered(a: CheckedAnswer) -> bool:
    return a.known or any(_known(v) for v in a.per.values())


def _known(value: Value) -> bool:
    return value not in ("unknown", NOT_APPLICABLE)


def shown_not_applicable(a: CheckedAnswer) -> bool:
    """Return True when a ``not_applicable`` answer may leave the coverage weight: documented or
    verified evidence that says where (a ``ref``). "documented" with no document named is the
    vendor's word, like an attestation."""
    return a.evidence.rank >= EvidenceLevel.DOCUMENTED.rank and bool(a.ref.strip())


def is_stale(a: CheckedAnswer, on: dt.date, max_age_days: int) -> bool:
    """Return True when ``a`` is dated more than ``max_age_days`` before ``on``."""
    return a.date is not None and (on - a.date).days > max_age_days


def coverage_of(
    bank: Questionnaire, answers: AnswerSet, ruled_out: Sequence[str] = ()
) -> tuple[CoverageResult, EvidenceVerdict, list[QuestionToSend]]:
    """Return the coverage of ``answers`` (already through :func:`applicable_answers`, which
    gives ``ruled_out``), its verdict and the questions to send, most weighty first (then in
    questionnaire order)."""
    scoring = bank.scoring
    rule = scoring.coverage
    total = answered = 0
    by_level = dict.fromkeys(EvidenceLevel, 0)
    not_applicable: list[str] = []
    undocumented: list[str] = []
    stale: list[str] = []
    send: list[QuestionToSend] = []
    for q in bank.questions:
        a = answers.get(q.id)
        w = weight(q, scoring)
        if q.id in ruled_out:  # covered by the answers that rule it out
            total += w
            answered += w
            by_level[_ruling_evidence(q, answers)] += w
            continue
        if a.not_applicable and shown_not_applicable(a):
            not_applicable.append(q.id)
            continue
        total += w
        old = _answered(a) and is_stale(a, answers.date, rule.answer_max_age_days)
        if _answered(a) and not old:
            answered += w
            by_level[a.evidence] += w
            continue
        (stale if old else undocumented if a.not_applicable else []).append(q.id)
        reason: Reason = (
            "stale" if old else "not-applicable-undocumented" if a.not_applicable else "unknown"
        )
        send.append(
            QuestionToSend(
                id=q.id, text=q.text, priority=priority(q, scoring), weight=w, reason=reason
            )
        )
    share = round(answered / total, 3) if total else 1.0
    result = CoverageResult(
        share=share,
        answered_weight=answered,
        applicable_weight=total,
        by_evidence={k: round(v / total, 3) if total else 0.0 for k, v in by_level.items()},
        sufficient_at=rule.sufficient_at,
        questions=sum(1 for q in bank.questions if q.id not in not_applicable),
        answered=sum(1 for q in bank.questions if q.id not in not_applicable) - len(send),
        not_applicable=not_applicable,
        not_applicable_undocumented=undocumented,
        ruled_out=list(ruled_out),
        stale=stale,
    )
    verdict = _verdict(bank, result)
    order = {q.id: i for i, q in enumerate(bank.questions)}
    send.sort(key=lambda s: (-s.weight, order[s.id]))
    return result, verdict, send


def _verdict(bank: Questionnaire, c: CoverageResult) -> EvidenceVerdict:
    """Sufficient at ``sufficient_at``, unless the weight declared not applicable outweighs the
    weight answered (a file of not_applicable answers is not well covered)."""
    removed = sum(weight(q, bank.scoring) for q in bank.questions if q.id in c.not_applicable)
    enough = c.share >= c.sufficient_at and removed <= c.answered_weight
    return "sufficient" if enough else "insufficient-evidence"


def _ruling_evidence(q: Question, answers: AnswerSet) -> EvidenceLevel:
    """Return the weakest evidence of the answers that rule ``q`` out."""
    when = q.not_applicable_when
    conds = [*when.all, *when.any] if when is not None else []
    levels = [answers.get(c.question).evidence for c in conds] or [EvidenceLevel.ATTESTED]
    return min(levels, key=lambda e: e.rank)


def _in_place(q: Question, value: Value) -> bool:
    if not _known(value):
        return False
    if q.control and isinstance(value, bool):
        return value is q.safe_answer
    if q.in_place_if_answered:
        return True
    return any(type(v) is type(value) and v == value for v in q.safe_values)


def controls_in_place(
    bank: Questionnaire, answers: AnswerSet, period_start: dt.date | None = None
) -> list[ControlInPlace]:
    """Return the facts in the vendor's favour: controls answered with their safe value, answers
    among a question's ``safe_values``, and answers to ``in_place_if_answered`` questions.

    Each is ``stale`` when its answer is dated more than ``coverage.answer_max_age_days`` before
    the answers' date (as the coverage judges it) or before ``period_start`` (the assessment
    period's first day): a 2019 attestation is listed, marked, never silently current. The
    dates come from the files, never from the clock.
    """
    max_age = bank.scoring.coverage.answer_max_age_days
    out: list[ControlInPlace] = []
    for q in bank.questions:
        a = answers.get(q.id)
        # A value per model that is not in place narrows the answer's: never shown as the vendor's.
        base = _in_place(q, a.value)
        labels = [label for label, v in sorted(a.per.items()) if _in_place(q, v)]
        lacking = [label for label, v in sorted(a.per.items()) if not _in_place(q, v)]
        if not base and not labels:
            continue
        value = a.value if base else a.per[labels[0]]
        out.append(
            ControlInPlace(
                question=q.id,
                text=q.text,
                value=value,
                evidence=a.evidence,
                ref=a.ref,
                note=a.note,
                only_for=[] if base else labels,
                not_for=lacking if base else [],
                date=a.date,
                stale=is_stale(a, answers.date, max_age)
                or (period_start is not None and is_stale(a, period_start, max_age)),
            )
        )
    return out
