"""Gather what `assess report` combines: score the answers, scope the logs, load the evidence.

Each input is either the raw material (answers file, request logs, server startup logs), run
through the same core the other commands use, or that command's ``--json`` document (detected by
its ``kind``). Every input file is hashed; names shown in the review are relative to the working
folder, or bare file names, so no private folder ends up in ``report.json``.

How inputs are named, hashed and recognised is in :mod:`assess.report.input_files`; how each is
loaded, scored or scoped in :mod:`assess.report.loaders` (both re-exported here where other code
imported them from this module).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assess.kernel.errors import UsageError
from assess.kernel.output import ProgressCallback
from assess.report.build import ReportSources
from assess.report.cache_audit import CacheRun
from assess.report.governance import LoadedReview
from assess.report.input_files import display_path as display_path
from assess.report.input_files import document_kind as document_kind
from assess.report.input_files import input_record as input_record
from assess.report.input_files import load_view as load_view
from assess.report.loaders import (
    advertised_context,
    load_answers,
    load_deploy,
    load_scope,
    questions_of,
    score_of,
    unweighed_evidence,
)
from assess.report.loaders import affected_rows as affected_rows
from assess.report.models import ProbeView, ReportInput, ScopeView
from assess.scope.statement import PlatformStatement
from assess.vendor.scoring.evidence import CacheProbeEvidence, ProbeEvidence
from assess.vendor.scoring.evidence_file import load_cache_probe, load_probe


@dataclass(frozen=True)
class ReportRequest:
    """What the user asked for (paths as given on the command line)."""

    questionnaire: Path
    logs: Sequence[str] = ()
    incident: str | None = None
    preset: str | None = None
    #: N, V (or V / N), who served, own_overlap and the inflate ratio, as `assess scope` takes
    #: them, for --logs.
    platform: PlatformStatement = field(default_factory=PlatformStatement)
    probes: Sequence[Path] = ()
    deploy_check: Path | None = None
    deploy_logs: Sequence[str] = ()
    include_prompts: bool = False
    #: Score probe evidence even when its host or model is not the vendor's (as `assess score`).
    evidence_for_vendor: bool = False
    #: The assessment period 'YYYY-MM-DD..YYYY-MM-DD': evidence outside it is stale (default:
    #: the review file's scope.period).
    period: str | None = None
    #: The governance file (``--review``) and the earlier review (``--previous``).
    review: Path | None = None
    previous: Path | None = None
    #: Count the review file's due dates from the review date (`assess demo`: never overdue).
    due_from_review_date: bool = False
    cwd: Path = field(default_factory=Path.cwd)
    #: Called while the request logs are read (bytes done, total).
    progress: ProgressCallback | None = None


@dataclass(frozen=True)
class Gathered:
    """The loaded sources and, when logs were scoped, the rows of affected-requests.csv."""

    sources: ReportSources
    affected_rows: list[dict[str, Any]] | None


def validate_request(req: ReportRequest) -> None:
    """Check option combinations before any work is done.

    Raises:
        UsageError: for --deploy-check with --deploy-log, --incident without --logs, or
            --evidence-for-vendor with an already scored questionnaire.
    """
    if req.period is not None:
        from assess.vendor.scoring.freshness import parse_period

        parse_period(req.period)
    if req.evidence_for_vendor and document_kind(req.questionnaire) == "assess.score":
        raise UsageError(
            "--evidence-for-vendor only applies to raw answers: an `assess score --json` "
            "result was scored already",
            "Run `assess score ... --evidence-for-vendor --json FILE` and give FILE, or give "
            "the answers file to --answers.",
        )
    if req.deploy_check is not None and req.deploy_logs:
        raise UsageError(
            "--deploy-check and --deploy-log cannot be used together",
            "Give either a deploy-check JSON result or the server logs to check, not both.",
        )
    if (req.incident or req.preset or req.platform.given()) and not req.logs:
        raise UsageError(
            "--incident, --preset, the platform options (--platform-requests, "
            "--platform-tokens, --platform-mean-tokens, --served-by) and --no-own-overlap, "
            "--max-inflate-ratio only apply to --logs",
            "Add --logs FILE (request logs to scope) or drop those options.",
        )
    if req.platform.given() and _scope_document(req.logs):
        raise UsageError(
            f"{req.logs[0]}: an `assess scope --json` result was scoped already, with the "
            "options it was given: --platform-requests, --platform-tokens, "
            "--platform-mean-tokens, --served-by, --no-own-overlap and --max-inflate-ratio do "
            "not change it",
            "Give them to `assess scope` and pass its new --json, or give --logs the request "
            "logs themselves.",
        )


def _scope_document(logs: Sequence[str]) -> bool:
    """Return True when ``--logs`` names one `assess scope --json` document."""
    return len(logs) == 1 and document_kind(Path(logs[0])) == "assess.scope"


def gather(req: ReportRequest) -> Gathered:
    """Load, run and hash every input of ``req``.

    Raises:
        AssessError: any input error, naming the file (and line and field where there is one).
    """
    validate_request(req)
    inputs: list[ReportInput] = [input_record(req.questionnaire, "questionnaire", req.cwd)]
    answers = load_answers(req.questionnaire)
    probe_docs, cache_docs = _load_probes(req, inputs)
    deploy, deploy_raw = load_deploy(req, inputs, advertised_context(answers))
    review = previous = None
    if req.review is not None:
        from assess.report.governance import load_review

        review = load_review(req.review)
    period = review_period(req, review)
    probes = [evidence for _, evidence in probe_docs]
    caches = [evidence for _, evidence in cache_docs]
    score = score_of(answers, probes, deploy_raw, req.evidence_for_vendor, period, caches)
    scope: ScopeView | None = None
    preset: str | None = None
    rows: list[dict[str, Any]] | None = None
    pack: dict[str, str] | None = None
    if req.logs:
        scope, preset, rows, pack = load_scope(req, inputs)
    if req.review is not None:
        inputs.append(input_record(req.review, "review", req.cwd))
    if req.previous is not None:
        from assess.report.plan import load_previous

        previous = load_previous(req.previous)
        inputs.append(input_record(previous.path, "previous", req.cwd))
    sources = ReportSources(
        score=score,
        scope=scope,
        scope_preset=preset,
        probes=[view for view, _ in probe_docs],
        cache_probes=[view for view, _ in cache_docs],
        deploy=deploy,
        inputs=inputs,
        unweighed_evidence=unweighed_evidence(req.questionnaire, answers, inputs),
        review=review,
        review_name=display_path(req.review, req.cwd) if req.review is not None else None,
        previous=previous,
        questions=questions_of(answers, score),
        notification_pack=pack,
    )
    return Gathered(sources=sources, affected_rows=rows)


def _load_probes(
    req: ReportRequest, inputs: list[ReportInput]
) -> tuple[list[tuple[ProbeView, ProbeEvidence]], list[tuple[CacheRun, CacheProbeEvidence]]]:
    """Load each ``--probe`` file by its kind: canary probe runs and cache-isolation audits."""
    probe_docs: list[tuple[ProbeView, ProbeEvidence]] = []
    cache_docs: list[tuple[CacheRun, CacheProbeEvidence]] = []
    for path in req.probes:
        if document_kind(path) == "assess.cache-probe":
            cache, _ = load_view(path, CacheRun, "assess.cache-probe", "--probe")
            cache_docs.append((cache, load_cache_probe(path)))
        else:
            view, _ = load_view(path, ProbeView, "assess.probe", "--probe")
            probe_docs.append((view, load_probe(path)))  # the scoring's checks, names the field
        inputs.append(input_record(path, "probe", req.cwd))
    return probe_docs, cache_docs


def review_period(req: ReportRequest, review: LoadedReview | None) -> str | None:
    """Return the assessment period evidence is judged by: ``--period``, else the review file's
    ``scope.period``.

    Raises:
        UsageError: when both are given and differ (the message names both and the file).
    """
    if review is None:
        return req.period
    stated = review.review.scope.period
    from_file = f"{stated.start.isoformat()}..{stated.end.isoformat()}"
    if req.period is None:
        return from_file
    from assess.vendor.scoring.freshness import parse_period

    given = parse_period(req.period)
    if (given.start, given.end) != (stated.start, stated.end):
        raise UsageError(
            f"--period {req.period} differs from scope.period {from_file} of "
            f"{review.where('scope', 'period')}",
            "Give the same period in both, or drop --period: the review file's period is used "
            "when --period is absent.",
        )
    return req.period
