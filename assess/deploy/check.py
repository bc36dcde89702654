"""Judge a self-hosted SGLang/vLLM deployment from its nodes' startup logs (pure: no I/O).

Python entry point for other commands (report, score)::

    from assess.deploy.check import check_deployment
    from assess.advisories.catalogue import load_advisories
    from assess.deploy.serverlogs import load_nodes
    from assess.deploy.serverlogs.isolation import load_isolation_settings

    result = check_deployment(
        load_nodes(["prefill.log"], {"decode": ["decode.log.gz"]}),
        advertised_context=1_048_576,
        advisories=load_advisories(),
        isolation=load_isolation_settings(),
    )
    result.verdict, result.nodes, result.findings  # a DeployCheckResult
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from assess.advisories.models import Advisory
from assess.controls.catalogue import load_crosswalk
from assess.deploy.models import (
    DeployAbout,
    DeployCheckResult,
    IsolationSetting,
    NodeFinding,
    NodeLog,
    NodeReport,
    Role,
    Verdict,
)
from assess.deploy.rules import (
    DEPLOYMENT_RULES,
    NODE_RULES,
    Deployment,
    NodeView,
    missing_fields,
    missing_reason,
)
from assess.deploy.serverlogs.identity import union_period
from assess.kernel.common import Severity

RoleFrom = Literal["log", "--node", "default"]
_ORDER = {s: i for i, s in enumerate(reversed(list(Severity)))}


def _view(node: NodeLog) -> tuple[NodeView, RoleFrom]:
    if node.role_override is not None:
        return NodeView(node.name, node.role_override, node.parsed), "--node"
    if node.parsed.role is not None:
        return NodeView(node.name, node.parsed.role, node.parsed), "log"
    return NodeView(node.name, Role.UNKNOWN, node.parsed), "default"


def check_deployment(
    logs: Sequence[NodeLog],
    advertised_context: int | None = None,
    advisories: Mapping[str, Advisory] | Iterable[Advisory] = (),
    isolation: Sequence[IsolationSetting] = (),
    fail_on: Severity = Severity.HIGH,
    service: str = "",
    model: str = "",
) -> DeployCheckResult:
    """Return the nodes, findings and verdict of one deployment (all ``logs`` belong to it).

    ``service`` and ``model`` are what the user says the logs are from; with the models the
    logs name, the nodes and the logs' time span they make ``about``, which `assess score`
    matches against the vendor assessed.

    A node whose log lacks the pool or the context length is inconclusive. The verdict is
    ``flag`` when any finding is at or above ``fail_on``, else ``inconclusive`` when any node is,
    else ``pass``; :attr:`DeployCheckResult.failed` says whether to exit 1.
    """
    views = [_view(node) for node in logs]
    findings = _run_rules([view for view, _ in views], advertised_context, advisories, isolation)
    reports = [
        _report(node, view, role_from, findings, fail_on)
        for node, (view, role_from) in zip(logs, views, strict=True)
    ]
    if any(f.severity.at_least(fail_on) for f in findings):
        verdict = Verdict.FLAG
    elif any(r.verdict is Verdict.INCONCLUSIVE for r in reports) or not reports:
        verdict = Verdict.INCONCLUSIVE
    else:
        verdict = Verdict.PASS
    return DeployCheckResult(
        nodes=reports,
        findings=findings,
        verdict=verdict,
        fail_on=fail_on,
        advertised_context=advertised_context,
        # one file may hold several launches (nodes): list each file once
        inputs=list({n.input_file.path: n.input_file for n in logs if n.input_file}.values()),
        about=DeployAbout(
            service=service.strip(),
            model=model.strip(),
            models_seen=list(dict.fromkeys(m for r in reports for m in r.models)),
            nodes=[r.name for r in reports],
            period=union_period(r.period for r in reports),
        ),
    )


def _run_rules(
    nodes: Sequence[NodeView],
    advertised_context: int | None,
    advisories: Mapping[str, Advisory] | Iterable[Advisory],
    isolation: Sequence[IsolationSetting],
) -> list[NodeFinding]:
    """Return every node rule's findings, node by node, then the deployment rules', by severity."""
    catalogue = (
        dict(advisories) if isinstance(advisories, Mapping) else {a.id: a for a in advisories}
    )
    dep = Deployment(
        nodes=nodes,
        advertised_context=advertised_context,
        advisories=catalogue,
        isolation=isolation,
    )
    findings: list[NodeFinding] = []
    for view in dep.nodes:
        for node_rule in NODE_RULES:
            findings.extend(node_rule(view, dep))
    for dep_rule in DEPLOYMENT_RULES:
        findings.extend(dep_rule(dep))
    findings.sort(key=lambda f: _ORDER[f.severity])
    crosswalk = load_crosswalk()  # the controls each finding shows not satisfied, as score's
    return [f.model_copy(update={"controls": crosswalk.for_finding(f.id)}) for f in findings]


def _report(
    node: NodeLog,
    view: NodeView,
    role_from: RoleFrom,
    findings: Sequence[NodeFinding],
    fail_on: Severity,
) -> NodeReport:
    mine = [
        f for f in findings if f.node == node.name or (f.node is None and node.name in f.rests_on)
    ]
    missing = missing_fields(view)
    if missing:
        verdict, reason = Verdict.INCONCLUSIVE, missing_reason(view)
    elif any(f.severity.at_least(fail_on) for f in mine):
        verdict, reason = Verdict.FLAG, ""
    else:
        verdict, reason = Verdict.PASS, ""
    log = node.parsed
    return NodeReport(
        name=node.name,
        source=node.source,
        engine=log.engine,
        version=log.version,
        role=view.role,
        pool_tokens=log.pool_tokens,
        context_tokens=log.context_tokens,
        verdict=verdict,
        settings=log.settings,
        role_from=role_from,
        evidence=log.evidence,
        missing=missing,
        reason=reason,
        notes=log.notes,
        models=log.models,
        period=log.period,
        cache_settings=log.cache_settings,
        cache_settings_not_shown=log.cache_settings_not_shown,
        cache_settings_source=log.cache_settings_source,
    )
