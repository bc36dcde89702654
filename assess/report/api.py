"""Python API of the report feature: the vendor review.

``from assess import build_report`` returns the model of ``report.json``; :func:`review` also
hands back the rows of ``affected-requests.csv``, and the CLI writes both (html, pdf, json,
manifest) with :func:`assess.report.files.write_review`. Nothing here prints or exits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from assess.report.files import AFFECTED_CSV
from assess.report.inputs import ReportRequest
from assess.report.models import Report
from assess.scope.statement import PlatformStatement


@dataclass(frozen=True)
class Review:
    """The review and, when logs were scoped, the rows of affected-requests.csv."""

    report: Report
    affected_rows: list[dict[str, Any]] | None
    #: `assess scope --notification-pack` of the scoping run (file name -> text), or None.
    notification_pack: dict[str, str] | None = None


def review(req: ReportRequest, generated_at: str | None = None) -> Review:
    """Gather the inputs of ``req`` and build the review (``generated_at``: ISO timestamp,
    default ``SOURCE_DATE_EPOCH`` or now)."""
    from assess.report.build import build_report as build
    from assess.report.files import generation_time
    from assess.report.inputs import gather

    gathered = gather(req)
    when = generated_at or generation_time()
    sources = gathered.sources
    if req.due_from_review_date and sources.review is not None:
        from assess.report.plan import due_from_review_date

        sources = replace(sources, review=due_from_review_date(sources.review, when))
    report = build(
        sources,
        generated_at=when,
        include_prompts=req.include_prompts,
        affected_requests_file=AFFECTED_CSV if gathered.affected_rows is not None else None,
    )
    pack = gathered.sources.notification_pack
    return Review(
        report=report,
        affected_rows=gathered.affected_rows,
        notification_pack=dict(pack) if pack is not None else None,
    )


_review = review  # build_report's parameter ``review`` shadows the function inside it


def build_report(
    questionnaire: str | Path,
    *,
    logs: Sequence[str | Path] = (),
    incident: str | None = None,
    preset: str | None = None,
    probes: Sequence[str | Path] = (),
    deploy_check: str | Path | None = None,
    deploy_logs: Sequence[str | Path] = (),
    include_prompts: bool = False,
    generated_at: str | None = None,
    evidence_for_vendor: bool = False,
    period: str | None = None,
    review: str | Path | None = None,
    previous: str | Path | None = None,
    platform_requests: int | None = None,
    platform_tokens: int | None = None,
    platform_mean_tokens: int | None = None,
    served_by: str | None = None,
) -> Report:
    """Build the vendor review: the model of `assess report`'s ``report.json``.

    Each input is raw material (answers, request logs, server startup logs) or the matching
    command's ``--json`` document; only ``questionnaire`` is required, and a missing input makes
    the review say what was not assessed. ``logs`` are scoped against ``incident`` (default:
    glm-5.3-kv-leak, as `assess scope`) unless they are one `assess scope --json` document.
    Prompt and response text is redacted unless
    ``include_prompts``. Probe evidence whose host or model is not the vendor's is not scored
    unless ``evidence_for_vendor`` (raw answers only); nor is stale evidence (outside
    ``period`` 'YYYY-MM-DD..YYYY-MM-DD', or too old for the answers' date).
    ``review`` is the governance file
    (``review.yaml``: ids, sign-off, decision, plan owners; without it the review is a draft);
    ``previous`` an earlier review's folder or report.json, so the plan shows what moved.
    ``platform_requests`` (N), ``platform_tokens`` (V), ``platform_mean_tokens`` (V / N) and
    ``served_by`` are `assess scope`'s options of those names, for raw ``logs``.

    Raises:
        UsageError: ``deploy_check`` with ``deploy_logs``; ``logs`` without ``incident``;
            ``evidence_for_vendor`` with an `assess score --json` document.
        InputError: a missing or invalid input (the review file: one line per bad field).
    """
    req = ReportRequest(
        questionnaire=Path(questionnaire),
        logs=[str(p) for p in logs],
        incident=incident,
        preset=preset,
        platform=PlatformStatement(
            platform_requests, platform_tokens, platform_mean_tokens, served_by
        ),
        probes=[Path(p) for p in probes],
        deploy_check=Path(deploy_check) if deploy_check is not None else None,
        deploy_logs=[str(p) for p in deploy_logs],
        include_prompts=include_prompts,
        evidence_for_vendor=evidence_for_vendor,
        period=period,
        review=Path(review) if review is not None else None,
        previous=Path(previous) if previous is not None else None,
    )
    return _review(req, generated_at).report
