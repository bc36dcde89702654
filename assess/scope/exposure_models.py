"""The exposure range and the source set S of `assess scope --json` (``disclosed``): the models
(docs/exposure.md)."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from assess.kernel.model import Model


class Ratio(Model):
    """An exact fraction, and its value as a float for reading."""

    numerator: int
    denominator: int
    value: float


class Assumption(Model):
    """One assumption of the estimate and the way it moves the figure."""

    assumption: str
    bias: str


class ExposureRange(Model):
    """The chance that a leaked response carried our data, as a range with its method."""

    applies: bool = Field(description="False: the filter is not the advisory's, or no N")
    why_not: str | None = None
    leaked_responses: int | None = Field(description="L, the advisory's count")
    leaked_to_others_low: int | None = Field(description="L minus our over-trigger requests")
    leaked_to_others_high: int | None = Field(description="L (ours may not have leaked)")
    platform_requests: int | None = Field(description="N")
    platform_tokens: int | None = Field(description="V")
    platform_tokens_source: str | None = None
    context_tokens: int | None = Field(description="C, the tokens a leak attended over")
    sources: int = Field(description="|S|")
    footprint_tokens: int = Field(description="Sum over S of C + f_i")
    footprints_unknown: int = Field(description="Requests of S whose f_i is taken as C")
    lower: Ratio | None = None
    upper: Ratio | None = None
    formula: str
    assumptions: list[Assumption]


class SourceAccount(Model):
    """The requests of one account in the source set S (account_id null: none logged)."""

    account_id: str | None
    requests: int
    first: datetime
    last: datetime
    prompt_tokens: int
    prompt_tokens_known: int
    output_tokens: int
    output_tokens_known: int


class SourceRequest(Model):
    """One request of the source set S."""

    request_id: str | None
    account_id: str | None
    timestamp: datetime
    prompt_tokens: int | None
    output_tokens: int | None
    platform: str = Field(description="on: the advisory's platform; unknown: cannot be told")
