"""Evidence shown for what it is: what the scoring left out is never the vendor's result.

The scoring binds each piece of evidence to the vendor and to the period (``assess.score``
``evidence[]``): a probe of the local lab is not about this vendor, a startup log from before the
answers is stale, and neither is scored. The review still shows them, labelled where they appear
("lab simulation, not this vendor"), and their findings are listed but not counted: not in "N
critical", not in the tier sentence, not among the top actions. A top action the vendor's answers
already meet (an upgrade to a version it runs) is left out too. Page 1 says what the review
recommends and what the committee is asked to decide.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

from packaging.version import InvalidVersion, Version

from assess.report.cache_audit import CacheRun
from assess.report.governance import Governance
from assess.report.models import ProbeRun, ReportFinding, VendorProfile
from assess.report.views import EvidenceView

#: The source of the deployment check's own findings (merge_findings).
DEPLOY_SOURCE = "deploy-check"
_UPGRADE = re.compile(r"^Upgrade (\S+) to v?([0-9][\w.+-]*) or later", re.IGNORECASE)


def label(item: EvidenceView) -> str:
    """Return why an unscored evidence item is not the vendor's result, in a few words."""
    if not item.about_vendor:
        if "lab" in item.reason or "simulation" in item.reason or "loopback" in item.reason:
            return "lab simulation, not this vendor"
        return "run of another service, not this vendor"
    return "stale run, not of the period assessed"


_Run = TypeVar("_Run", ProbeRun, CacheRun)


def _mark(runs: Sequence[_Run], evidence: Sequence[EvidenceView], kind: str) -> list[_Run]:
    """Return ``runs`` with ``scored`` false and a label where the scoring left the ``kind``
    evidence out (matched by endpoint, else the one item of that kind)."""
    items = [e for e in evidence if e.kind == kind]
    out = []
    for run in runs:
        item = next((e for e in items if e.endpoint and e.endpoint == run.endpoint), None)
        item = item or (items[0] if len(items) == 1 else None)
        if item is not None and not item.scored:
            run = run.model_copy(update={"scored": False, "not_scored": label(item)})
        out.append(run)
    return out


def mark_runs(runs: Sequence[ProbeRun], evidence: Sequence[EvidenceView]) -> list[ProbeRun]:
    """Return the canary probe runs marked where the scoring left the probe evidence out."""
    return _mark(runs, evidence, "probe")


def mark_cache_runs(runs: Sequence[CacheRun], evidence: Sequence[EvidenceView]) -> list[CacheRun]:
    """Return the cache audits marked where the scoring left them out (not this vendor, stale)."""
    return _mark(runs, evidence, "cache-probe")


def deploy_not_scored(evidence: Sequence[EvidenceView]) -> str:
    """Return why the scoring left the deployment evidence out ('' when it scored it)."""
    deploy = [e for e in evidence if e.kind == "deploy-check"]
    return label(deploy[0]) if deploy and not any(e.scored for e in deploy) else ""


def mark_findings(
    findings: Sequence[ReportFinding], evidence: Sequence[EvidenceView]
) -> list[ReportFinding]:
    """Return the findings with ``counted`` false for the deployment check's own findings when
    the scoring left the deployment evidence out."""
    why = deploy_not_scored(evidence)
    if not why:
        return list(findings)
    return [
        f.model_copy(update={"counted": False, "not_counted": why})
        if f.source == DEPLOY_SOURCE
        else f
        for f in findings
    ]


def met_by_answers(action: str, vendor: VendorProfile) -> bool:
    """True when ``action`` asks for an upgrade the vendor's answers say is done (it runs that
    version or a later one)."""
    match = _UPGRADE.match(action)
    if match is None or match.group(1).lower() != vendor.engine.lower():
        return False
    try:
        return Version(vendor.engine_version) >= Version(match.group(2))
    except InvalidVersion:
        return False


def top_actions(findings: Sequence[ReportFinding], vendor: VendorProfile) -> list[str]:
    """Return up to three remediations of counted findings, worst first, none the answers meet."""
    actions: list[str] = []
    for finding in findings:
        action = finding.remediation
        if not finding.counted or not action or action in actions:
            continue
        if not met_by_answers(action, vendor):
            actions.append(action)
        if len(actions) == 3:
            break
    return actions


_RECOMMEND = {
    "critical": "Do not approve: reject, or suspend use until the critical findings are fixed "
    "and the fix is verified.",
    "high": "Do not approve as is: approve only with conditions (the high findings fixed by a "
    "set date, verified), or reject.",
    "medium": "Approve with conditions: the medium findings tracked in the remediation plan "
    "with owners and dates.",
    "low": "Approve: no finding stands in the way; track the low findings.",
}


def recommendation(tier: str, insufficient: bool = False) -> str:
    """Return what the review recommends for ``tier`` (a low tier on too little evidence is no
    reason to approve)."""
    if insufficient and tier in ("low", "medium"):
        return ("Do not approve yet: too few questions are answered with evidence to rate the "
                "vendor; ask for the missing answers and evidence, then re-assess.")  # fmt: skip
    return _RECOMMEND.get(tier, _RECOMMEND["high"])


def decision_asked(vendor: VendorProfile, gov: Governance) -> str:
    """Return the decision asked of the committee (and the one recorded, if any)."""
    what = f"{vendor.name}" + (f" ({vendor.service})" if vendor.service else "")
    asked = f"approve, approve with conditions, or reject the use of {what}" + (
        " for the scope below." if gov.scope_statement else "."
    )
    return asked + (f" Recorded: {gov.status_text}." if gov.decision else "")
