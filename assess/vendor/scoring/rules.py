"""Condition rules (``rules:`` in the questionnaire) evaluated over the answers."""

from __future__ import annotations

from assess.vendor.answers import AnswerSet
from assess.vendor.questionnaire import Condition, Rule
from assess.vendor.scoring.findings import Context
from assess.vendor.scoring.models import ScoreFinding


def holds(cond: Condition, answers: AnswerSet) -> bool:
    """Return True when ``cond`` holds; only ``unknown: true`` matches an unknown answer."""
    answer = answers.get(cond.question)
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


def evaluate_rules(ctx: Context) -> list[ScoreFinding]:
    """Return a finding for every rule of the questionnaire whose conditions hold."""
    out: list[ScoreFinding] = []
    for rule in ctx.bank.rules:
        if not matches(rule, ctx.answers):
            continue
        rests = list(dict.fromkeys(c.question for c in (*rule.when.all, *rule.when.any)))
        out.append(
            ctx.finding(rule.id, rule.severity, rule.title, rule.why, rule.remediation, rests)
        )
    return out
