"""The review file (``review.yaml``): who assessed, reviewed and approved the review, and what
was decided.

A committee signs a document with an id, a version, a classification, a scope and a decision.
Those are data a person writes, not something assess computes, so they come from a small YAML file
validated here (``assess report --review review.yaml``; ``assess review new`` writes a commented
one). Without it the review is a draft and says so on every page.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from assess.kernel.errors import InputError
from assess.kernel.model import Model
from assess.kernel.structured import Located, load_document

Outcome = Literal["approve", "approve-with-conditions", "reject"]
ItemStatus = Literal["open", "in progress", "accepted", "done"]
Status = Literal["draft", "approved", "approved-with-conditions", "rejected"]

#: What the review says about itself, per status (on every page and on the cover).
STATUS_TEXT: dict[Status, str] = {
    "draft": "Draft, not approved",
    "approved": "Approved",
    "approved-with-conditions": "Approved with conditions",
    "rejected": "Rejected",
}
#: A value still holding the template's "<...>" placeholder.
_PLACEHOLDER = re.compile(r"^\s*<[^<>]*>\s*$")


def _bad(message: str) -> PydanticCustomError:
    """Return a validation error whose text is ``message`` alone (no "Value error," prefix)."""
    return PydanticCustomError("review_file", "{message}", {"message": message})


def _filled(value: str) -> str:
    if _PLACEHOLDER.match(value):
        raise _bad(f"'{value}' is the template's placeholder: replace it or delete the line")
    if not value.strip():
        raise _bad("is empty: write a value or delete the line")
    return value.strip()


class _Text(Model):
    """A model whose every text value must be filled in (no "<...>" left from the template)."""

    @field_validator("*", mode="before")
    @classmethod
    def _no_placeholder(cls, value: Any) -> Any:
        return _filled(value) if isinstance(value, str) else value


class Signature(_Text):
    """A person who took part in the review, and the day they did."""

    name: str
    title: str = Field(default="", description="Role or job title, as it should be printed")
    date: dt.date


class Period(_Text):
    """The days the assessment covers."""

    start: dt.date
    end: dt.date

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.end < self.start:
            raise _bad(f"end ({self.end}) is before start ({self.start})")
        return self


class ReportMeta(_Text):
    """The document's identity."""

    id: str = Field(description="The report id your register uses, e.g. TPRM-2026-014")
    version: str = Field(description="The document version, e.g. 1.0")
    classification: str = Field(description="As printed on every page, e.g. Confidential")

    @field_validator("version", mode="before")
    @classmethod
    def _version_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int | float) else value


class Scope(_Text):
    """What was assessed, and over which days."""

    statement: str
    period: Period


class People(_Text):
    """Assessor, reviewer and approver (four eyes: the reviewer is not the assessor)."""

    assessor: Signature
    reviewer: Signature | None = None
    approver: Signature | None = None

    @model_validator(mode="after")
    def _order(self) -> Self:
        if self.reviewer is not None:
            if self.reviewer.name.casefold() == self.assessor.name.casefold():
                raise _bad("the reviewer is the assessor: a second person reviews")
            if self.reviewer.date < self.assessor.date:
                raise _bad(
                    f"reviewer.date ({self.reviewer.date}) is before assessor.date "
                    f"({self.assessor.date}): a review follows the assessment"
                )
        if self.approver is not None:
            who, first = (
                ("reviewer", self.reviewer) if self.reviewer else ("assessor", self.assessor)
            )
            if self.approver.date < first.date:
                raise _bad(
                    f"approver.date ({self.approver.date}) is before {who}.date ({first.date}): "
                    "approval comes last"
                )
        return self


class Decision(_Text):
    """What the approver decided."""

    outcome: Outcome
    conditions: list[str] = Field(default_factory=list)

    @field_validator("conditions", mode="before")
    @classmethod
    def _condition_texts(cls, value: Any) -> Any:
        if not isinstance(value, list):
            return value
        return [_filled(v) if isinstance(v, str) else v for v in value]

    @model_validator(mode="after")
    def _conditions_fit(self) -> Self:
        if self.outcome == "approve-with-conditions" and not self.conditions:
            raise _bad("approve-with-conditions needs at least one entry in conditions")
        if self.outcome != "approve-with-conditions" and self.conditions:
            raise _bad(
                f"{self.outcome} takes no conditions: use outcome approve-with-conditions, "
                "or delete the conditions"
            )
        return self


class ResidualRisk(_Text):
    """Whether the risk left after the conditions is accepted, by whom and until when."""

    accepted: bool
    statement: str = Field(description="The risk accepted (or why it is not), in words")
    accepted_by: str | None = None
    date: dt.date | None = None
    review_by: dt.date | None = Field(default=None, description="When the acceptance expires")

    @model_validator(mode="after")
    def _signed(self) -> Self:
        if self.accepted and (self.accepted_by is None or self.date is None):
            raise _bad("an accepted residual risk needs accepted_by and date")
        if self.review_by is not None and self.date is not None and self.review_by < self.date:
            raise _bad(f"review_by ({self.review_by}) is before date ({self.date})")
        return self


class PlanEntry(_Text):
    """Owner, due date and status of one remediation item (a finding or an exposure action)."""

    owner: str | None = None
    due: dt.date | None = None
    status: ItemStatus = "open"
    note: str = ""


class ReviewFile(_Text):
    """``review.yaml``: the governance of one vendor review."""

    kind: Literal["assess.review"] = "assess.review"
    schema_version: Literal[1] = 1
    report: ReportMeta
    scope: Scope
    people: People
    decision: Decision | None = None
    residual_risk: ResidualRisk | None = None
    remediation: dict[str, PlanEntry] = Field(
        default_factory=dict,
        description="By finding ref (F-01), finding id or exposure action (exposure.purge)",
    )

    @field_validator("remediation", mode="before")
    @classmethod
    def _empty_plan(cls, value: Any) -> Any:
        return {} if value is None else value  # every entry commented out

    @model_validator(mode="after")
    def _decided_by_someone(self) -> Self:
        if self.decision is not None and self.people.approver is None:
            raise _bad("a decision needs people.approver (name and date): who decided, and when")
        if self.decision is not None and self.people.reviewer is None:
            raise _bad("a decision needs people.reviewer: the review is checked first")
        return self


@dataclass(frozen=True)
class LoadedReview:
    """The review file, its name as the review shows it, and where each value is (for errors
    found later, e.g. a remediation key that names no finding)."""

    review: ReviewFile
    doc: Located

    def where(self, *loc: str | int) -> str:
        """Return ``file:line`` of the value at ``loc``."""
        return self.doc.where(loc)


def load_review(path: Path) -> LoadedReview:
    """Load and validate ``review.yaml``.

    Raises:
        InputError: missing, unparsable or invalid, one ``file:line: field: message`` per problem.
    """
    doc = load_document(path)
    review = ReviewFile.from_located(
        doc,
        "Fix the fields listed above (`assess review new` writes a commented example), "
        "or leave --review out to write a draft.",
    )
    return LoadedReview(review=review, doc=doc)


class Person(Model):
    """A signature as report.json carries it."""

    name: str
    title: str = ""
    date: str


class Governance(Model):
    """The ``governance`` key of report.json: the document's identity, sign-off and decision."""

    status: Status = "draft"
    status_text: str = "Draft, not approved"
    report_id: str | None = None
    version: str | None = None
    classification: str | None = None
    scope_statement: str | None = None
    period_start: str | None = None
    period_end: str | None = None
    assessor: Person | None = None
    reviewer: Person | None = None
    approver: Person | None = None
    decision: Outcome | None = None
    conditions: list[str] = Field(default_factory=list)
    residual_risk_accepted: bool | None = None
    residual_risk_statement: str | None = None
    residual_risk_accepted_by: str | None = None
    residual_risk_date: str | None = None
    residual_risk_review_by: str | None = None
    review_file: str | None = Field(default=None, description="The review file, by name")


_STATUS_OF: dict[Outcome, Status] = {
    "approve": "approved",
    "approve-with-conditions": "approved-with-conditions",
    "reject": "rejected",
}


def _person(sig: Signature | None) -> Person | None:
    if sig is None:
        return None
    return Person(name=sig.name, title=sig.title, date=sig.date.isoformat())


def governance(review: ReviewFile | None, file_name: str | None = None) -> Governance:
    """Return the ``governance`` section: a draft without a review file or without a decision."""
    if review is None:
        return Governance()
    status = _STATUS_OF[review.decision.outcome] if review.decision else "draft"
    risk = review.residual_risk
    return Governance(
        status=status,
        status_text=STATUS_TEXT[status],
        report_id=review.report.id,
        version=review.report.version,
        classification=review.report.classification,
        scope_statement=review.scope.statement,
        period_start=review.scope.period.start.isoformat(),
        period_end=review.scope.period.end.isoformat(),
        assessor=_person(review.people.assessor),
        reviewer=_person(review.people.reviewer),
        approver=_person(review.people.approver),
        decision=review.decision.outcome if review.decision else None,
        conditions=list(review.decision.conditions) if review.decision else [],
        residual_risk_accepted=risk.accepted if risk else None,
        residual_risk_statement=risk.statement if risk else None,
        residual_risk_accepted_by=risk.accepted_by if risk else None,
        residual_risk_date=risk.date.isoformat() if risk and risk.date else None,
        residual_risk_review_by=risk.review_by.isoformat() if risk and risk.review_by else None,
        review_file=file_name,
    )


Change = Literal["", "new", "still open", "status changed", "unchanged", "closed"]


class RemediationItem(Model):
    """One row of the remediation plan: a finding or an exposure action, who owns it, by when."""

    ref: str = Field(description="F-01 ... for findings, E-01 ... for exposure actions")
    id: str = Field(description="The finding id, or exposure.purge / exposure.notify / ...")
    kind: Literal["finding", "exposure"]
    title: str
    severity: str
    owner: str | None = None
    due: str | None = None
    status: ItemStatus = "open"
    note: str = ""
    overdue: bool = Field(default=False, description="Due before the review date, not done")
    change: Change = Field(
        default="", description="Against the previous review ('' when none was given)"
    )
    previous_status: ItemStatus | None = None


class PreviousReview(Model):
    """The review this one follows (``--previous``), as report.json named it."""

    report_id: str | None = None
    version: str | None = None
    generated_at: str
    tier: str
    score: int
    sha256: str


def plan_key_error(loaded: LoadedReview, key: str, known: list[str]) -> InputError:
    """Return the error for a ``remediation`` key that names no item of this review."""
    shown = ", ".join(known) or "(the review has no findings or exposure actions)"
    return InputError(
        f"{loaded.where('remediation', key)}: remediation.{key}: names no finding or exposure "
        "action of this review",
        f"Use one of: {shown}.",
    )
