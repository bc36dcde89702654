"""Computed checks a questionnaire can enable (``checks:``): the registry and one function each."""

from __future__ import annotations

from collections.abc import Callable

from assess.kernel.common import EvidenceLevel, Severity
from assess.vendor.questionnaire import Question
from assess.vendor.scoring.advisory_checks import check_advisories
from assess.vendor.scoring.findings import Context
from assess.vendor.scoring.models import Mitigation, ScoreFinding
from assess.vendor.scoring.rules import for_labels, offsetting, views

Check = Callable[[Context], list[ScoreFinding]]

ENGINE, VERSION, MODE = "engine.name", "engine.version", "deployment.mode"
CONTEXT = "deployment.advertised_context_tokens"
POOL = "deployment.kv_pool_tokens"


def check_pool_vs_context(ctx: Context) -> list[ScoreFinding]:
    """Findings for every role whose KV pool is smaller than the advertised context."""
    window = ctx.answers.value(CONTEXT)
    pools = ctx.answers.value(POOL)
    if not isinstance(window, int) or isinstance(window, bool) or not isinstance(pools, dict):
        return []
    mode = ctx.answers.value(MODE)
    question = ctx.bank.question(POOL)
    out: list[ScoreFinding] = []
    for role in question.roles if question else sorted(pools):
        pool = pools.get(role)
        if pool is None or pool >= window:
            continue
        share = (window - pool) / window
        severity = (
            Severity.CRITICAL if role == "prefill" and mode == "disaggregated" else Severity.HIGH
        )
        out.append(
            ctx.finding(
                f"pool-smaller-than-context.{role}",
                severity,
                f"{role} KV pool is smaller than the advertised context: {share:.0%} of the "
                "window has no backing memory",
                f"The {role} nodes hold {pool:,} tokens of KV cache but {window:,} are advertised: "
                f"{window - pool:,} tokens ({share:.0%}) of the window have no backing memory. "
                f"A prompt longer than {pool:,} tokens must be rejected at admission; in the "
                "GLM-5.3 incident it read other tenants' stale pages instead.",
                question.remediation if question else "Lower the context or grow the pool.",
                [CONTEXT, POOL, MODE],
            )
        )
    return out


def _yes_no(value: object) -> str:
    return "yes" if value is True else "no"


def _show(value: object) -> str:
    if isinstance(value, bool):
        return _yes_no(value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={v:,}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def _absent_for(ctx: Context, q: Question) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """Return the labels ('' = as answered) where control ``q`` is absent, and those where it is
    absent but offset by a compensating control (with the compensating questions)."""
    absent: list[str] = []
    offset: list[tuple[str, list[str]]] = []
    for label, answers in views(ctx.answers):
        answer = answers.get(q.id)
        if label and label not in answer.per:
            continue
        if not answer.known or answer.value is q.safe_answer:
            continue
        by = offsetting(q.compensated_by, answers, ctx.bank.scoring.compensation_evidence)
        if by:
            offset.append((label, by))
        else:
            absent.append(label)
    return absent, offset


def check_controls(ctx: Context) -> list[ScoreFinding]:
    """Findings for every control answered with its unsafe value (severity: its weight), unless a
    compensating control (``compensated_by``) offsets it."""
    out: list[ScoreFinding] = []
    for q in ctx.bank.questions:
        if not q.control:
            continue
        absent, _ = _absent_for(ctx, q)
        if absent:
            # what the vendor answered: the twin's value, or the mode answer it is read from
            said = {ctx.said(q.id, label) for label in absent}
            answered = said.pop() if len(said) == 1 else _yes_no(not q.safe_answer)
            out.append(
                ctx.finding(
                    f"control-absent.{q.id}",
                    q.weight,
                    for_labels(f"Control absent: {q.text} Answered {answered}.", absent),
                    f"{q.text} {q.help}".strip(),
                    q.remediation,
                    [q.id],
                )
            )
    return out


def control_mitigations(ctx: Context) -> list[Mitigation]:
    """Return the absent controls a compensating control offsets."""
    out: list[Mitigation] = []
    for q in ctx.bank.questions:
        if not q.control:
            continue
        _, offset = _absent_for(ctx, q)
        if offset:
            out.append(
                Mitigation(
                    offsets=f"control-absent.{q.id}",
                    severity=q.weight,
                    title=for_labels(f"Control absent: {q.text}", [lb for lb, _ in offset]),
                    by=list(dict.fromkeys(b for _, bs in offset for b in bs)),
                )
            )
    return out


def unknown_severity(ctx: Context, critical: bool, control: bool, weight: Severity) -> Severity:
    """Return the severity of an unknown answer (info: no finding)."""
    severity = ctx.bank.scoring.unknown_critical_severity if critical else Severity.INFO
    if control and weight.rank > severity.rank:
        severity = weight
    return severity


def check_unknown_answers(ctx: Context) -> list[ScoreFinding]:
    """Findings for unknown answers to critical questions and to controls: unknown is risk."""
    out: list[ScoreFinding] = []
    for q in ctx.bank.questions:
        answer = ctx.answers.get(q.id)
        if answer.known or answer.not_applicable or not (q.critical or q.control):
            continue
        severity = unknown_severity(ctx, q.critical, q.control, q.weight)
        if severity is Severity.INFO:
            continue
        kind = "critical question" if q.critical else "control"
        out.append(
            ctx.finding(
                f"unknown-answer.{q.id}",
                severity,
                f"Unknown ({kind}): {q.text}",
                f"{q.text} Unknown is risk, not zero: it is scored like a missing control.",
                q.remediation or "Ask the vendor for an answer with evidence.",
                [q.id],
            )
        )
    return out


def check_attested_only(ctx: Context) -> list[ScoreFinding]:
    """One finding listing every reassuring claim (critical questions, controls) only attested.

    One root cause (the vendor's word is the only evidence), one remediation: one finding, as
    severe as the most severe of its answers.
    """
    base = ctx.bank.scoring.attested_only_severity
    claims: list[tuple[str, Severity, str]] = []
    for q in ctx.bank.questions:
        answer = ctx.answers.get(q.id)
        if not (q.critical or q.control) or not answer.known:
            continue
        if answer.evidence is not EvidenceLevel.ATTESTED:
            continue
        if q.control and answer.value is not q.safe_answer:
            continue  # an absent control is already a finding; its evidence does not matter
        severity = min(base, q.weight, key=lambda s: s.rank) if q.control else base
        claims.append((q.id, severity, f"{q.id} ({_show(answer.value)})"))
    if not claims:
        return []
    return [
        ctx.finding(
            "attested-only",
            max((c[1] for c in claims), key=lambda s: s.rank),
            f"Only attested: {len(claims)} reassuring answer(s) rest on the vendor's word alone",
            "Only attested (evidence levels: attested < documented < verified): "
            + "; ".join(c[2] for c in claims)
            + ". A documented or verified claim would carry more weight.",
            "Ask for documentation, or verify the claims (e.g. `assess probe`, "
            "`assess deploy-check`).",
            [c[0] for c in claims],
        )
    ]


CHECKS: dict[str, Check] = {
    "advisories": check_advisories,
    "pool-vs-context": check_pool_vs_context,
    "controls": check_controls,
    "unknown-answers": check_unknown_answers,
    "attested-only": check_attested_only,
}
