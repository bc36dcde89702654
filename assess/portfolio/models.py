"""The portfolio document (``kind: assess.portfolio``): every vendor ranked, riskiest first."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from assess.kernel.model import Model

PORTFOLIO_SCHEMA_VERSION = 1

Trend = Literal["new", "riskier", "better", "same"]


class Previous(Model):
    """A vendor's earlier assessment, as a previous portfolio, score or review stated it."""

    score: int
    tier: str
    points_total: int | None = None
    answered_on: str | None = None
    source: str = Field(description="The file it was read from (name only)")
    file: str | None = Field(default=None, description="The answers file, when a portfolio said")


class VendorRow(Model):
    """One vendor of the portfolio."""

    rank: int = Field(description="1 is the riskiest")
    vendor: str
    service: str = ""
    file: str = Field(description="The answers file, as given")
    tier: str
    score: int = Field(ge=0, le=100)
    points_total: int = Field(description="The findings' points before the cap at 100")
    section_points: dict[str, int] = Field(description="Points per questionnaire section")
    open_critical: int = Field(
        description="Critical findings, less those the latest --previous review's remediation "
        "plan marks done or accepted"
    )
    critical_settled: int = Field(
        default=0, description="Critical findings that plan marks done or accepted"
    )
    plan_from: str | None = Field(
        default=None, description="The --previous review whose plan was read (name only)"
    )
    findings: int
    coverage: float | None = Field(
        default=None, description="Evidence coverage: share of the questionnaire's weight answered"
    )
    evidence_verdict: str = Field(
        default="sufficient", description="sufficient or insufficient-evidence (score's verdict)"
    )
    questions_to_send: int = Field(default=0, description="Unknown or stale questions to ask")
    controls_in_place: int = Field(default=0, description="Facts in the vendor's favour")
    last_assessed: str = Field(description="The date of the vendor's answers")
    trend: Trend = Field(description="Against the previous assessment: riskier, better, same")
    previous: Previous | None = None
    score_change: int | None = Field(default=None, description="score - previous score")
    points_change: int | None = Field(default=None, description="points_total - previous")


class SkippedFile(Model):
    """An answers file that could not be scored, and why."""

    file: str
    error: str


class Portfolio(Model):
    """The portfolio: vendors ranked riskiest first, and the files left out."""

    schema_version: int = PORTFOLIO_SCHEMA_VERSION
    kind: Literal["assess.portfolio"] = "assess.portfolio"
    generated_at: str
    sections: list[str] = Field(description="The sections of section_points, in order")
    vendors: list[VendorRow]
    skipped: list[SkippedFile] = Field(default_factory=list)
    previous_files: list[str] = Field(
        default_factory=list, description="The --previous files read (names only)"
    )
