"""Compare two attestations of a vendor: changed answers, regressions, score before and after."""

from __future__ import annotations

from collections.abc import Mapping

from packaging.version import Version

from assess.advisories.models import Advisory
from assess.vendor.answers import AnswerSet, CheckedAnswer
from assess.vendor.diff_models import AnswerChange, AnswersDiff, Change, Side
from assess.vendor.questionnaire import AnswerType, Question, Questionnaire
from assess.vendor.scoring import score_answers
from assess.vendor.scoring.models import ScoreResult


def classify(q: Question, old: CheckedAnswer, new: CheckedAnswer) -> tuple[Change, bool] | None:
    """Return how ``q``'s answer changed and whether that is a regression (None: unchanged)."""
    if old.value == new.value:
        if old.evidence == new.evidence:
            return None
        weaker = new.evidence.rank < old.evidence.rank
        return (Change.EVIDENCE_WEAKER if weaker else Change.EVIDENCE_STRONGER), weaker
    if not old.known:
        return Change.ANSWERED, False
    if not new.known:
        if q.control and old.value is q.safe_answer:
            return Change.CONTROL_DROPPED, True
        return Change.NOW_UNKNOWN, q.critical or q.control
    if q.control:
        dropped = old.value is q.safe_answer
        return (Change.CONTROL_DROPPED if dropped else Change.CONTROL_ADDED), dropped
    if q.type is AnswerType.VERSION and isinstance(old.value, str) and isinstance(new.value, str):
        down = Version(new.value) < Version(old.value)
        return (Change.DOWNGRADE if down else Change.UPGRADE), down
    return Change.CHANGED, False


def _per_changes(q: Question, old: CheckedAnswer, new: CheckedAnswer) -> list[AnswerChange]:
    """Return the changes of the values given per model, deployment or Region.

    A label's value is its own where given, else the answer's: a label given on one side only is
    compared with the other side's answer. Evidence changes are the answer's (listed once, above).
    """
    out: list[AnswerChange] = []
    for label in sorted(set(old.per) | set(new.per)):
        a = old.model_copy(update={"value": old.per.get(label, old.value), "per": {}})
        b = new.model_copy(update={"value": new.per.get(label, new.value), "per": {}})
        found = classify(q, a, b.model_copy(update={"evidence": a.evidence}))
        if found is not None:
            out.append(
                AnswerChange(
                    id=q.id, label=label, change=found[0], regression=found[1], old=a, new=b
                )
            )
    return out


def _side(result: ScoreResult, answers: AnswerSet) -> Side:
    return Side(
        source=answers.source,
        vendor=result.vendor.name,
        date=answers.date,
        score=result.score,
        tier=result.tier,
        points_total=result.points_total,
        coverage=result.coverage.share,
        evidence_verdict=result.evidence_verdict,
    )


def diff_answers(
    bank: Questionnaire, old: AnswerSet, new: AnswerSet, advisories: Mapping[str, Advisory]
) -> AnswersDiff:
    """Return the changes from ``old`` to ``new`` in questionnaire order, and both scores."""
    changes: list[AnswerChange] = []
    for q in bank.questions:
        a, b = old.get(q.id), new.get(q.id)
        found = classify(q, a, b)
        if found is not None:
            changes.append(
                AnswerChange(id=q.id, change=found[0], regression=found[1], old=a, new=b)
            )
        changes.extend(_per_changes(q, a, b))
    before = score_answers(bank, old, advisories)
    after = score_answers(bank, new, advisories)
    old_ids = {f.id for f in before.findings}
    new_ids = {f.id for f in after.findings}
    return AnswersDiff(
        questionnaire=bank.id,
        old=_side(before, old),
        new=_side(after, new),
        changes=changes,
        findings_added=sorted(new_ids - old_ids),
        findings_resolved=sorted(old_ids - new_ids),
    )
