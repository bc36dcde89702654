"""What the deploy-check rules see: a node, its deployment, and the finding they build.

:class:`NodeView` and :class:`Deployment` are the rules' inputs; ``_finding`` and ``_evidence``
build the :class:`NodeFinding` every rule returns, all with the same source and evidence level.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from packaging.version import InvalidVersion, Version

from assess.advisories.models import Advisory
from assess.deploy.models import IsolationSetting, NodeFinding, ParsedServerLog, Role
from assess.kernel.common import EvidenceLevel, Severity

SOURCE = "deploy-check"


@dataclass(frozen=True)
class NodeView:
    """A node as the rules see it: its name, effective role and what its log says."""

    name: str
    role: Role
    log: ParsedServerLog

    @property
    def complete(self) -> bool:
        """Return True when the log gave both the pool and the context length."""
        return self.log.pool_tokens is not None and self.log.context_tokens is not None

    @property
    def version(self) -> Version | None:
        """Return the engine version, or None when absent or not PEP 440."""
        try:
            return Version(self.log.version) if self.log.version else None
        except InvalidVersion:
            return None


@dataclass(frozen=True)
class Deployment:
    """All nodes of one check, plus what the rules need from outside the logs."""

    nodes: Sequence[NodeView]
    advertised_context: int | None = None
    advisories: Mapping[str, Advisory] = field(default_factory=dict)
    isolation: Sequence[IsolationSetting] = ()

    @property
    def disaggregated(self) -> bool:
        """Return True when any node is a prefill or decode node."""
        return any(node.role.disaggregated for node in self.nodes)


def _finding(
    node: str | None, fid: str, severity: Severity, title: str, detail: str, fix: str,
    rests_on: list[str], advisories: list[str] | None = None,
) -> NodeFinding:  # fmt: skip
    return NodeFinding(
        id=fid,
        severity=severity,
        title=title,
        detail=detail,
        remediation=fix,
        rests_on=rests_on,
        evidence_level=EvidenceLevel.VERIFIED,
        source=SOURCE,
        node=node,
        advisories=advisories or [],
    )


def _evidence(node: NodeView, *keys: str) -> list[str]:
    return [node.name] + [f"{k}: {node.log.evidence[k]}" for k in keys if k in node.log.evidence]
