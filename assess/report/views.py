"""Views of the documents other commands hand over to `assess report`: ``assess.score``,
``assess.scope``, ``assess.probe``, ``assess.deploy-check`` (keys fixed in docs/CONTRACTS.md).

They read only the contract keys and ignore the rest, so a producer may add keys without
breaking the report. (:mod:`assess.report.models` re-exports them under their old names.)
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from assess.kernel.common import EvidenceLevel, Severity
from assess.kernel.model import View
from assess.vendor.scoring.evidence import DeployNode, ProbeStats

Tier = Literal["low", "medium", "high", "critical"]


_View = View  # a tolerant view of another command's document (assess/kernel/model.py)


class ControlView(_View):
    """A framework control a finding maps to (``controls[]``, docs/controls.md)."""

    framework: str
    version: str = ""
    id: str
    title: str = ""


class FindingView(_View):
    """A finding as `score` or `deploy-check` emit it (Finding plus contradiction / node)."""

    id: str
    severity: Severity
    title: str
    detail: str = ""
    remediation: str = ""
    rests_on: list[str] = Field(default_factory=list)
    evidence_level: EvidenceLevel | None = None
    source: str = ""
    contradiction: bool = False
    node: str | None = None
    points: int | None = None
    ref: str = ""
    controls: list[ControlView] = Field(default_factory=list)


class AnswerView(_View):
    """One answer of the questionnaire: value, evidence level, note, reference."""

    value: Any = None
    evidence: EvidenceLevel | None = None
    note: str | None = None
    ref: str | None = None


class NamedVersion(_View):
    """``{id, version}`` of a questionnaire."""

    id: str = ""
    version: str | int = ""


class VendorName(_View):
    """``{name, service}`` of a vendor."""

    name: str = ""
    service: str = ""


class DecisionView(_View):
    """One ``decided_by`` entry of ``assess.score``: a decisive rule that set the tier."""

    rule: str
    finding: str
    tier: Tier


class EvidenceView(_View):
    """One ``evidence[]`` entry of ``assess.score``: what an evidence item is about."""

    kind: str = ""
    endpoint: str = ""
    model: str = ""
    about_vendor: bool = True
    reason: str = ""
    scored: bool = True
    models: list[str] = Field(default_factory=list)
    nodes: list[str] = Field(default_factory=list)
    dates: str = ""
    freshness: str = "undated"
    freshness_reason: str = ""


class CoverageView(_View):
    """``coverage`` of ``assess.score``: the evidence axis (documents before it have none)."""

    share: float = 0.0
    sufficient_at: float = 0.0
    questions: int = 0
    answered: int = 0


class AskView(_View):
    """One ``questions_to_send`` entry of ``assess.score``."""

    id: str
    text: str = ""
    priority: Severity = Severity.LOW
    weight: int = 0
    reason: str = "unknown"


class InPlaceView(_View):
    """One ``controls_in_place`` entry of ``assess.score``."""

    question: str
    text: str = ""
    value: Any = None
    evidence: EvidenceLevel | None = None
    ref: str = ""
    only_for: list[str] = Field(default_factory=list)
    not_for: list[str] = Field(default_factory=list)
    date: str | None = None
    stale: bool = False


class ScoreView(_View):
    """The ``assess.score`` document."""

    kind: str = "assess.score"
    questionnaire: NamedVersion = NamedVersion()
    vendor: VendorName = VendorName()
    answered_on: str | None = None
    score: int = Field(ge=0, le=100)
    tier: Tier
    formula: str = ""
    findings: list[FindingView] = Field(default_factory=list)
    answers: dict[str, AnswerView] = Field(default_factory=dict)
    points_total: int | None = None
    section_points: dict[str, int] = Field(default_factory=dict)
    decided_by: list[DecisionView] = Field(default_factory=list)
    floors_met: list[DecisionView] = Field(default_factory=list)
    evidence: list[EvidenceView] = Field(default_factory=list)
    coverage: CoverageView | None = None
    evidence_verdict: str | None = None
    questions_to_send: list[AskView] = Field(default_factory=list)
    controls_in_place: list[InPlaceView] = Field(default_factory=list)


class AccountCount(_View):
    """Requests of one account."""

    account_id: str | None = None
    requests: int = 0


class AffectedView(_View):
    """The ``affected`` object of ``assess.scope``."""

    requests: int | None = None
    accounts: list[AccountCount] = Field(default_factory=list)
    unattributed: int = 0
    sessions: int | list[Any] = 0
    request_ids: list[str] = Field(default_factory=list)


class DayCount(_View):
    """Requests on one UTC day."""

    date: str
    requests: int = 0


class SkippedView(_View):
    """A skipped line or row."""

    file: str = ""
    line: int | None = None
    reason: str = ""


class ScopeView(_View):
    """The ``assess.scope`` document."""

    kind: str = "assess.scope"
    counts: dict[str, int]
    affected: AffectedView = AffectedView()
    per_day: list[DayCount] = Field(default_factory=list)
    status: dict[str, int] = Field(default_factory=dict)
    possibly_affected: dict[str, Any] = Field(default_factory=dict)
    disclosed: dict[str, Any] = Field(default_factory=dict)
    candidate_foreign_data: dict[str, Any] = Field(default_factory=dict)
    skipped: list[SkippedView] = Field(default_factory=list)
    filter: dict[str, Any] = Field(default_factory=dict)
    verdict: str | None = None  # documents of earlier versions have none
    assessment: dict[str, Any] = Field(default_factory=dict)
    accounts_assessment: dict[str, Any] = Field(default_factory=dict)  # scope's, when it has one


#: The ``stats`` object of ``assess.probe``: the same contract view `assess score` reads.
ProbeStatsView = ProbeStats


class ProbeView(_View):
    """The ``assess.probe`` document."""

    kind: str = "assess.probe"
    run_id: str = ""
    endpoint: str = ""
    model: str = ""
    started_at: str | None = None
    finished_at: str | None = None
    complete: bool = True
    leak_found: bool = False
    mode: str = "standard"
    requests: list[dict[str, Any]] = Field(default_factory=list)
    hits: list[dict[str, Any]] = Field(default_factory=list)
    errors: list[Any] = Field(default_factory=list)
    stats: ProbeStatsView = ProbeStatsView()


class NodeView(DeployNode):
    """One node of ``assess.deploy-check``: the view `assess score` reads, plus what the review
    shows (settings, the reason a node is inconclusive)."""

    verdict: Literal["pass", "flag", "inconclusive"] = "inconclusive"
    settings: dict[str, Any] = Field(default_factory=dict)
    reason: str = ""


class DeployView(_View):
    """The ``assess.deploy-check`` document."""

    kind: str = "assess.deploy-check"
    nodes: list[NodeView] = Field(default_factory=list)
    findings: list[FindingView] = Field(default_factory=list)
    verdict: Literal["pass", "flag", "inconclusive"] = "inconclusive"
