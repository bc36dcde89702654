"""Answers one question gives another (``implies`` in the questionnaire), pure.

A mode question answers its yes/no twin: ``isolation.transfer_checksum_mode: off`` is
``isolation.transfer_checksums: no`` for every rule, control, advisory and the coverage. The twin
unanswered (or unknown) is scored as implied, with the mode's evidence and a note saying so; both
answered and agreeing, nothing changes; both answered and disagreeing, the stricter reading (the
unsafe value: not the control's safe answer, not among ``safe_values``) is scored, never the
laxer, and :func:`disagreement_findings` says so (info: the stricter reading scores the risk).
Every finding resting on a twin also rests on the mode answers that decide it, added once the
findings are merged (:func:`with_modes`): the twin answered or implied, the same findings merge
the same way and score the same points. Values per model or deployment (``per``) are read the
same way, label by label.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from assess.kernel.common import Severity
from assess.vendor.answers import AnswerSet, CheckedAnswer, Value
from assess.vendor.questionnaire import UNKNOWN, Question, Questionnaire
from assess.vendor.scoring.findings import Context, value_text
from assess.vendor.scoring.models import ScoreFinding


@dataclass(frozen=True)
class Disagreement:
    """A twin answered one way and its mode question, read through ``implies``, the other."""

    question: str
    source: str
    stated: Value
    said: Value
    scored: Value


@dataclass(frozen=True)
class Implied:
    """The answers with every twin read through its mode question, which answers decide each
    twin (twin -> the mode questions behind its scored value), and the disagreements."""

    answers: AnswerSet
    sources: dict[str, list[str]]
    disagreements: list[Disagreement]


def _safe(q: Question, value: Value) -> bool:
    if q.control and isinstance(value, bool):
        return value is q.safe_answer
    return any(type(v) is type(value) and v == value for v in q.safe_values)


def _pick(q: Question, stated: Value, implied: Value | None) -> tuple[Value, bool]:
    """Return the value to score and whether the two readings disagree."""
    if implied is None or stated == implied:
        return stated, False
    if stated in (UNKNOWN, None):
        return implied, False
    return (stated if _safe(q, implied) else implied), True


def _read(
    twin: Question,
    target: CheckedAnswer,
    source: str,
    mode: CheckedAnswer,
    values: dict[str, Value],
) -> tuple[CheckedAnswer, bool, bool]:
    """Return ``target`` read with ``mode``, whether the mode decides it, and whether they
    disagree (on the answer or on a value per model)."""

    def image(value: Value) -> Value | None:
        return values.get(value) if isinstance(value, str) else None

    scored, clash = _pick(twin, target.value, image(mode.value))
    per: dict[str, Value] = dict(target.per)
    for label in sorted(set(mode.per) | set(target.per)):
        own = target.per.get(label, target.value)
        per[label], differs = _pick(twin, own, image(mode.per.get(label, mode.value)))
        clash = clash or differs
    decides = image(mode.value) == scored and image(mode.value) is not None
    if target.value == scored or not decides:
        return target.model_copy(update={"value": scored, "per": per}), decides, clash
    note = f"implied by {source} = {value_text(mode.value)}"
    if target.value != UNKNOWN:
        note = (
            f"answered {value_text(target.value)}; {source} = {value_text(mode.value)} says"
            f" {value_text(scored)}: the stricter reading is scored"
        )
    answer = CheckedAnswer(
        value=scored, evidence=mode.evidence, ref=mode.ref, date=mode.date, per=per, note=note
    )
    return answer, True, clash


def implied_answers(bank: Questionnaire, answers: AnswerSet) -> Implied:
    """Return ``answers`` (already through ``applicable_answers``) with every twin read through
    the questions that imply it. A twin or mode that does not apply is left as it is."""
    current = dict(answers.answers)
    sources: dict[str, list[str]] = {}
    clashes: list[Disagreement] = []
    by_id = bank.by_id()
    for q in bank.questions:
        if q.implies is None or q.implies.question not in by_id:
            continue
        mode, qid = answers.get(q.id), q.implies.question
        target = current.get(qid) or CheckedAnswer(value=UNKNOWN)
        if mode.not_applicable or target.not_applicable or not (mode.known or mode.per):
            continue
        read, decides, clash = _read(by_id[qid], target, q.id, mode, dict(q.implies.values))
        if read != target:
            current[qid] = read
        if decides or clash:
            sources.setdefault(qid, []).append(q.id)
        if clash:
            clashes.append(Disagreement(qid, q.id, target.value, mode.value, read.value))
    return Implied(answers.model_copy(update={"answers": current}), sources, clashes)


def overruled(bank: Questionnaire, stated: AnswerSet, scored: AnswerSet) -> set[str]:
    """Return the mode questions whose answer, read through ``implies``, is not what its twin
    scores (the twin answered the stricter way): the laxer answer was set aside, so it is not
    listed in place. A value per model set aside counts too (never "in place" for one model
    while the score reads the stricter answer there)."""
    out: set[str] = set()
    for q in bank.questions:
        if q.implies is None:
            continue
        mode, twin = stated.get(q.id), scored.get(q.implies.question)
        if mode.not_applicable or twin.not_applicable:
            continue
        values = dict(q.implies.values)
        pairs = [(mode.value, twin.value)] + [
            (mode.per.get(label, mode.value), twin.per.get(label, twin.value))
            for label in set(mode.per) | set(twin.per)
        ]
        for said, read in pairs:
            image = values.get(said) if isinstance(said, str) else None
            if image is not None and image != read:
                out.add(q.id)
    return out


def with_modes(finding: ScoreFinding, sources: Mapping[str, Sequence[str]]) -> ScoreFinding:
    """Return ``finding`` (and those merged into it) resting also on the mode questions behind
    each twin it rests on (``sources``: twin -> its mode questions)."""
    rests = dict.fromkeys(r for q in finding.rests_on for r in (q, *sources.get(q, ())))
    merged = [with_modes(m, sources) for m in finding.merged]
    return finding.model_copy(update={"rests_on": list(rests), "merged": merged})


def disagreement_findings(ctx: Context, clashes: list[Disagreement]) -> list[ScoreFinding]:
    """Return one ``answers-disagree.<twin>`` finding per twin its mode question contradicts:
    info, no points (the stricter reading already scores the risk, so answering a control never
    raises it); a committee reads that the vendor claims it two ways, and asks."""
    out: list[ScoreFinding] = []
    for c in clashes:
        q = ctx.bank.question(c.question)
        out.append(
            ctx.finding(
                f"answers-disagree.{c.question}",
                Severity.INFO,
                f"The answers disagree: {q.text if q else c.question}",
                f"{c.question} is answered {value_text(c.stated)},"
                f" {c.source} {value_text(c.said)}, which"
                f" means otherwise. The stricter reading is scored: {c.question} ="
                f" {value_text(c.scored)}.",
                f"Ask the vendor which holds, and for {c.question} and {c.source} to agree.",
                [c.question],
            )
        )
    return out
