"""Plain-language sentences of the executive summary (pure, deterministic)."""

from __future__ import annotations

from collections.abc import Sequence

from assess.kernel.common import Severity
from assess.report.models import (
    EvidenceView,
    Exposure,
    ProbeRun,
    ReportFinding,
    ScoreView,
    VendorProfile,
)


def plural(count: int, word: str, many: str | None = None) -> str:
    """Return ``"1 request"`` / ``"2 requests"`` with thousands separators."""
    return f"{count:,} {word if count == 1 else (many or word + 's')}"


def coverage_sentence(score: ScoreView) -> str:
    """Say how much of the questionnaire is answered and whether that is enough to rate."""
    c = score.coverage
    if c is None or score.evidence_verdict is None:
        return ""
    share = f"{c.share:.0%} of the questionnaire's weight ({c.answered} of {c.questions} questions)"
    if score.evidence_verdict == "sufficient":
        return f"Evidence coverage: {share} is answered, enough to rate the vendor."
    asked = len(score.questions_to_send)
    return (
        f"INSUFFICIENT EVIDENCE: only {share} is answered, below {c.sufficient_at:.0%}; the tier "
        "states the risk of what is known, not a rating of the vendor. "
        f"{plural(asked, 'question')} to send the vendor are listed below, weightiest first."
    )


def tier_sentence(
    vendor: VendorProfile,
    tier: str,
    score: int,
    findings: Sequence[ReportFinding],
    insufficient: bool = False,
) -> str:
    """Say the tier, the score and the findings that drive them (from what is known, when the
    evidence is insufficient to rate the vendor)."""
    who = f"{vendor.name}, {vendor.service}," if vendor.service else vendor.name
    if insufficient:
        who = f"From what is known (insufficient evidence to rate it), {who}"
    worst = [f for f in findings if f.severity.at_least(Severity.HIGH)]
    if not findings:
        why = "no finding was raised"
    else:
        parts = [
            f"{n:,} {s.value}"
            for s in (Severity.CRITICAL, Severity.HIGH, Severity.MEDIUM)
            if (n := sum(1 for f in findings if f.severity is s))
        ]
        if parts:
            listed = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
            total = sum(1 for f in findings if f.severity.at_least(Severity.MEDIUM))
            why = f"{listed} {'finding' if total == 1 else 'findings'}"
        else:
            why = "only low or informational findings"
        if worst:
            why += f", led by: {worst[0].title.rstrip('.')}"
    end = "" if why.endswith(("?", "!")) else "."
    return f"{who} is rated {tier.upper()} risk (score {score} of 100) because of {why}{end}"


def deployment_sentence(verdicts: Sequence[str], overall: str | None) -> str:
    """Say what the deployment check found, node by node."""
    counts = {v: sum(1 for x in verdicts if x == v) for v in ("flag", "inconclusive", "pass")}
    found = ", ".join(
        f"{n} {word}"
        for word, n in (
            ("flagged", counts["flag"]),
            ("inconclusive", counts["inconclusive"]),
            ("passed", counts["pass"]),
        )
        if n
    )
    return (
        f"The deployment check read the startup logs of {plural(len(verdicts), 'node')}: "
        f"{found or 'none readable'} (overall verdict: {(overall or 'none').upper()})."
    )


def exposure_sentence(exposure: Exposure) -> str:
    """Say how many of our requests may have received or disclosed foreign data."""
    if not exposure.assessed:
        return "Our own exposure was not assessed: no request logs were given."
    counts = exposure.counts
    advisory = f" for {exposure.advisory}" if exposure.advisory else ""
    if exposure.verdict == "not_assessable":
        return (
            f"Not assessable from these logs{advisory}: "
            + "; ".join(exposure.not_assessable or ["the scope found no evidence either way"])
            + ". They back no statement that we were not exposed."
        )
    in_window = counts.get("in_window", 0)
    if exposure.received == 0 and in_window == 0:
        received = (
            f"Not assessable from these logs: none of our requests was in the incident "
            f"window{advisory} for the model, so they say nothing about whether we were exposed"
        )
    elif exposure.received == 0:
        received = (
            f"None of our {plural(in_window, 'request')} in the incident window{advisory} "
            "crossed the trigger, so no response of ours is expected to carry other tenants' data"
        )
    else:
        received = (
            f"{plural(exposure.received, 'request')} of ours in the incident window{advisory} "
            f"crossed the trigger: their responses may carry other tenants' data "
            + (
                f"(accounts not assessable from these logs: {exposure.accounts_unknown})"
                if exposure.accounts_unknown
                else f"({plural(len(exposure.accounts), 'account')}"
                + (f", {exposure.unattributed:,} with no account" if exposure.unattributed else "")
                + ")"
            )
        )
    unknown = counts.get("unknown_tokens", 0)
    tail = (
        f"; {plural(unknown, 'more request')} had no token count and are listed as possibly "
        "affected"
        if unknown
        else ""
    )
    disclosed = exposure.disclosed.get("requests", exposure.disclosed.get("count"))
    shared = (
        f". {plural(int(disclosed), 'request')} sat in the shared pool and may have disclosed "
        "our prompts to others"
        if isinstance(disclosed, int) and disclosed
        else ""
    )
    return f"{received}{tail}{shared}."


def probe_sentence(run: ProbeRun) -> str:
    """Say what one canary probe run found, as a bound when it found nothing."""
    mode = f"{run.mode} mode, " if run.mode else ""
    base = (
        f"The canary probe of {run.model or 'the endpoint'} ({mode}{plural(run.probes, 'probe')})"
    )
    if not run.scored:
        return (
            f"{base} is a {run.not_scored or 'run the scoring left out'}: what it found says "
            "nothing about this vendor's service and is not scored (see the method section)."
        )
    if run.leak_found or run.hits:
        return f"{base} found a leak: {plural(run.hits, 'hit')} of planted markers."
    bound = (
        f"; the leak rate is at most {run.leak_rate_upper_95:.2%} (95% upper bound)"
        if run.leak_rate_upper_95 is not None
        else ""
    )
    incomplete = "" if run.complete else " The run was incomplete."
    return f"{base} found no leak{bound}. A clean canary does not prove isolation.{incomplete}"


def evidence_sentence(item: EvidenceView) -> str:
    """Return one evidence item's binding in words: what it is, about this vendor or not and
    why, current or stale, scored or not."""
    what = {"probe": "Probe", "deploy-check": "Deployment check"}.get(item.kind, item.kind)
    where = item.endpoint or ", ".join(item.nodes)
    facts = [f for f in (where, f"model {', '.join(item.models)}" if item.models else "") if f]
    if item.dates:
        facts.append(f"dated {item.dates}")
    about = "about this vendor" if item.about_vendor else "not about this vendor"
    when = (
        item.freshness
        if item.freshness == "current"
        else (f"{item.freshness}: {item.freshness_reason}")
    )
    scored = "scored" if item.scored else "not scored"
    head = f"{what} ({'; '.join(facts)})" if facts else what
    return f"{head}: {about} ({item.reason}); {when}; {scored}."
