"""The observations, findings and risks of ``report.oscal.json`` (see :mod:`assess.report.oscal`).

An observation's method says how it was made (OSCAL's ``methods``): ``EXAMINE`` for a
questionnaire answer or a server startup log that was read, ``TEST`` for a canary probe run, a
cache-isolation audit and for the request logs scoped against the incident.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from assess.report.cache_audit import CacheRun
from assess.report.governance import ItemStatus, RemediationItem
from assess.report.models import Report, ReportFinding

Ids = Callable[..., str]
#: key ("answer:<question>", "node:<name>", "probe:<run>", "cache:<run>", "exposure") -> observation
Observations = dict[str, dict[str, Any]]
#: Namespace of assess's own properties (OSCAL wants a URI; this one names no server).
NS = "urn:assess:oscal"
_TOKEN = re.compile(r"[^\w.\-]")
#: OSCAL's risk status for each status of the remediation plan.
RISK_STATUS: dict[ItemStatus, str] = {
    "open": "open",
    "in progress": "remediating",
    "accepted": "deviation-approved",
    "done": "closed",
}


def oscal_time(text: str | None, fallback: str) -> str:
    """Return ``text`` as an OSCAL date-time (a time zone is required: a time without one is
    taken as UTC), or ``fallback`` when it is missing or not an ISO time."""
    if not text:
        return fallback
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return fallback
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).isoformat().replace("+00:00", "Z")


def one_line(value: object) -> str:
    """Return ``value`` as OSCAL's non-empty-string type wants it: one line, no whitespace at
    either end (runs of whitespace, newlines included, become one space)."""
    return " ".join(str(value).split())


def props(**values: object) -> list[dict[str, str]]:
    """assess's properties (our namespace), one line each, the empty ones left out."""
    out = []
    for name, value in values.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        text = one_line(value) if value is not None else ""
        if text:
            out.append({"name": name.replace("_", "-"), "ns": NS, "value": text})
    return out


def prop(item: dict[str, Any], name: str) -> str | None:
    return next((p["value"] for p in item.get("props", []) if p["name"] == name), None)


def token(text: str) -> str:
    """Return ``text`` as an OSCAL token (letters, digits, ``.``, ``-``, ``_``; a letter or
    ``_`` first)."""
    token = _TOKEN.sub("_", text) or "_"
    return token if token[0].isalpha() or token[0] == "_" else f"_{token}"


def evidence(resources: list[dict[str, Any]], *roles: str) -> list[dict[str, str]]:
    return [
        {"href": f"#{r['uuid']}", "description": f"{r['title']} ({prop(r, 'role')})"}
        for r in resources
        if prop(r, "role") in roles
    ]


def finding_target(report: Report, finding: ReportFinding) -> str:
    """Return the question a finding is about (the first answer it rests on), else its id."""
    answered = {a.id for a in report.answers}
    return next((q for q in finding.rests_on if q in answered), finding.id)


def plan_item(report: Report, f: ReportFinding) -> RemediationItem:
    """Return the remediation plan's row of ``f`` (open and unowned when the plan has none)."""
    found = (i for i in report.remediation if i.id == f.id and i.change != "closed")
    default = RemediationItem(
        ref=f.ref, id=f.id, kind="finding", title=f.title, severity=f.severity.value
    )
    return next(found, default)


def plan_props(item: RemediationItem) -> list[dict[str, str]]:
    """The plan's status, owner and due date of an item, as properties."""
    return props(
        plan_status=item.status,
        owner=item.owner,
        due=item.due,
        overdue=item.overdue or None,
        change=item.change or None,
    )


def observations(report: Report, ids: Ids, resources: list[dict[str, Any]]) -> Observations:
    """Return the review's observations by key, in the order they are listed."""
    answered = f"{report.vendor.answered_on}T00:00:00Z" if report.vendor.answered_on else None
    seen: Observations = {}
    for a in report.answers:
        text = f"The vendor answered {a.id}: {a.value}."
        seen[f"answer:{a.id}"] = _observation(
            ids("observation", "answer", a.id),
            f"Answer to {a.id}",
            text + (f" Note: {a.note}" if a.note else ""),
            "EXAMINE",
            props(evidence_level=a.evidence, reference=a.ref),
            evidence(resources, "questionnaire"),
            answered or report.generated_at,
        )
    for n in report.deployment.nodes:
        seen[f"node:{n.name}"] = _observation(
            ids("observation", "node", n.name),
            f"Startup log of {n.name}",
            f"Node {n.name} ({n.role}) runs {n.engine or 'an unknown engine'} "
            f"{n.version or ''}".rstrip()
            + f"; KV pool {n.pool_tokens} tokens, context {n.context_tokens} tokens; "
            f"verdict {n.verdict}." + (f" {n.reason}" if n.reason else ""),
            "EXAMINE",
            props(verdict=n.verdict, role=n.role),
            evidence(resources, "deploy-log", "deploy-check"),
            report.generated_at,
        )
    elsewhere = any(f.id.startswith("evidence-not-about-vendor.probe") for f in report.findings)
    for run in report.probes.runs:
        seen[f"probe:{run.run_id}"] = _observation(
            ids("observation", "probe", run.run_id),
            f"Canary probe run {run.run_id}",
            f"{run.probes} probes of {run.model} at {run.endpoint} ({run.mode} mode): "
            f"{run.hits} hits; leak found: {'yes' if run.leak_found else 'no'}; "
            f"complete: {'yes' if run.complete else 'no'}."
            + (
                " Not a run against the vendor's service (finding "
                "evidence-not-about-vendor.probe): shown, not scored."
                if elsewhere
                else ""
            ),
            "TEST",
            props(leak_found=run.leak_found, hits=run.hits, probes=run.probes),
            evidence(resources, "probe"),
            oscal_time(run.finished_at or run.started_at, report.generated_at),
        )
    for cache in report.cache_probes.runs:
        seen[f"cache:{cache.run_id}"] = _cache_observation(report, cache, ids, resources)
    if report.exposure.assessed:
        seen["exposure"] = _exposure(report, ids, resources)
    if report.coverage is not None:
        seen["coverage"] = _coverage(report, ids, resources)
    return seen


def _coverage(report: Report, ids: Ids, resources: list[dict[str, Any]]) -> dict[str, Any]:
    """The evidence axis (an EXAMINE of the answers): the coverage, its verdict and the questions
    still to send the vendor, weightiest first (one ``question-to-send`` property each)."""
    asked = report.questions_to_send
    listed = "; ".join(f"{q.id} ({q.priority.value}): {q.text or q.id}" for q in asked)
    return _observation(
        ids("observation", "coverage"),
        "Evidence coverage and the questions to send the vendor",
        (report.summary.coverage_sentence or f"Evidence coverage {report.coverage:.0%}.")
        + (
            f" Questions to send the vendor ({len(asked)}, weightiest first): {listed}."
            if asked
            else " No question left to send the vendor."
        ),  # fmt: skip
        "EXAMINE",
        props(
            coverage=f"{report.coverage:.3f}",
            evidence_verdict=report.evidence_verdict,
            questions_to_send=len(asked),
        )
        + [{"name": "question-to-send", "ns": NS, "value": q.id} for q in asked],
        evidence(resources, "questionnaire"),
        report.generated_at,
    )


def _cache_observation(
    report: Report, run: CacheRun, ids: Ids, resources: list[dict[str, Any]]
) -> dict[str, Any]:
    """A cache-isolation audit (a TEST): each level's medians and KS statistic, the verdict."""
    levels = "; ".join(
        f"{lv.level}: median hit {lv.median_hit_ms or 0:.1f} ms vs miss "
        f"{lv.median_miss_ms or 0:.1f} ms, D+ {lv.ks_statistic or 0:.2f}, p {lv.p_value or 1:.2g}, "
        f"{lv.state}"
        for lv in run.levels
    )
    note = "" if run.scored else f" Not scored: {run.not_scored}."
    return _observation(
        ids("observation", "cache", run.run_id),
        f"Prompt-cache isolation audit {run.run_id}",
        f"{run.requests} requests to {run.model} at {run.endpoint}; {levels}. Verdict: "
        f"{run.verdict}.{note}",
        "TEST",
        props(verdict=run.verdict, requests=run.requests),
        evidence(resources, "probe"),
        oscal_time(run.started_at, report.generated_at),
    )


def _exposure(report: Report, ids: Ids, resources: list[dict[str, Any]]) -> dict[str, Any]:
    """The scoping of the request logs against the incident (a TEST)."""
    exposure = report.exposure
    # Never "0 accounts" from logs that cannot tell accounts (a side table missing).
    accounts = (
        f"accounts not assessable: {exposure.accounts_unknown.rstrip('.')}"
        if exposure.accounts_unknown
        else f"from {len(exposure.accounts)} accounts and {exposure.unattributed} without an "
        "account"
    )
    return _observation(
        ids("observation", "exposure"),
        f"Request logs scoped against {exposure.advisory or 'the incident'}",
        f"{exposure.counts.get('records_read', 0)} records read; {exposure.received} "
        f"requests received over the trigger in the incident window, {accounts}; "
        f"{exposure.possibly_affected.get('requests', 0)} more possibly affected.",
        "TEST",
        props(advisory=exposure.advisory, affected_requests=exposure.received)
        + [
            {"name": f"{i.id}-status", "ns": NS, "value": i.status}
            for i in report.remediation
            if i.kind == "exposure" and i.change != "closed"
        ],
        evidence(resources, "logs"),
        report.generated_at,
    )


def _observation(
    uid: str,
    title: str,
    description: str,
    method: str,
    props: list[dict[str, str]],
    evidence: list[dict[str, str]],
    collected: str,
) -> dict[str, Any]:
    out: dict[str, Any] = {"uuid": uid, "title": title, "description": description}
    if props:
        out["props"] = props
    out["methods"] = [method]
    if evidence:
        out["relevant-evidence"] = evidence
    out["collected"] = collected
    return out


def related(report: Report, finding: ReportFinding, seen: Observations) -> list[str]:
    """Return the keys of the observations a finding rests on: its answers, its nodes, the
    probe runs when it rests on probe evidence, the scoped logs when it names their incident."""
    keys = [f"answer:{q}" for q in finding.rests_on]
    keys += [f"node:{n}" for n in finding.nodes]
    if "evidence:probe" in finding.rests_on or finding.id.startswith("probe"):
        keys += [k for k in seen if k.startswith("probe:")]
    if "evidence:cache-probe" in finding.rests_on:
        keys += [k for k in seen if k.startswith("cache:")]
    if report.exposure.advisory and report.exposure.advisory in finding.rests_on:
        keys.append("exposure")
    return [k for k in dict.fromkeys(keys) if k in seen]


def info_observation(
    report: Report, f: ReportFinding, ids: Ids, seen: Observations
) -> dict[str, Any]:
    """Return an informational finding as an observation: a fact recorded, no objective failed
    (an OSCAL finding's target would have to be ``not-satisfied``), no risk."""
    keys = related(report, f, seen)
    return _observation(
        ids("observation", "finding", f.id),
        f"{f.ref} {f.title}".strip(),
        (f.detail or f.title)
        + (" Rests on: " + ", ".join(seen[k]["title"] for k in keys) + "." if keys else ""),
        "EXAMINE",
        props(ref=f.ref, severity=f.severity.value, source=f.source),
        [],
        report.generated_at,
    )


def finding_risk(
    report: Report, f: ReportFinding, ids: Ids, seen: Observations
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return the OSCAL finding of ``f`` and the risk it identifies, both carrying where the
    remediation plan stands (status, owner, due date)."""
    risk_uuid = ids("risk", f.id)
    item = plan_item(report, f)
    shared = props(
        ref=f.ref,
        severity=f.severity.value,
        evidence_level=f.evidence_level.value if f.evidence_level else None,
        points=f.points,
        source=f.source,
        contradiction="true" if f.contradiction else None,
    )
    finding: dict[str, Any] = {
        "uuid": ids("finding", f.id),
        "title": f"{f.ref} {f.title}".strip(),
        "description": f.detail or f.title,
        "props": shared + plan_props(item),
        "target": {
            "type": "objective-id",
            "target-id": token(finding_target(report, f)),
            "status": {"state": "not-satisfied"},
        },
    }
    keys = related(report, f, seen)
    if keys:
        finding["related-observations"] = [{"observation-uuid": seen[k]["uuid"]} for k in keys]
    finding["related-risks"] = [{"risk-uuid": risk_uuid}]
    risk: dict[str, Any] = {
        "uuid": risk_uuid,
        "title": f.title,
        "description": f.detail or f.title,
        "statement": f"A {f.severity.value} finding of the vendor review ({f.ref}).",
        "props": shared + plan_props(item),
        "status": RISK_STATUS[item.status],
    }
    if item.due:
        risk["deadline"] = f"{item.due}T23:59:59Z"  # the end of the day it is due
    if f.remediation:
        risk["remediations"] = [_remediation(f, item, ids)]
    if keys:
        risk["related-observations"] = [{"observation-uuid": seen[k]["uuid"]} for k in keys]
    return finding, risk


def _remediation(f: ReportFinding, item: RemediationItem, ids: Ids) -> dict[str, Any]:
    """The recommended response: ``completed`` when done, ``planned`` once someone owns it or
    it is under way, else a ``recommendation``."""
    if item.status == "done":
        lifecycle = "completed"
    elif item.owner or item.due or item.status == "in progress":
        lifecycle = "planned"
    else:
        lifecycle = "recommendation"
    out: dict[str, Any] = {
        "uuid": ids("remediation", f.id),
        "lifecycle": lifecycle,
        "title": f"Remediation of {f.ref}",
        "description": f.remediation,
    }
    shown = props(owner=item.owner, due=item.due, plan_status=item.status)
    if shown:
        out["props"] = shown
    return out
