"""`assess scope` models: the canonical log batch and the versioned result (kind assess.scope)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any, Literal

import pyarrow as pa
from pydantic import Field

from assess.advisories.models import Platform
from assess.kernel.common import InputFile
from assess.kernel.model import Model
from assess.scope.duplicates import DuplicateRequests
from assess.scope.exposure_models import ExposureRange, SourceAccount, SourceRequest
from assess.scope.fields import CANONICAL_FIELDS, INTEGER_FIELDS
from assess.scope.overlap_models import OwnOverlap

#: Text columns are large_string: what polars hands over, so no copy is made.
TEXT = pa.large_string()

#: Columns of every canonical batch; timestamps are UTC nanoseconds, prompt_tokens null = unknown.
BATCH_SCHEMA = pa.schema(
    [(name, pa.int64() if name in INTEGER_FIELDS else TEXT) for name in CANONICAL_FIELDS]
)


class SkippedRecord(Model):
    """A malformed line or row: where it is and why it was skipped."""

    file: str
    line: int
    reason: str


@dataclass
class LogBatch:
    """A slice of one input file: its requests as a canonical table, plus the other records.

    ``records_read`` = ``table.num_rows`` + sum of ``non_request`` + ``skipped_count``.
    ``details``: when set, the table's detail and text columns are not read yet for (some) rows;
    the consumer decides which rows it keeps and loads theirs (:meth:`with_details`).
    """

    file: str
    table: pa.Table
    records_read: int = 0
    non_request: dict[str, int] = field(default_factory=dict)
    skipped: list[SkippedRecord] = field(default_factory=list)
    details: DetailLoader | None = None

    @property
    def skipped_count(self) -> int:
        """Return how many records of this batch were malformed."""
        return len(self.skipped)

    def with_details(self, wanted: Callable[[pa.Table], Any]) -> LogBatch:
        """Return the batch with the details of the rows ``wanted(table)`` selects loaded (a
        re-read part of the file comes back loaded the same way)."""
        import pyarrow.compute as pc

        batch = self
        while batch.details is not None and batch.table.num_rows:
            mask = pc.fill_null(wanted(batch.table), False)
            if not pc.any(mask).as_py():
                break
            loaded = batch.details(mask)
            if isinstance(loaded, LogBatch):
                batch = loaded
            else:
                batch = replace(batch, table=loaded, details=None)
        return replace(batch, details=None) if batch.details is not None else batch


#: Given the mask of a batch's rows whose details (ids, status, prompt, response) are kept,
#: return the table with those filled (the same rows in the same order) or, when the rows cannot
#: be mapped back to their lines, the part of the file re-read as a new batch to take instead.
DetailLoader = Callable[[Any], pa.Table | LogBatch]


class ScopeFilter(Model):
    """What counts as in scope: advisory (or ad-hoc) model names, window and trigger."""

    advisory_id: str | None
    model_names: list[str] = Field(min_length=1)
    since: datetime
    until: datetime
    min_prompt_tokens: int = Field(ge=0, description="Over threshold means strictly greater")
    leaked_responses: int | None = None
    platforms: list[Platform] = Field(
        default_factory=list, description="The advisory's platforms (empty: no platform binding)"
    )
    serving_platform: str | None = None  # the platform the preset's export is served by, if one
    native_counts: bool = Field(
        default=False, description="The preset tells a native prompt count from a fallback one"
    )
    provider_no_evidence: list[str] = Field(default_factory=list)  # values telling no platform
    served_by_stated: bool = False  # serving_platform is the user's --served-by
    provider_recorded: bool = True  # the export has a provider or endpoint field
    own_overlap: bool = True  # our prompts matched in over-length responses (off: --no-own-overlap)
    advisory_filter: bool = Field(
        default=False,
        description="Models, window and trigger are all the advisory's (its figures apply)",
    )
    context_tokens: int | None = Field(
        default=None, description="The most tokens a leaked response attended over (C)"
    )
    advisory_published: date | None = None
    models_given: bool = False  # --model replaced the advisory's models (and its platforms)


class Counts(Model):
    """The conservation counts (keys are a contract, see docs/CONTRACTS.md)."""

    records_read: int
    records_skipped: int
    non_request_records: int
    model_matched: int
    in_window: int
    over_threshold: int
    at_or_under_threshold: int
    unknown_tokens: int


class Breakdown(Model):
    """Counts that complete the conservation equations."""

    requests: int = Field(description="records_read - non_request_records - records_skipped")
    model_not_matched: int
    model_matched_outside_window: int
    non_request_reasons: dict[str, int]
    skipped_reasons: dict[str, int]
    served_elsewhere: int = Field(
        default=0, description="In-window requests served by another platform than the advisory's"
    )
    served_elsewhere_by_provider: dict[str, int] = Field(default_factory=dict)
    by_verdict: dict[str, int] = Field(
        default_factory=dict,
        description="In-window requests by verdict: affected, possibly_affected, not_affected, "
        "cache_replay, rejected_before_inference, served_elsewhere (they add up to in_window)",
    )


class AccountCount(Model):
    """Requests of one account."""

    account_id: str
    requests: int


class DayCount(Model):
    """Requests on one UTC day."""

    date: date
    requests: int


class Affected(Model):
    """Received: in-scope requests over the trigger whose responses may carry foreign data."""

    requests: int
    accounts: list[AccountCount]
    unattributed: int = Field(description="Affected requests with no account id")
    sessions: int = Field(description="Distinct session ids among affected requests")
    request_ids: list[str]
    requests_without_id: int


class TokenEstimate(Model):
    """A token range estimated from prompt text length."""

    request_id: str | None
    account_id: str | None
    timestamp: datetime
    prompt_chars: int
    tokens_low: int
    tokens_high: int
    verdict: Literal["over", "under", "crosses"]


class PossiblyAffected(Model):
    """In-scope requests with unknown prompt tokens (null, missing or 0)."""

    requests: int
    with_prompt_text: int
    estimate_over: int
    estimate_crosses: int
    estimate_under: int
    chars_per_token_low: float
    chars_per_token_high: float
    method: str
    accounts: list[AccountCount]
    request_ids: list[str]
    estimates: list[TokenEstimate] = Field(description="First 1,000 in input order")
    status: dict[str, int] = Field(
        default_factory=dict, description="Requests per status (failed calls show here)"
    )
    by_reason: dict[str, int] = Field(
        default_factory=dict, description="Why each is possibly affected (one reason each)"
    )


class PlatformShare(Model):
    """The uniform-copy point figure, kept unrounded; superseded by ``disclosed.estimate``."""

    platform_requests: int
    leaked_responses: int
    our_requests: int
    expected_leaked_responses_with_our_data: float
    probability_at_least_one: float
    formula: str
    superseded_by: str = Field(default="estimate", description="disclosed.<key> replacing it")


class Disclosed(Model):
    """The source set S: in-window requests that could have been read by a leak (reached the
    model on the platform or an unknown one, prompt at or under the trigger or unknown, not a
    cache replay, not rejected before inference). See docs/exposure.md."""

    requests: int
    prompt_tokens_known: int
    prompt_tokens_total: int
    accounts: int
    unattributed: int
    platform_share: PlatformShare | None = None
    output_tokens_known: int = 0
    output_tokens_total: int = 0
    platform_unknown: int = Field(default=0, description="Requests of S on a platform not told")
    first: datetime | None = None
    last: datetime | None = None
    excluded: dict[str, int] = Field(
        default_factory=dict, description="In-window requests left out of S, by reason"
    )
    by_account: list[SourceAccount] = Field(default_factory=list)
    request_list: list[SourceRequest] = Field(
        default_factory=list, description="The first 1,000 requests of S by time, then id"
    )
    estimate: ExposureRange | None = None


class ForeignData(Model):
    """In-scope responses holding identifiers absent from their own prompt (values not shown)."""

    responses_checked: int
    responses_flagged: int
    by_kind: dict[str, int]
    request_ids: list[str]
    note: str
    not_detected: list[str] = Field(
        default_factory=list, description="What the check cannot see (a clean result is no proof)"
    )


class FieldReading(Model):
    """Where one canonical field came from in the records examined of one file."""

    field: str
    source: str | None = Field(description="The path that gave the value most often")
    records_with_value: int
    by_path: dict[str, int] = Field(description="Records whose value came from each path")
    other_paths_seen: list[str] = Field(
        description="Candidate paths present in records but not the one that gave the value"
    )
    example: str | None = Field(description="A redacted example value (ids cut, texts as sizes)")


class DetectMatch(Model):
    """How well one preset's detect rule fits the records examined of one file."""

    preset: str
    form: str = Field(description="The detect rule's name: the export form it recognises")
    records_matched: int
    fields_matched: list[str]
    missing: list[str] = Field(description="Paths the first unmatched record lacks")


class InferredField(Model):
    """How one field of a file no preset recognises was inferred (preset ``inferred``)."""

    field: str
    paths: list[str] = Field(description="The winner, then paths holding the same values")
    score: float | None = Field(description="Name (3 synonym, 2 telling word) + share held")
    runner_up: str | None = Field(description="The best rival path holding other values")
    runner_up_score: float | None


class FileReading(Model):
    """How `assess scope` read one input file (`--explain`, `reading` in --json)."""

    file: str
    preset: str
    chosen_by: Literal["auto", "--preset", "--map", "inferred"]
    role: Literal["requests", "side table"]
    records_examined: int = Field(description="Records from the start of the file examined")
    detect: DetectMatch | None
    runner_up: DetectMatch | None
    fields: list[FieldReading]
    inference: list[InferredField] = Field(
        default_factory=list, description="Preset inferred: each field's paths and runner-up"
    )


class EngineRun(Model):
    """Where a result came from when an engine ran the scoping query (``--from-engine-results``)."""

    dialect: str
    definition: str = Field(description="Fingerprint of the preset and filter the query encodes")
    query_sha256: str
    query: str
    results: InputFile
    parts: list[InputFile] = Field(default_factory=list, description="A sharded result's parts")


class ModelCount(Model):
    """Requests naming one model id (as logged)."""

    model: str
    requests: int


class Assessment(Model):
    """Whether the logs can back a verdict: the shares of request records whose required fields
    were read, against the documented thresholds (``assess.scope.evidence``)."""

    reasons: list[str] = Field(description="Why the logs cannot back a verdict (empty: they can)")
    request_records: int = Field(
        description="Requests plus records skipped for want of a timestamp"
    )
    timestamp_read: int = Field(description="Request records whose timestamp was read")
    model_read: int = Field(description="Requests whose model field held a value")
    skipped_share: float
    thresholds: dict[str, float]
    models_seen: list[ModelCount] = Field(
        description="The most frequent model ids of the requests (first N), matched or not"
    )


class InputNote(Model):
    """An input named but not read (another's file or content, a broken symlink, a date folder
    outside the window), or a remote object whose ``bytes`` were fetched again (--jobs)."""

    path: str
    reason: str
    same_as: str | None = Field(default=None, description="The input read in its place")
    objects: int | None = Field(default=None, description="Files of a date folder not read")
    bytes: int | None = Field(default=None, description="Their bytes, not read")


class AccountsAssessment(Model):
    """Whether the run could tell the accounts of its requests (``accounts_assessment``): a
    preset whose accounts come from a joined side table (Azure APIM's gateway log) cannot when
    no file of that table was given, and its account counts are then no count at all."""

    verdict: Literal["assessable", "not_assessable"] = "assessable"
    reason: str | None = Field(default=None, description="Why not (verdict not_assessable)")


class ScopeResult(Model):
    """The `assess scope --json` document (kind assess.scope)."""

    schema_version: Literal[1] = 1
    kind: Literal["assess.scope"] = "assess.scope"
    filter: ScopeFilter
    preset: str
    counts: Counts
    breakdown: Breakdown
    affected: Affected
    per_day: list[DayCount]
    status: dict[str, int]
    possibly_affected: PossiblyAffected
    disclosed: Disclosed
    candidate_foreign_data: ForeignData
    own_overlap: OwnOverlap | None = None  # over-length responses vs our earlier prompts
    skipped: list[SkippedRecord]
    skipped_listed: int = Field(description="How many skipped records are listed (first N)")
    exit_code: int
    verdict: Literal["affected", "not_affected", "not_assessable"] = Field(
        description="affected (exit 1), not_affected (exit 0) or not_assessable (exit 2)"
    )
    assessment: Assessment
    inputs: list[InputFile]
    inputs_not_read: list[InputNote] = Field(
        default_factory=list,
        description="Inputs named but not read: duplicates (read once), broken symlinks and "
        "date folders outside the window",
    )
    fetched_again: list[InputNote] = []  # --jobs: read again past a worker's copy (scope-remote.md)
    accounts_assessment: AccountsAssessment = Field(
        default_factory=AccountsAssessment,
        description="Whether accounts could be told (not_assessable: their side table is missing)",
    )
    duplicates: DuplicateRequests = Field(default_factory=DuplicateRequests)  # docs/scope.md
    reading: list[FileReading] = Field(
        default_factory=list, description="Per input file: the preset chosen and each field's path"
    )
    engine: EngineRun | None = Field(
        default=None, description="Set when an engine ran the scoping query (--emit-sql)"
    )
