"""The vendor review (``report.json``, kind ``assess.report``) and the evidence manifest:
strict, frozen, versioned.

The views of the other commands' documents live in :mod:`assess.report.views`; they are
re-exported here under their old names.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from assess.kernel.common import EvidenceLevel, Severity
from assess.kernel.model import Model
from assess.report.cache_audit import CacheAudits
from assess.report.governance import Governance, PreviousReview, RemediationItem
from assess.report.views import AccountCount as AccountCount
from assess.report.views import AffectedView as AffectedView
from assess.report.views import AnswerView as AnswerView
from assess.report.views import AskView as AskView
from assess.report.views import ControlView as ControlView
from assess.report.views import DayCount as DayCount
from assess.report.views import DecisionView as DecisionView
from assess.report.views import DeployView as DeployView
from assess.report.views import EvidenceView as EvidenceView
from assess.report.views import FindingView as FindingView
from assess.report.views import InPlaceView as InPlaceView
from assess.report.views import NamedVersion as NamedVersion
from assess.report.views import NodeView as NodeView
from assess.report.views import ProbeStatsView as ProbeStatsView
from assess.report.views import ProbeView as ProbeView
from assess.report.views import ScopeView as ScopeView
from assess.report.views import ScoreView as ScoreView
from assess.report.views import SkippedView as SkippedView
from assess.report.views import Tier as Tier
from assess.report.views import VendorName as VendorName

REPORT_SCHEMA_VERSION = 1
MANIFEST_SCHEMA_VERSION = 1

InputRole = Literal[
    "questionnaire", "logs", "probe", "deploy-check", "deploy-log", "review", "previous"
]


class Tool(Model):
    """The program that wrote a document."""

    name: str = "assess"
    version: str


class ReportInput(Model):
    """One input as evidence: what it was used for, its name, size and SHA-256."""

    role: InputRole
    path: str = Field(description="Relative to the working folder, or the bare file name")
    bytes: int
    sha256: str
    engine: str | None = Field(
        default=None, description="A scope result an engine computed: the query's dialect"
    )
    query_sha256: str | None = Field(default=None, description="SHA-256 of that query")


class PoolBar(Model):
    """KV pool tokens of one role against the advertised context."""

    role: str
    pool_tokens: int
    unbacked_share: float = Field(description="Share of the advertised window with no memory")


class VendorProfile(Model):
    """Who and what was assessed, from the questionnaire answers."""

    name: str
    service: str = ""
    models: list[str] = Field(default_factory=list)
    engine: str = "unknown"
    engine_version: str = "unknown"
    deployment_mode: str = "unknown"
    transfer_backend: str = "unknown"
    tenancy: str = "unknown"
    advertised_context_tokens: int | None = None
    pools: list[PoolBar] = Field(default_factory=list)
    answered_on: str | None = None


class ReportFinding(Model):
    """A finding in the review (from the score or the deployment check), deduplicated."""

    id: str
    severity: Severity
    title: str
    detail: str = ""
    remediation: str = ""
    rests_on: list[str] = Field(default_factory=list)
    evidence_level: EvidenceLevel | None = None
    source: str = ""
    contradiction: bool = False
    nodes: list[str] = Field(default_factory=list)
    points: int | None = Field(default=None, description="What the finding adds to the score")
    ref: str = Field(
        default="", description="F-01 ...: the score's ref; the deployment check's own after them"
    )
    counted: bool = Field(
        default=True,
        description="False: it rests on evidence the scoring left out (not about this vendor, "
        "stale); listed, not counted in the severity counts, the tier sentence or the actions",
    )
    not_counted: str = Field(default="", description="Why it is not counted, in a few words")
    controls: list[ControlView] = Field(
        default_factory=list,
        description="Framework controls it shows not satisfied (controls/crosswalk.yaml)",
    )


class Scoring(Model):
    """How the score was computed, so a reader can recompute it."""

    questionnaire: str
    questionnaire_version: str = ""
    formula: str
    severity_counts: dict[str, int]
    points_total: int | None = Field(
        default=None, description="The findings' points before the cap (None: not stated)"
    )
    section_points: dict[str, int] = Field(
        default_factory=dict, description="Points per questionnaire section"
    )
    decided_by: list[str] = Field(
        default_factory=list, description="Decisive rules that set the tier, in words"
    )
    floors_met: list[str] = Field(
        default_factory=list,
        description="Decisive rules that matched but whose floor the tier already met, in words",
    )
    evidence: list[str] = Field(
        default_factory=list,
        description="Per evidence item: about this vendor or not, current or stale, scored or not",
    )


class Summary(Model):
    """The executive summary, in plain sentences."""

    tier_sentence: str
    exposure_sentence: str
    coverage_sentence: str = Field(
        default="", description="The evidence axis: coverage and its verdict ('' before it)"
    )
    evidence_sentences: list[str] = Field(default_factory=list)
    top_actions: list[str] = Field(default_factory=list)
    recommendation: str = Field(default="", description="What the review recommends")
    decision_asked: str = Field(default="", description="The decision asked of the committee")


class AccountRow(Model):
    """Affected requests of one account."""

    account_id: str
    requests: int


class DayRow(Model):
    """Affected requests on one UTC day."""

    date: str
    requests: int


class SkippedRow(Model):
    """A skipped line, with the file by name only."""

    file: str
    line: int | None = None
    reason: str


class Exposure(Model):
    """What the request logs show for the incident (``assessed`` false when no logs)."""

    assessed: bool
    advisory: str | None = None
    preset: str | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    received: int = 0
    accounts: list[AccountRow] = Field(default_factory=list)
    unattributed: int = 0
    sessions: int = 0
    per_day: list[DayRow] = Field(default_factory=list)
    status: dict[str, int] = Field(default_factory=dict)
    possibly_affected: dict[str, Any] = Field(default_factory=dict)
    disclosed: dict[str, Any] = Field(default_factory=dict)
    candidate_foreign_data: dict[str, Any] = Field(default_factory=dict)
    skipped: list[SkippedRow] = Field(default_factory=list)
    skipped_total: int = 0
    filter: dict[str, Any] = Field(default_factory=dict)
    affected_requests_file: str | None = None
    verdict: str | None = Field(
        default=None, description="The scope's verdict: affected, not_affected, not_assessable"
    )
    not_assessable: list[str] = Field(
        default_factory=list, description="Why the logs back no verdict (scope's reasons)"
    )
    accounts_assessment: dict[str, Any] = Field(
        default_factory=dict,
        description="The scope's accounts_assessment: verdict not_assessable (with its reason) "
        "when the accounts could not be told (a side table is missing)",
    )

    @property
    def accounts_unknown(self) -> str | None:
        """Why accounts cannot be told from these logs, or None when they can."""
        if self.accounts_assessment.get("verdict") != "not_assessable":
            return None
        return str(self.accounts_assessment.get("reason") or "a side table is missing")


class ProbeRun(Model):
    """One canary probe run."""

    run_id: str
    endpoint: str
    model: str
    mode: str
    started_at: str | None = None
    finished_at: str | None = None
    complete: bool
    leak_found: bool
    requests: int = Field(default=0, description="Requests sent (planting and probing)")
    probes: int
    hits: int
    leak_rate_upper_95: float | None = None
    method: str = ""
    errors: int = 0
    hit_details: list[dict[str, Any]] = Field(default_factory=list)
    scored: bool = Field(
        default=True, description="False: the scoring left this run out (not this vendor, stale)"
    )
    not_scored: str = Field(
        default="", description="Why, in a few words: 'lab simulation, not this vendor'"
    )


class Probes(Model):
    """Canary probe results (``assessed`` false when none were given)."""

    assessed: bool
    runs: list[ProbeRun] = Field(default_factory=list)


class DeploymentNode(Model):
    """One serving node, as the deployment check read it."""

    name: str
    engine: str | None = None
    version: str | None = None
    role: str
    pool_tokens: int | None = None
    context_tokens: int | None = None
    verdict: Literal["pass", "flag", "inconclusive"]
    settings: dict[str, Any] = Field(default_factory=dict)
    reason: str = ""


class Deployment(Model):
    """The deployment check (``assessed`` false when neither a result nor logs were given)."""

    assessed: bool
    verdict: Literal["pass", "flag", "inconclusive"] | None = None
    nodes: list[DeploymentNode] = Field(default_factory=list)
    not_scored: str = Field(
        default="", description="Set when the scoring left the deployment evidence out: why"
    )


class AnswerRow(Model):
    """One questionnaire answer as the vendor gave it."""

    id: str
    value: str
    evidence: EvidenceLevel | None = None
    note: str = ""
    ref: str = ""
    question: str = Field(default="", description="The question's text ('' when not known)")
    critical: bool = Field(default=False, description="A critical question of the questionnaire")
    order: int = Field(default=0, description="Position in the questionnaire (1..; 0 not in it)")


class UnansweredQuestion(Model):
    """A question of the questionnaire the vendor did not answer at all."""

    id: str
    question: str
    critical: bool = False
    order: int = Field(default=0, description="Position in the questionnaire (1..)")


class NotAssessed(Model):
    """A section the review could not cover, and why."""

    section: Literal["exposure", "probes", "deployment", "contradictions"]
    reason: str


class NotificationAppendix(Model):
    """The notification appendix: `assess scope --notification-pack` of the same run."""

    available: bool
    why_not: str | None = None
    accounts: list[dict[str, Any]] = Field(
        default_factory=list, description="accounts.csv of the pack, as rows"
    )
    method: dict[str, Any] = Field(default_factory=dict, description="The method statement")
    files: list[str] = Field(default_factory=list, description="The pack's files in the review")
    note: str


class Report(Model):
    """The vendor review: the machine-readable twin of report.html / report.pdf."""

    schema_version: int = REPORT_SCHEMA_VERSION
    kind: Literal["assess.report"] = "assess.report"
    tool: Tool
    generated_at: str
    vendor: VendorProfile
    tier: Tier
    score: int = Field(ge=0, le=100)
    scoring: Scoring
    summary: Summary
    findings: list[ReportFinding]
    exposure: Exposure
    probes: Probes
    deployment: Deployment
    not_assessed: list[NotAssessed]
    cache_probes: CacheAudits = Field(
        default_factory=CacheAudits, description="Cache-isolation audits (probe --mode cache)"
    )
    answers: list[AnswerRow] = Field(default_factory=list)
    prompts_included: bool = False
    inputs: list[ReportInput]
    governance: Governance = Governance()
    remediation: list[RemediationItem] = Field(default_factory=list)
    previous: PreviousReview | None = None
    unanswered: list[UnansweredQuestion] = Field(
        default_factory=list, description="Questions of the questionnaire with no answer"
    )
    evidence_verdict: str | None = Field(
        default=None, description="The score's verdict: sufficient or insufficient-evidence"
    )
    coverage: float | None = Field(default=None, description="The score's coverage.share")
    questions_to_send: list[AskView] = Field(
        default_factory=list, description="The score's unknown questions, weightiest first"
    )
    controls_in_place: list[InPlaceView] = Field(
        default_factory=list, description="The score's controls in place, beside the findings"
    )
    notification: NotificationAppendix | None = Field(
        default=None, description="With --logs: the notification appendix (issue 42)"
    )


class ManifestEntry(Model):
    """A file with its size and SHA-256."""

    path: str
    bytes: int
    sha256: str
    role: str | None = None
    engine: str | None = None
    query_sha256: str | None = None


class Manifest(Model):
    """``manifest.json``: what went in, what came out, by what and when."""

    schema_version: int = MANIFEST_SCHEMA_VERSION
    kind: Literal["assess.manifest"] = "assess.manifest"
    tool: Tool
    command: list[str]
    generated_at: str
    inputs: list[ManifestEntry]
    outputs: list[ManifestEntry]
