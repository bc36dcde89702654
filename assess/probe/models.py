"""The evidence document of `assess probe` (kind ``assess.probe``, see docs/CONTRACTS.md).

It never holds an API key: accounts are labels ("A", "B") and the name of the environment
variable the key came from.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from assess.kernel.model import Model

PROBE_KIND = "assess.probe"
PROBE_SCHEMA_VERSION = 1

Account = Literal["A", "B"]
Role = Literal["plant", "probe", "followup", "control"]
Outcome = Literal["ok", "rejected", "error"]
Verdict = Literal["leak", "no-leak", "inconclusive"]


class AccountInfo(Model):
    """One account of the run: its label and where its key came from (never the key)."""

    label: Account
    key_env: str
    note: str = ""


class MarkerRecord(Model):
    """A planted canary marker."""

    id: str
    value: str = Field(description="The full marker as planted: prefix and random part")
    random_part: str = Field(description="The high-entropy part that fragments are cut from")
    bits: int = Field(description="Entropy of the random part in bits")
    planted_in: str = Field(description="Id of the request that planted it")
    account: Account


class RequestRecord(Model):
    """One request of the run, as sent and as answered."""

    id: str
    round: int
    account: Account
    role: Role
    stream: bool
    prompt_chars: int
    prompt_tokens_est: int
    status: int | None = Field(description="HTTP status of the final attempt; null if none")
    outcome: Outcome
    latency_ms: float | None
    retries: int = 0
    prompt_tokens: int | None = Field(default=None, description="As reported in usage")
    completion_tokens: int | None = None
    markers_planted: list[str] = Field(default_factory=list)
    error: str | None = None
    carries_text: bool | None = Field(
        default=None,
        description="Whether the answer held any text a marker could have shown in; an answer "
        "without (empty stream, only error events, no choices) is not counted as a probe. Null "
        "when there was no answer",
    )


class Hit(Model):
    """A marker of this run, or a fragment of one, found in a response that did not plant it."""

    request_id: str
    account: Account
    role: Role
    marker_id: str
    planted_in: str
    planted_by: Account
    match: Literal["full", "fragment"]
    text: str = Field(description="The matched text (the marker, or the fragment)")
    chars: int
    location: str = Field(description="Where in the response: content, reasoning_content, ...")
    offset: int


class ErrorRecord(Model):
    """An error met during the run."""

    request_id: str | None
    kind: str
    message: str
    fatal: bool = False


class ProbeStats(Model):
    """Hits over probes and the one-sided 95% upper bound on the leak rate."""

    probes: int = Field(description="Responses scanned from probe and follow-up requests")
    hits: int = Field(description="Probes whose response carried at least one hit")
    rejected: int = Field(default=0, description="Probes answered with an HTTP 4xx (scanned too)")
    unusable: int = Field(
        default=0,
        description="Probe answers with no text that a marker could have shown in: not probes",
    )
    leak_rate_observed: float | None
    leak_rate_upper_95: float | None = Field(description="Null when there were no probes")
    method: str
    rule_of_three: float | None = Field(default=None, description="3/N, only when hits == 0")
    wilson_upper_95: float | None = None


class ProbeSettings(Model):
    """The options the run used (so a reader can repeat it)."""

    rounds: int
    probes_per_round: int
    concurrency: int
    timeout_s: float
    fragment_chars: int
    long_prompt_tokens: int | None
    max_tokens: int
    stream: str
    max_retries: int
    transport: str = "httpx"


class EchoControl(Model):
    """The positive control: account B asked to repeat a random code (docs/probe.md)."""

    request_id: str | None
    code: str = Field(description="The random code asked for (not a secret, not a marker)")
    echoed: bool = Field(description="The answer carried the code, whole or a fragment")
    why: str | None = Field(default=None, description="Why not, when not echoed")


class RunHeader(Model):
    """What every probe document (canary and cache audit) starts with: its kind and version,
    which run, of which endpoint and model, when, and whether it finished. Each document sets
    its own ``kind`` and ``schema_version`` defaults; the keys keep this order."""

    schema_version: int
    kind: str
    run_id: str
    endpoint: str
    model: str
    started_at: datetime
    finished_at: datetime
    complete: bool


class ProbeResult(RunHeader):
    """The whole run: what was sent, what came back, what was found."""

    schema_version: int = PROBE_SCHEMA_VERSION
    kind: str = PROBE_KIND
    leak_found: bool
    mode: Literal["standard", "boundary"]
    accounts: list[AccountInfo]
    settings: ProbeSettings
    markers: list[MarkerRecord]
    requests: list[RequestRecord]
    hits: list[Hit]
    errors: list[ErrorRecord]
    stats: ProbeStats
    summary: str
    control: EchoControl | None = Field(
        default=None, description="The echo control; null in documents written before it"
    )
    verdict: Verdict | None = Field(
        default=None,
        description="leak: a marker crossed; no-leak: enough probe answers could have shown one "
        "and none did (a bound, not proof); inconclusive: anything else (exit 2). Null in "
        "documents written before it was added",
    )
