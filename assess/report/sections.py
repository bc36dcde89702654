"""The sections of the review, built from the contract documents (pure, deterministic).

Values that came from logs and probes are cleaned on the way in: prompt and response text is
redacted unless asked for, and file paths are reduced to file names so no private folder ends up
in ``report.json``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any

from assess.report.models import (
    AccountRow,
    AnswerRow,
    DayRow,
    Deployment,
    DeploymentNode,
    DeployView,
    Exposure,
    PoolBar,
    ProbeRun,
    ProbeView,
    ScopeView,
    ScoreView,
    SkippedRow,
    VendorProfile,
)

#: Keys whose values are prompt or response text from logs or probes: redacted by default.
PROMPT_KEYS = frozenset(
    {
        "prompt",
        "response",
        "prompt_text",
        "response_text",
        "messages",
        "content",
        "text",
        "excerpt",
        "snippet",
        "context",
        "reasoning",
        "arguments",
    }
)
#: The fields of a probe hit the review shows, in this order.
HIT_FIELDS = (
    "request_id",
    "account",
    "role",
    "marker_id",
    "planted_by",
    "match",
    "location",
    "chars",
    "text",
)
REDACTED = "[redacted: run with --include-prompts to show]"
#: How many skipped lines the review lists (the count is always complete).
SKIPPED_SHOWN = 20
#: The longest window whose empty days are filled in the per-day chart.
MAX_FILLED_DAYS = 62


def vendor_profile(score: ScoreView) -> VendorProfile:
    """Return who and what was assessed, from the questionnaire answers."""
    answers = score.answers

    def text(key: str) -> str:
        answer = answers.get(key)
        if answer is None or answer.value in (None, ""):
            return "unknown"
        value = answer.value
        return ", ".join(map(str, value)) if isinstance(value, list) else str(value)

    advertised = (
        _as_int(answers["deployment.advertised_context_tokens"].value)
        if ("deployment.advertised_context_tokens" in answers)
        else None
    )
    pools: list[PoolBar] = []
    raw_pools = (
        answers["deployment.kv_pool_tokens"].value
        if ("deployment.kv_pool_tokens" in answers)
        else None
    )
    pool_items = raw_pools.items() if isinstance(raw_pools, dict) else [("aggregated", raw_pools)]
    for role, value in pool_items:
        tokens = _as_int(value)
        if tokens is None:
            continue
        share = max(0.0, 1 - tokens / advertised) if advertised else 0.0
        pools.append(PoolBar(role=str(role), pool_tokens=tokens, unbacked_share=round(share, 4)))
    models = answers.get("vendor.models")
    model_list = models.value if models is not None and isinstance(models.value, list) else []
    return VendorProfile(
        name=score.vendor.name or text("vendor.name"),
        service=score.vendor.service
        or (text("vendor.service") if "vendor.service" in answers else ""),
        models=[str(m) for m in model_list],
        engine=text("engine.name"),
        engine_version=text("engine.version"),
        deployment_mode=text("deployment.mode"),
        transfer_backend=text("deployment.transfer_backend"),
        tenancy=text("tenancy.model"),
        advertised_context_tokens=advertised,
        pools=pools,
        answered_on=score.answered_on,
    )


def answer_rows(
    score: ScoreView, questions: Mapping[str, tuple[str, bool]] | None = None
) -> list[AnswerRow]:
    """Return the vendor's answers in the questionnaire's order (ids it does not know after,
    by id), values as text, with the question's text when the questionnaire is known."""
    questions = questions or {}
    order = {qid: n for n, qid in enumerate(questions, start=1)}
    rows = []
    for qid, answer in sorted(
        score.answers.items(), key=lambda kv: (order.get(kv[0], 1 << 30), kv[0])
    ):
        text = value_text(answer.value)
        rows.append(
            AnswerRow(
                id=qid,
                value=text,
                evidence=answer.evidence,
                note=answer.note or "",
                ref=answer.ref or "",
                question=questions[qid][0] if qid in questions else "",
                critical=questions[qid][1] if qid in questions else False,
                order=order.get(qid, 0),
            )
        )
    return rows


def value_text(value: Any) -> str:
    """Return an answer's value as the review shows it (per-role numbers as ``role: n``)."""
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_fmt_value(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(map(_fmt_value, value))
    return _fmt_value(value)


def _fmt_value(value: Any) -> str:
    if value is None:
        return "unknown"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def redact(value: Any, include_prompts: bool) -> Any:
    """Return ``value`` with prompt/response text (keys in :data:`PROMPT_KEYS`) replaced."""
    if include_prompts:
        return value
    if isinstance(value, dict):
        return {
            k: (REDACTED if k in PROMPT_KEYS and v not in (None, "") else redact(v, False))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [redact(v, False) for v in value]
    return value


def file_name(path: str) -> str:
    """Return the last component of ``path`` (so no absolute folder leaks into the review)."""
    return path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.replace(",", "").replace("_", "").isdigit():
        return int(value.replace(",", "").replace("_", ""))
    return None


def _scrub_paths(value: Any) -> Any:
    """Replace file paths (keys named file/path/source) by their file name."""
    if isinstance(value, dict):
        return {
            k: (
                file_name(v)
                if k in {"file", "path", "source"} and isinstance(v, str)
                else _scrub_paths(v)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_scrub_paths(v) for v in value]
    return value


def exposure_section(
    scope: ScopeView | None,
    preset: str | None,
    include_prompts: bool,
    affected_requests_file: str | None,
) -> Exposure:
    """Return the exposure section (``assessed`` false without a scope document)."""
    if scope is None:
        return Exposure(assessed=False)
    affected = scope.affected
    sessions = affected.sessions if isinstance(affected.sessions, int) else len(affected.sessions)
    accounts = sorted(
        (
            AccountRow(account_id=a.account_id or "(none)", requests=a.requests)
            for a in affected.accounts
        ),
        key=lambda a: (-a.requests, a.account_id),
    )
    filt = _scrub_paths(scope.filter)
    return Exposure(
        assessed=True,
        advisory=str(filt.get("advisory") or filt.get("advisory_id") or "") or None,
        preset=preset,
        counts=dict(scope.counts),
        received=(
            affected.requests
            if affected.requests is not None
            else scope.counts.get("over_threshold", len(affected.request_ids))
        ),
        accounts=accounts,
        unattributed=affected.unattributed,
        sessions=sessions,
        per_day=fill_days(scope.per_day, filt),
        status=dict(sorted(scope.status.items())),
        possibly_affected=_scrub_paths(redact(scope.possibly_affected, include_prompts)),
        disclosed=_scrub_paths(redact(scope.disclosed, include_prompts)),
        candidate_foreign_data=_scrub_paths(redact(scope.candidate_foreign_data, include_prompts)),
        skipped=[
            SkippedRow(file=file_name(s.file), line=s.line, reason=s.reason)
            for s in scope.skipped[:SKIPPED_SHOWN]
        ],
        skipped_total=scope.counts.get("records_skipped", len(scope.skipped)),
        filter=filt,
        affected_requests_file=affected_requests_file,
        verdict=scope.verdict,
        not_assessable=[_scrub_reason(r) for r in scope.assessment.get("reasons", [])],
        accounts_assessment=dict(scope.accounts_assessment),
    )


def _scrub_reason(reason: Any) -> str:
    """A scope reason whose leading file path (``/a/b/log.ndjson: ...``) is cut to its name."""
    head, sep, tail = str(reason).partition(": ")
    if sep and ("/" in head or "\\" in head) and " " not in head:
        return f"{file_name(head)}{sep}{tail}"
    return str(reason)


def fill_days(per_day: Sequence[Any], filt: dict[str, Any]) -> list[DayRow]:
    """Return one row per UTC day from the window start to its end (or the data's span)."""
    counts = {str(d.date)[:10]: d.requests for d in per_day}
    bounds = [_day(filt.get("since")), _day(filt.get("until"))]
    known = sorted(counts)
    first = bounds[0] or (_day(known[0]) if known else None)
    last = bounds[1] or (_day(known[-1]) if known else None)
    if first is None or last is None or not 0 <= (last - first).days <= MAX_FILLED_DAYS:
        return [DayRow(date=d, requests=counts[d]) for d in known]
    days = [first + timedelta(days=i) for i in range((last - first).days + 1)]
    extra = [d for d in known if not first.isoformat() <= d <= last.isoformat()]
    rows = {d.isoformat(): counts.get(d.isoformat(), 0) for d in days}
    rows.update({d: counts[d] for d in extra})
    return [DayRow(date=d, requests=n) for d, n in sorted(rows.items())]


def _day(value: Any) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def probe_run(view: ProbeView, include_prompts: bool) -> ProbeRun:
    """Return one probe run; the matched text of hits only with ``include_prompts``."""
    return ProbeRun(
        run_id=view.run_id,
        endpoint=view.endpoint,
        model=view.model,
        mode=view.mode,
        started_at=view.started_at,
        finished_at=view.finished_at,
        complete=view.complete,
        leak_found=view.leak_found,
        requests=len(view.requests),
        probes=view.stats.probes,
        hits=view.stats.hits,
        leak_rate_upper_95=view.stats.leak_rate_upper_95,
        method=view.stats.method,
        errors=len(view.errors),
        hit_details=[
            {k: hit[k] for k in HIT_FIELDS if k in hit and (include_prompts or k != "text")}
            for hit in view.hits
        ],
    )


def deployment_section(view: DeployView | None) -> Deployment:
    """Return the deployment check section (``assessed`` false without a result)."""
    if view is None:
        return Deployment(assessed=False)
    nodes = [
        DeploymentNode(
            name=n.name or file_name(n.source),
            engine=n.engine,
            version=n.version,
            role=n.role,
            pool_tokens=n.pool_tokens,
            context_tokens=n.context_tokens,
            verdict=n.verdict,
            settings=_scrub_paths(dict(sorted(n.settings.items()))),
            reason=n.reason,
        )
        for n in view.nodes
    ]
    return Deployment(assessed=True, verdict=view.verdict, nodes=nodes)
