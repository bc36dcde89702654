"""Models of `assess deploy-check`: what a server log says, the isolation catalogue, the result.

The result document (kind ``assess.deploy-check``) is a contract read by `assess score` and
`assess report`; see docs/CONTRACTS.md. Keys may be added, never removed or renamed.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field

from assess.controls.models import ControlRef
from assess.kernel.common import Finding, InputFile, Severity
from assess.kernel.model import Model

SCHEMA_VERSION = 1
KIND = "assess.deploy-check"

#: A setting value as read from a log: numbers stay numbers, flags become booleans.
Scalar = str | int | float | bool | None


class Role(StrEnum):
    """What a node does in its deployment."""

    PREFILL = "prefill"
    DECODE = "decode"
    AGGREGATED = "aggregated"
    UNKNOWN = "unknown"

    @property
    def disaggregated(self) -> bool:
        """Return True for the prefill and decode halves of a disaggregated deployment."""
        return self in (Role.PREFILL, Role.DECODE)


class Verdict(StrEnum):
    """A node's or a deployment's verdict."""

    PASS = "pass"
    FLAG = "flag"
    INCONCLUSIVE = "inconclusive"


class LogPeriod(Model):
    """The first and last timestamp of a log (what it is about in time)."""

    start: str = Field(description="First timestamp: ISO 8601 when dated, else as printed")
    end: str = Field(description="Last timestamp, in the same form")
    dated: bool = Field(
        description="True: the timestamps carry the year (ISO 8601 date-times); False: month-day "
        "only, as vLLM prints them ('10-14 11:02:31'), so no date can be compared"
    )


class ParsedServerLog(Model):
    """What one engine's startup log says (the reader's output; no judgement yet)."""

    engine: Literal["sglang", "vllm", "unknown"]
    version: str | None = None
    role: Role | None = Field(default=None, description="Role printed in the log, if any")
    pool_tokens: int | None = Field(default=None, description="KV pool size in tokens")
    context_tokens: int | None = Field(default=None, description="Context length served")
    settings: dict[str, Scalar] = Field(default_factory=dict)
    evidence: dict[str, str] = Field(
        default_factory=dict, description="Field -> 'line N: text' it was read from"
    )
    hints: dict[str, str] = Field(
        default_factory=dict, description="Field -> which line to look for when it is missing"
    )
    notes: list[str] = Field(default_factory=list)
    problem: str | None = Field(
        default=None, description="Why the log could not be read at all (empty, binary...)"
    )
    models: list[str] = Field(
        default_factory=list, description="Served model names and model paths the log names"
    )
    period: LogPeriod | None = Field(default=None, description="First and last timestamp")
    cache_settings: dict[str, Scalar] = Field(
        default_factory=dict,
        description="Cache-isolation settings the log shows, by engine-neutral name "
        "(prefix_cache, kv_canary, external_kv_tier, ...); evidence under 'cache_settings.NAME'",
    )
    cache_settings_not_shown: list[str] = Field(
        default_factory=list, description="The engine's settings this log does not show"
    )
    cache_settings_source: str | None = Field(
        default=None, description="Which line(s) they were read from ('server_args', ...)"
    )
    engine_args: dict[str, Scalar] = Field(
        default_factory=dict,
        exclude=True,
        description="The engine's own flags as printed (what advisories' settings name)",
    )
    engine_arg_lines: dict[str, str] = Field(
        default_factory=dict, exclude=True, description="Flag -> 'line N: text' it was read from"
    )
    engine_args_whole: bool = Field(
        default=False,
        exclude=True,
        description="True: a flag missing from engine_args is not set (the release lacks it, "
        "or vLLM's whole non-default args leave it at its default)",
    )


class IsolationSetting(Model):
    """One isolation-relevant engine setting (catalogue entry, see isolation_settings.yaml)."""

    id: str = Field(pattern=r"^[a-z0-9_]+$", description="Key in a node's settings")
    engine: Literal["sglang", "vllm"]
    title: str
    since: str = Field(description="First engine version believed to have it")
    since_basis: str = Field(description="Why we believe that (PR, release date)")
    printed_in: Literal["server_args", "env"] = Field(
        description="server_args: seeing it printed proves the version has it; env: it does not"
    )
    roles: list[Role] = Field(min_length=1, description="Roles where it matters")
    off_values: list[str] = Field(min_length=1, description="Values meaning 'off' (lower case)")
    remediation: str
    reference: str


class IsolationCatalogue(Model):
    """The isolation settings catalogue file."""

    settings: list[IsolationSetting]


class NodeLog(Model):
    """One node's parsed log, ready for the check (what :func:`check_deployment` takes)."""

    name: str
    source: str
    parsed: ParsedServerLog
    role_override: Role | None = None
    input_file: InputFile | None = None


class NodeFinding(Finding):
    """A deploy-check finding: a :class:`Finding` plus the node it concerns (None: all nodes),
    the advisories it rests on and the framework controls its id maps to
    (controls/crosswalk.yaml), as score's carry."""

    node: str | None = None
    advisories: list[str] = Field(
        default_factory=list, description="Ids of the advisories (advisories/) it rests on"
    )
    controls: list[ControlRef] = Field(
        default_factory=list,
        description="Framework controls it shows not satisfied (controls/crosswalk.yaml)",
    )


class NodeReport(Model):
    """One node of the deployment as judged (contract keys first)."""

    name: str
    source: str
    engine: str
    version: str | None
    role: Role
    pool_tokens: int | None
    context_tokens: int | None
    verdict: Verdict
    settings: dict[str, Scalar] = Field(default_factory=dict)
    role_from: Literal["log", "--node", "default"] = "log"
    evidence: dict[str, str] = Field(default_factory=dict)
    missing: list[str] = Field(default_factory=list)
    reason: str = Field(default="", description="Why the verdict is inconclusive")
    notes: list[str] = Field(default_factory=list)
    models: list[str] = Field(
        default_factory=list, description="Served model names and model paths the log names"
    )
    period: LogPeriod | None = Field(default=None, description="First and last timestamp")
    cache_settings: dict[str, Scalar] = Field(
        default_factory=dict, description="Cache-isolation settings the log shows"
    )
    cache_settings_not_shown: list[str] = Field(
        default_factory=list, description="Settings not shown in this log (coverage, not risk)"
    )
    cache_settings_source: str | None = None


class DeployAbout(Model):
    """What a deploy-check is about, so `assess score` can tell whether it is the vendor's."""

    service: str = Field(default="", description="The service the user states (--service)")
    model: str = Field(default="", description="The model the user states (--model)")
    models_seen: list[str] = Field(
        default_factory=list, description="Model names the startup logs name, in order"
    )
    nodes: list[str] = Field(default_factory=list, description="The nodes' names")
    period: LogPeriod | None = Field(
        default=None, description="Earliest to latest timestamp of the logs (dated ones first)"
    )


class DeployCheckResult(Model):
    """The `assess deploy-check --json` document."""

    schema_version: int = SCHEMA_VERSION
    kind: Literal["assess.deploy-check"] = "assess.deploy-check"
    nodes: list[NodeReport]
    findings: list[NodeFinding]
    verdict: Verdict
    fail_on: Severity = Severity.HIGH
    advertised_context: int | None = None
    inputs: list[InputFile] = Field(default_factory=list)
    about: DeployAbout = Field(
        default_factory=DeployAbout, description="Service, models, nodes and dates of the logs"
    )

    @property
    def failed(self) -> bool:
        """Return True when the check should exit 1 (a finding at fail_on, or inconclusive)."""
        return self.verdict is not Verdict.PASS
