"""Explainable risk scoring of a vendor's answers: findings, score and tier (a pure function).

Entry point: :func:`score_answers`. Same inputs, same result: no clock, no I/O, stable ordering.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from assess.advisories.models import Advisory
from assess.kernel.common import InputFile, Severity
from assess.vendor.answers import AnswerSet
from assess.vendor.questionnaire import Questionnaire
from assess.vendor.questionnaire_scoring import DecisiveRule
from assess.vendor.scoring.advisory_checks import engine_unsettled
from assess.vendor.scoring.binding import EvidenceBinding, bind_deploy, bind_probe
from assess.vendor.scoring.cache_probe import cache_probe_findings, verified_control
from assess.vendor.scoring.checks import CHECKS, control_mitigations
from assess.vendor.scoring.conflicts import conflict_findings
from assess.vendor.scoring.contradictions import deploy_findings, not_about, probe_findings
from assess.vendor.scoring.coverage import applicable_answers, controls_in_place, coverage_of
from assess.vendor.scoring.evidence import CacheProbeEvidence, DeployEvidence, ProbeEvidence
from assess.vendor.scoring.findings import Context, with_controls
from assess.vendor.scoring.formula import decided_by, formula_text, score_of, tier_of, total_of
from assess.vendor.scoring.freshness import Period
from assess.vendor.scoring.implied import (
    Disagreement,
    disagreement_findings,
    implied_answers,
    overruled,
    with_modes,
)
from assess.vendor.scoring.merge import merge_root_causes
from assess.vendor.scoring.models import (
    ControlInPlace,
    Decision,
    QuestionnaireRef,
    ScoreFinding,
    ScoreResult,
    Tier,
    VendorRef,
)
from assess.vendor.scoring.refs import assign_refs
from assess.vendor.scoring.rules import evaluate_rules, rule_mitigations

__all__ = ["score_answers"]


def _ordered(findings: list[ScoreFinding]) -> list[ScoreFinding]:
    seen: dict[str, int] = {}
    unique: list[ScoreFinding] = []
    for f in sorted(findings, key=lambda f: (-f.severity.rank, f.id)):
        count = seen.get(f.id, 0)
        seen[f.id] = count + 1
        unique.append(f if count == 0 else f.model_copy(update={"id": f"{f.id}.{count + 1}"}))
    return unique


def section_points(questionnaire: Questionnaire, findings: list[ScoreFinding]) -> dict[str, int]:
    """Return the points per section (every section of the bank, 0 when nothing scored there).

    A finding counts in the section of the first question it rests on; one resting only on
    evidence counts under ``evidence``.
    """
    known = questionnaire.by_id()
    out = {q.section: 0 for q in questionnaire.questions}
    for f in findings:
        section = next((known[q].section for q in f.rests_on if q in known), "evidence")
        out[section] = out.get(section, 0) + f.points
    return out


def _raw_findings(
    ctx: Context,
    probe: ProbeEvidence | None,
    deploy: DeployEvidence | None,
    evidence_for_vendor: bool,
    period: Period | None,
    cache: CacheProbeEvidence | None = None,
    clashes: list[Disagreement] | None = None,
) -> tuple[list[ScoreFinding], list[EvidenceBinding]]:
    """Return the unmerged findings of the rules, the checks, the answers that disagree and the
    evidence, with its bindings.

    Evidence that does not score gives one ``not_about`` finding instead of its own.
    """
    clashes = clashes or []
    questionnaire, answers = ctx.bank, ctx.answers
    found = evaluate_rules(ctx) + conflict_findings(ctx) + disagreement_findings(ctx, clashes)
    for check in questionnaire.checks:
        found += CHECKS[check](ctx)
    bindings: list[EvidenceBinding] = []
    age = questionnaire.scoring.evidence_max_age_days
    if probe is not None:
        binding = bind_probe(answers, probe, evidence_for_vendor, age, period)
        bindings.append(binding)
        found += probe_findings(ctx, probe) if binding.scored else [not_about(ctx, binding)]
    if deploy is not None:
        binding = bind_deploy(answers, deploy, evidence_for_vendor, age, period)
        bindings.append(binding)
        found += deploy_findings(ctx, deploy) if binding.scored else [not_about(ctx, binding)]
    if cache is not None:
        binding = bind_probe(answers, cache, evidence_for_vendor, age, period)
        bindings.append(binding)
        found += cache_probe_findings(ctx, cache) if binding.scored else [not_about(ctx, binding)]
    return found, bindings


def _controls(
    ctx: Context,
    cache: CacheProbeEvidence | None,
    bindings: list[EvidenceBinding],
    period: Period | None,
    findings: list[ScoreFinding],
) -> list[ControlInPlace]:
    """Return the controls in place (stale ones marked, judged against the answers' date and
    ``period``); a scored cache audit that found no sharing verifies the prefix-cache salting
    control. An answer scored evidence contradicts (a finding with ``contradiction``) is not in
    place, nor is a twin only implied by its mode question (the mode's answer is listed), nor
    is a mode answer the stricter twin overruled (its laxer reading is not what is scored)."""
    controls = controls_in_place(ctx.bank, ctx.answers, period.start if period else None)
    scored = any(b.kind == "cache-probe" and b.scored for b in bindings)
    if cache is not None and scored:
        controls = verified_control(ctx, cache, controls)
    contradicted = {
        q for f in findings for m in (f, *f.merged) if m.contradiction for q in m.rests_on
    }
    implied = {q for q in ctx.implied_by if not ctx.claims.get(q).known}
    set_aside = overruled(ctx.bank, ctx.claims, ctx.answers)
    return [c for c in controls if c.question not in contradicted | implied | set_aside]


def _vendor_ref(answers: AnswerSet) -> VendorRef:
    """Return the vendor and service the answers name, the answer set's vendor when unknown."""
    name = answers.value("vendor.name")
    service = answers.value("vendor.service")
    return VendorRef(
        name=name if isinstance(name, str) and name != "unknown" else answers.vendor,
        service=service if isinstance(service, str) and service != "unknown" else "",
    )


def _decisions(
    pairs: Iterable[tuple[str, str]], by_id: Mapping[str, DecisiveRule]
) -> list[Decision]:
    """Return the (rule, finding) pairs as decisions with each rule's tier."""
    return [Decision(rule=rule, finding=fid, tier=Tier(by_id[rule].tier)) for rule, fid in pairs]


def not_checked(advisories: Mapping[str, Advisory]) -> dict[str, str]:
    """Return the advisories no question covers, each with why (said, never skipped)."""
    every = advisories.values() if isinstance(advisories, Mapping) else advisories
    return {a.id: a.not_checked for a in every if a.not_checked}


def _context(
    bank: Questionnaire, answers: AnswerSet, advisories: Mapping[str, Advisory]
) -> tuple[Context, list[str], list[Disagreement]]:
    """Return what the checks read: the answers with the questions other answers rule out set
    to ``not_applicable`` and every yes/no twin read through its mode question (the answers as
    stated kept for the claims evidence can contradict), the ids ruled out, and the twins that
    disagree with their mode question."""
    stated, ruled_out = applicable_answers(bank, answers)
    implied = implied_answers(bank, stated)
    ctx = Context(bank, implied.answers, advisories, implied.sources, stated)
    return ctx, ruled_out, implied.disagreements


def _numbered(ctx: Context, found: list[ScoreFinding]) -> list[ScoreFinding]:
    """Return the findings merged by root cause, most severe first, with points, refs and
    framework controls, resting also on the mode questions behind the twins they rest on."""
    merged = sorted(merge_root_causes(_ordered(found)), key=lambda f: (-f.severity.rank, f.id))
    refs = assign_refs(["" for _ in merged])
    points = ctx.bank.scoring.points
    return [
        with_controls(with_modes(f, ctx.implied_by)).model_copy(
            update={"points": points[f.severity], "ref": ref}
        )
        for f, ref in zip(merged, refs, strict=True)
    ]


def score_answers(
    questionnaire: Questionnaire,
    answers: AnswerSet,
    advisories: Mapping[str, Advisory],
    probe: ProbeEvidence | None = None,
    deploy: DeployEvidence | None = None,
    inputs: Iterable[InputFile] = (),
    evidence_for_vendor: bool = False,
    period: Period | None = None,
    cache_probe: CacheProbeEvidence | None = None,
) -> ScoreResult:
    """Score ``answers`` against ``questionnaire``, the advisories and optional evidence.

    Returns the findings (most severe first, then by id), each with its points, the score
    (``min(cap, sum of points)``), the tier and the formula's text; beside them the evidence
    coverage, its verdict, the questions to send, the controls in place and the mitigations.
    Questions whose ``not_applicable_when`` holds are scored as ``not_applicable``. Never raises
    for valid models.
    Evidence not about the vendor (loopback host, another model or service) or stale (dated
    before the answers by more than ``scoring.evidence_max_age_days``, or outside ``period``) is
    labelled in ``evidence`` and does not score unless ``evidence_for_vendor``.
    ``cache_probe`` (a cache-isolation audit) is bound like the canary probe.
    """
    ctx, ruled_out, clashes = _context(questionnaire, answers, advisories)
    answers = ctx.answers
    found, bindings = _raw_findings(
        ctx, probe, deploy, evidence_for_vendor, period, cache_probe, clashes
    )
    findings = _numbered(ctx, found)
    score = score_of(findings, questionnaire.scoring)
    by_id = {r.id: r for r in questionnaire.scoring.decisive}
    coverage, verdict, questions = coverage_of(questionnaire, answers, ruled_out)
    decided, held = decided_by(score, findings, questionnaire.scoring)
    return ScoreResult(
        questionnaire=QuestionnaireRef(id=questionnaire.id, version=questionnaire.version),
        vendor=_vendor_ref(answers),
        answered_on=answers.date,
        score=score,
        tier=tier_of(score, findings, questionnaire.scoring),
        formula=formula_text(questionnaire.scoring),
        counts={s: sum(1 for f in findings if f.severity is s) for s in Severity},
        findings=findings,
        answers=dict(sorted(answers.answers.items())),
        inputs=list(inputs),
        points_total=total_of(findings, questionnaire.scoring),
        section_points=section_points(questionnaire, findings),
        evidence=bindings,
        decided_by=_decisions(decided, by_id),
        floors_met=_decisions(held, by_id),
        coverage=coverage,
        evidence_verdict="insufficient-evidence" if engine_unsettled(findings) else verdict,
        questions_to_send=questions,
        controls_in_place=_controls(ctx, cache_probe, bindings, period, findings),
        mitigations=rule_mitigations(ctx) + control_mitigations(ctx),
        advisories_not_checked=not_checked(advisories),
    )
