"""Combine score, scope, probe and deploy-check results into one vendor review (pure).

:func:`build_report` takes the already-loaded documents (views of the contract JSON, see
``assess.report.models``) and returns the :class:`~assess.report.models.Report`. It never reads
files, prints or looks at the clock: the caller passes ``generated_at``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from assess import __version__
from assess.kernel.common import Severity
from assess.report.cache_audit import CacheAudits, CacheRun
from assess.report.evidence_use import (
    decision_asked,
    deploy_not_scored,
    mark_cache_runs,
    mark_findings,
    mark_runs,
    recommendation,
    top_actions,
)
from assess.report.findings import merge_findings
from assess.report.governance import Governance, LoadedReview, governance
from assess.report.models import (
    Deployment,
    DeployView,
    Exposure,
    NotAssessed,
    NotificationAppendix,
    Probes,
    ProbeView,
    Report,
    ReportFinding,
    ReportInput,
    ScopeView,
    ScoreView,
    Scoring,
    Summary,
    Tool,
    UnansweredQuestion,
    VendorProfile,
)
from assess.report.notification import notification_appendix
from assess.report.plan import Previous, build_plan
from assess.report.sections import (
    answer_rows,
    deployment_section,
    exposure_section,
    probe_run,
    vendor_profile,
)
from assess.report.text import (
    coverage_sentence,
    deployment_sentence,
    evidence_sentence,
    exposure_sentence,
    probe_sentence,
    tier_sentence,
)


@dataclass(frozen=True)
class ReportSources:
    """Everything the review combines; only the score is mandatory."""

    score: ScoreView
    scope: ScopeView | None = None
    scope_preset: str | None = None
    probes: Sequence[ProbeView] = ()
    cache_probes: Sequence[CacheRun] = ()
    deploy: DeployView | None = None
    inputs: Sequence[ReportInput] = ()
    #: Why a section is missing, when the caller knows better than "no input given".
    missing_reasons: dict[str, str] = field(default_factory=dict)
    #: Probe and deployment evidence (as shown) that a given score document was not computed
    #: with: the vendor's claims were never compared with it.
    unweighed_evidence: Sequence[str] = ()
    #: The governance file (``--review``): ids, sign-off, decision, plan owners.
    review: LoadedReview | None = None
    review_name: str | None = None
    #: The earlier review this one follows (``--previous``).
    previous: Previous | None = None
    #: The questionnaire's questions by id, in its order: (text, critical).
    questions: Mapping[str, tuple[str, bool]] = field(default_factory=dict)
    #: `assess scope --notification-pack` of the scoping run (None: logs as a scope JSON).
    notification_pack: Mapping[str, str] | None = None


def build_report(
    sources: ReportSources,
    generated_at: str,
    include_prompts: bool = False,
    affected_requests_file: str | None = None,
) -> Report:
    """Return the vendor review for ``sources``; same inputs, same report.

    ``generated_at`` is an ISO timestamp chosen by the caller (``SOURCE_DATE_EPOCH`` aware).
    Prompt and response text is replaced by a marker unless ``include_prompts``.

    Raises:
        InputError: when the review file plans an item the review does not have.
    """
    score = sources.score
    findings, probes, deployment = _evidence(sources, include_prompts)
    exposure = exposure_section(
        sources.scope, sources.scope_preset, include_prompts, affected_requests_file
    )
    vendor = vendor_profile(score)
    not_assessed = _not_assessed(sources)
    gov = governance(sources.review.review if sources.review else None, sources.review_name)
    summary = _summary(vendor, score, findings, exposure, probes, deployment, gov)
    return Report(
        tool=Tool(version=__version__),
        generated_at=generated_at,
        vendor=vendor,
        tier=score.tier,
        score=score.score,
        scoring=_scoring(score, findings),
        summary=summary,
        findings=findings,
        exposure=exposure,
        probes=probes,
        cache_probes=CacheAudits(
            assessed=bool(sources.cache_probes),
            runs=mark_cache_runs(sources.cache_probes, score.evidence),
        ),
        deployment=deployment,
        not_assessed=not_assessed,
        answers=answer_rows(score, sources.questions),
        prompts_included=include_prompts,
        inputs=sorted(sources.inputs, key=lambda i: (i.role, i.path, i.sha256)),
        governance=gov,
        remediation=build_plan(
            findings,
            exposure,
            sources.review,
            sources.previous.view if sources.previous else None,
            generated_at,
        ),
        previous=sources.previous.summary if sources.previous else None,
        unanswered=_unanswered(sources.questions, score),
        evidence_verdict=score.evidence_verdict,
        coverage=score.coverage.share if score.coverage is not None else None,
        questions_to_send=score.questions_to_send,
        controls_in_place=score.controls_in_place,
        notification=_notification(sources, include_prompts),
    )


def _notification(sources: ReportSources, include_prompts: bool) -> NotificationAppendix | None:
    """The notification appendix: the scope's pack of the same run (None without logs)."""
    scoped = sources.scope is not None
    return notification_appendix(sources.notification_pack, scoped, include_prompts)


def _evidence(
    sources: ReportSources, include_prompts: bool
) -> tuple[list[ReportFinding], Probes, Deployment]:
    """The findings, probe runs and deployment check, each marked where the scoring left its
    evidence out (:mod:`assess.report.evidence_use`)."""
    evidence = sources.score.evidence
    deploy_findings = sources.deploy.findings if sources.deploy is not None else ()
    findings = mark_findings(merge_findings(sources.score.findings, deploy_findings), evidence)
    runs = mark_runs([probe_run(p, include_prompts) for p in sources.probes], evidence)
    deployment = deployment_section(sources.deploy)
    if deployment.assessed:
        deployment = deployment.model_copy(update={"not_scored": deploy_not_scored(evidence)})
    return findings, Probes(assessed=bool(sources.probes), runs=runs), deployment


def _unanswered(
    questions: Mapping[str, tuple[str, bool]], score: ScoreView
) -> list[UnansweredQuestion]:
    """The questions of the questionnaire the vendor did not answer at all, in its order."""
    return [
        UnansweredQuestion(id=qid, question=text, critical=critical, order=n)
        for n, (qid, (text, critical)) in enumerate(questions.items(), start=1)
        if qid not in score.answers
    ]


def _scoring(score: ScoreView, findings: Sequence[ReportFinding]) -> Scoring:
    """How the score was computed: the formula, the counts, the points, what decided the tier."""
    counts = {
        s.value: sum(1 for f in findings if f.severity is s and f.counted)
        for s in reversed(Severity)
    }
    return Scoring(
        questionnaire=score.questionnaire.id,
        questionnaire_version=str(score.questionnaire.version),
        formula=score.formula,
        severity_counts=counts,
        # None: a score document written before points_total existed does not say
        points_total=score.points_total if "points_total" in score.model_fields_set else None,
        section_points=score.section_points,
        decided_by=[
            f"Finding {d.finding} matched decisive rule {d.rule}: tier {d.tier}."
            for d in score.decided_by
        ],
        floors_met=[
            f"Finding {d.finding} matched decisive rule {d.rule}, which keeps the tier at least "
            f"{d.tier}; the tier is already {score.tier}."
            for d in score.floors_met
        ],
        evidence=[evidence_sentence(e) for e in score.evidence],
    )


def _not_assessed(sources: ReportSources) -> list[NotAssessed]:
    reasons = sources.missing_reasons
    out: list[NotAssessed] = []
    if sources.scope is None:
        out.append(
            NotAssessed(
                section="exposure",
                reason=reasons.get(
                    "exposure",
                    "No request logs were given (--logs), so whether our requests were exposed "
                    "was not assessed.",
                ),
            )
        )
    if not sources.probes:
        out.append(
            NotAssessed(
                section="probes",
                reason=reasons.get(
                    "probes",
                    "No canary probe result was given (--probe), so isolation was not tested "
                    "against the live endpoint.",
                ),
            )
        )
    if sources.deploy is None:
        out.append(
            NotAssessed(
                section="deployment",
                reason=reasons.get(
                    "deployment",
                    "No deployment check or server logs were given (--deploy-check or "
                    "--deploy-log), so the vendor's KV pool and context claims were not checked "
                    "against startup logs.",
                ),
            )
        )
    if sources.unweighed_evidence:
        names = ", ".join(sources.unweighed_evidence)
        out.append(
            NotAssessed(
                section="contradictions",
                reason=f"The score given to --answers was computed without {names}, so the "
                "vendor's claims were not compared with that evidence and the score, tier and "
                "findings do not reflect it. Give the answers file to --answers instead, "
                "or re-score with `assess score ANSWERS --probe ... --deploy-check ... --json`.",
            )
        )
    return out


def _summary(
    vendor: VendorProfile,
    score: ScoreView,
    findings: list[ReportFinding],
    exposure: Exposure,
    probes: Probes,
    deployment: Deployment,
    gov: Governance,
) -> Summary:
    evidence = [probe_sentence(run) for run in probes.runs]
    if deployment.assessed:
        said = deployment_sentence([n.verdict for n in deployment.nodes], deployment.verdict)
        if deployment.not_scored:  # shown for what it is, not as the vendor's result
            said = (f"The deployment check is a {deployment.not_scored}; not scored, its "
                    f"findings not counted. {said}")  # fmt: skip
        evidence.append(said)
    contradicted = [f for f in findings if f.contradiction and f.counted]
    if contradicted:
        evidence.append(
            f"{len(contradicted)} of the vendor's claims are contradicted by technical evidence."
        )
    counted = [f for f in findings if f.counted]
    return Summary(
        tier_sentence=tier_sentence(
            vendor,
            score.tier,
            score.score,
            counted,
            insufficient=score.evidence_verdict == "insufficient-evidence",
        ),
        coverage_sentence=coverage_sentence(score),
        exposure_sentence=exposure_sentence(exposure),
        evidence_sentences=evidence,
        top_actions=top_actions(findings, vendor),
        recommendation=recommendation(
            str(score.tier), score.evidence_verdict == "insufficient-evidence"
        ),
        decision_asked=decision_asked(vendor, gov),
    )
