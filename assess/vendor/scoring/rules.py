"""Condition rules (``rules:`` in the questionnaire) evaluated over the answers.

A rule whose compensating control holds (``compensated_by``) raises no finding: it is listed as a
mitigation instead. Answers given per model or deployment (``per``) are evaluated for each: a rule
that holds for some of them only says which.
"""

from __future__ import annotations

from collections.abc import Sequence

from assess.kernel.common import EvidenceLevel
from assess.vendor.answers import AnswerSet
from assess.vendor.questionnaire import Condition, Rule
from assess.vendor.scoring.findings import Context
from assess.vendor.scoring.models import Mitigation, ScoreFinding


def holds(cond: Condition, answers: AnswerSet) -> bool:
    """Return True when ``cond`` holds; only ``unknown: true`` matches an unknown answer, and
    nothing matches a question that does not apply (``not_applicable``)."""
    answer = answers.get(cond.question)
    if answer.not_applicable:
        return False
    if cond.unknown is not None:
        return (not answer.known) is cond.unknown
    if not answer.known:
        return False
    value = answer.value
    if cond.is_ is not None:
        return value == cond.is_ and isinstance(value, bool) is isinstance(cond.is_, bool)
    if cond.in_ is not None:
        return isinstance(value, str) and value in cond.in_
    if cond.not_in is not None:
        return isinstance(value, str) and value not in cond.not_in
    number = value if isinstance(value, int) and not isinstance(value, bool) else None
    if number is None:
        return False
    if cond.gt is not None:
        return number > cond.gt
    return cond.lt is not None and number < cond.lt


def matches(rule: Rule, answers: AnswerSet) -> bool:
    """Return True when all of ``when.all`` and (if given) one of ``when.any`` hold."""
    return all(holds(c, answers) for c in rule.when.all) and (
        not rule.when.any or any(holds(c, answers) for c in rule.when.any)
    )


def offsetting(
    conditions: Sequence[Condition], answers: AnswerSet, minimum: EvidenceLevel
) -> list[str]:
    """Return the questions of the compensating ``conditions`` that hold on evidence at least
    ``minimum`` (the vendor's word alone offsets nothing); empty: not offset."""
    return list(
        dict.fromkeys(
            c.question
            for c in conditions
            if holds(c, answers) and answers.get(c.question).evidence.rank >= minimum.rank
        )
    )


def views(answers: AnswerSet) -> list[tuple[str, AnswerSet]]:
    """Return the answers as given ('') and as they hold for each model or deployment."""
    return [("", answers), *((label, answers.variant(label)) for label in answers.variant_labels())]


def for_labels(title: str, labels: list[str]) -> str:
    """Return ``title`` naming the models or deployments it holds for ('' = as answered)."""
    return title if "" in labels or not labels else f"{title} (for {', '.join(labels)})"


def _rule_outcome(rule: Rule, ctx: Context) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """Return the labels the rule holds for, and (label, offsetting questions) it is offset for."""
    holding: list[str] = []
    offset: list[tuple[str, list[str]]] = []
    for label, answers in views(ctx.answers):
        if not matches(rule, answers):
            continue
        by = offsetting(rule.compensated_by, answers, ctx.bank.scoring.compensation_evidence)
        if by:
            offset.append((label, by))
        else:
            holding.append(label)
    return holding, offset


def evaluate_rules(ctx: Context) -> list[ScoreFinding]:
    """Return a finding for every rule of the questionnaire whose conditions hold, unoffset."""
    out: list[ScoreFinding] = []
    for rule in ctx.bank.rules:
        holding, _ = _rule_outcome(rule, ctx)
        if not holding:
            continue
        rests = list(dict.fromkeys(c.question for c in (*rule.when.all, *rule.when.any)))
        title = for_labels(rule.title, holding)
        out.append(ctx.finding(rule.id, rule.severity, title, rule.why, rule.remediation, rests))
    return out


def rule_mitigations(ctx: Context) -> list[Mitigation]:
    """Return the rules that would hold but a compensating control offsets."""
    out: list[Mitigation] = []
    for rule in ctx.bank.rules:
        _, offset = _rule_outcome(rule, ctx)
        if offset:
            by = list(dict.fromkeys(q for _, qs in offset for q in qs))
            labels = [label for label, _ in offset]
            out.append(
                Mitigation(
                    offsets=rule.id,
                    severity=rule.severity,
                    title=for_labels(rule.title, labels),
                    by=by,
                )
            )
    return out
