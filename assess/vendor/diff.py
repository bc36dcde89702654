"""Compare two attestations of a vendor: changed answers, regressions, score before and after."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from packaging.version import Version

from assess.advisories.models import Advisory
from assess.kernel.common import Severity
from assess.vendor.answers import AnswerSet, CheckedAnswer
from assess.vendor.diff_models import AnswerChange, AnswersDiff, Change, Side
from assess.vendor.questionnaire import AnswerType, Question, Questionnaire
from assess.vendor.scoring import score_answers
from assess.vendor.scoring.merge import AGGREGATES
from assess.vendor.scoring.models import ScoreFinding, ScoreResult

#: The old and the new side scored (whole, or as they hold for one model).
Sides = tuple[ScoreResult, ScoreResult]


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


def _members(findings: list[ScoreFinding]) -> list[ScoreFinding]:
    """Return every finding with the ones merged into it (each keeps its own severity)."""
    return [m for f in findings for m in (f, *_members(f.merged))]


def _risks_on(result: ScoreResult, qid: str) -> dict[str, Severity]:
    """Return the findings above info that rest on ``qid``, each with its worst severity.

    Summaries of the evidence (``attested-only``) are left out: their cause is the evidence
    level, which :func:`classify` compares itself.
    """
    out: dict[str, Severity] = {}
    for f in _members(result.findings):
        if qid in f.rests_on and f.severity is not Severity.INFO and f.id not in AGGREGATES:
            if f.id not in out or f.severity.rank > out[f.id].rank:
                out[f.id] = f.severity
    return out


def _in_place(result: ScoreResult, qid: str) -> bool:
    """Return True when ``qid`` is a control in place as answered (not only for some models)."""
    return any(c.question == qid and not c.only_for for c in result.controls_in_place)


def _worse(qid: str, before: ScoreResult, after: ScoreResult) -> tuple[list[str], bool]:
    """Return the findings on ``qid`` that ``after`` adds or raises, and whether it lost ``qid``
    as a control in place: the scores of both sides decide, not a list of questions."""
    old, new = _risks_on(before, qid), _risks_on(after, qid)
    raised = [i for i, sev in new.items() if i not in old or sev.rank > old[i].rank]
    return sorted(raised), _in_place(before, qid) and not _in_place(after, qid)


def _scored(
    q: Question,
    kind: tuple[Change, bool],
    sides: Sides,
    old: CheckedAnswer,
    new: CheckedAnswer,
    label: str = "",
) -> AnswerChange:
    """Return the change of ``q`` with its regression judged on both sides' scores as well."""
    raises, lost = _worse(q.id, *sides)
    return AnswerChange(
        id=q.id,
        label=label,
        change=kind[0],
        regression=kind[1] or bool(raises) or lost,
        raises=raises,
        control_lost=lost,
        old=old,
        new=new,
    )


class _Scorer:
    """Scores answer sets, whole or as they hold for one model (memoised per label)."""

    def __init__(self, bank: Questionnaire, advisories: Mapping[str, Advisory]) -> None:
        self.bank, self.advisories = bank, advisories
        self.memo: dict[tuple[int, str], ScoreResult] = {}

    def score(self, answers: AnswerSet, label: str = "") -> ScoreResult:
        key = (id(answers), label)
        if key not in self.memo:
            held = answers
            if label:
                held = answers.variant(label)
                held = held.model_copy(
                    update={
                        "answers": {
                            k: a.model_copy(update={"per": {}}) for k, a in held.answers.items()
                        }
                    }
                )
            self.memo[key] = score_answers(self.bank, held, self.advisories)
        return self.memo[key]


def _per_changes(
    q: Question, old: CheckedAnswer, new: CheckedAnswer, sides: Callable[[str], Sides]
) -> list[AnswerChange]:
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
            out.append(_scored(q, found, sides(label), a, b, label))
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
    """Return the changes from ``old`` to ``new`` in questionnaire order, and both scores.

    A change is a regression when :func:`classify` says so (a control answered away, a version
    downgrade, weaker evidence...) or when scoring both sides shows it: the new side adds or
    raises a finding resting on the question, or no longer has it as a control in place. A value
    per model is judged on both sides scored as they hold for that model.
    """
    scorer = _Scorer(bank, advisories)
    before, after = scorer.score(old), scorer.score(new)

    def sides(label: str) -> Sides:
        return scorer.score(old, label), scorer.score(new, label)

    changes: list[AnswerChange] = []
    for q in bank.questions:
        a, b = old.get(q.id), new.get(q.id)
        found = classify(q, a, b)
        if found is not None:
            changes.append(_scored(q, found, (before, after), a, b))
        changes.extend(_per_changes(q, a, b, sides))
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
