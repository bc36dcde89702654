"""Incident advisories: what an incident touched, when, and what triggered it."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from pydantic import Field, field_validator, model_validator

from assess.advisories.facts import (
    AnswerCondition,
    BehaviourClass,
    Dates,
    EngineScope,
    SettingFact,
    Source,
)
from assess.kernel.common import Severity
from assess.kernel.model import Model

__all__ = ["Advisory", "AdvisoryModels", "EngineScope", "Platform", "Trigger", "Window"]


class AdvisoryModels(Model):
    """How to recognise the affected model's ids."""

    names: list[str] = Field(
        min_length=1, description="Normalised model names, compared for equality"
    )
    examples: list[str] = Field(default_factory=list, description="Real ids seen in logs")

    @field_validator("names")
    @classmethod
    def _lower(cls, names: list[str]) -> list[str]:
        return [n.strip().lower() for n in names]


class Window(Model):
    """A time window, both ends included, in UTC."""

    start: datetime
    end: datetime

    @field_validator("start", "end")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)

    @model_validator(mode="after")
    def _ordered(self) -> Window:
        if self.end < self.start:
            raise ValueError("window end is before its start")
        return self


class Trigger(Model):
    """What made a request able to read stale pages."""

    prompt_tokens_gt: int = Field(ge=0, description="Prompt tokens strictly greater than this")


class DeploymentFacts(Model):
    """Published facts about the affected deployment."""

    advertised_context_tokens: int | None = None
    kv_pool_tokens: int | None = None
    kv_pool_tokens_after_fix: int | None = None


class Platform(Model):
    """A deployment an advisory is about, and how request logs name it (compared lower-case).

    A row is on this platform when its model id starts with one of ``model_prefixes``, its
    serving provider is one of ``providers``, or its endpoint contains one of ``endpoints``.
    """

    name: str
    providers: list[str] = Field(
        default_factory=list, description="Serving-provider values logs give (provider fields)"
    )
    endpoints: list[str] = Field(
        default_factory=list, description="Text an endpoint URL of the platform contains"
    )
    model_prefixes: list[str] = Field(
        default_factory=list, description="Model-id prefixes only this platform uses"
    )
    sources: list[str] = Field(
        default_factory=list, description="Where each value was read (product docs, source)"
    )

    @field_validator("providers", "endpoints", "model_prefixes")
    @classmethod
    def _lower(cls, values: list[str]) -> list[str]:
        return [v.strip().lower() for v in values if v.strip()]


class Reference(Model):
    """A public source for the advisory."""

    title: str
    url: str


class Advisory(Model):
    """One advisory (``advisories/<id>.yaml``): an incident, a CVE, a measured behaviour.

    Scope data (``models`` and ``window``, with ``trigger`` and ``platforms`` where known) is
    what `assess scope --incident` needs; an advisory without it is about engines and settings
    only. ``engine`` is the one-engine form of the first advisories, read into ``engines``.
    ``published`` / ``fixed_on`` and ``dates.disclosed`` / ``dates.fixed`` are the same facts:
    either spelling fills the other.
    """

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$")
    title: str
    summary: str
    behaviour: BehaviourClass | None = Field(
        default=None,
        description="stale-kv-read, prefix-cache-sharing, transfer-race or connection-reuse",
    )
    severity: Severity = Field(
        default=Severity.CRITICAL,
        description="Severity of a `score` finding when a deployment is shown to be affected",
    )
    sources: list[Source] = Field(default_factory=list, description="Primary sources, cited")
    dates: Dates = Dates()
    engines: list[EngineScope] = Field(
        default_factory=list, description="Affected engines and libraries, one range each"
    )
    engine: EngineScope | None = Field(default=None, description="One-engine form (legacy)")
    settings: list[SettingFact] = Field(
        default_factory=list, description="Settings that expose, mitigate or detect it"
    )
    exposed_if: list[AnswerCondition] = Field(
        default_factory=list, description="Questionnaire answers that expose a deployment"
    )
    unconfirmed: list[str] = Field(
        default_factory=list, description="What the sources did not confirm"
    )
    not_checked: str = Field(
        default="",
        description="Why `score` cannot check it (no question covers it); empty: it is checked",
    )
    platform: str = ""
    platforms: list[Platform] = Field(
        default_factory=list,
        description="The deployment(s) the incident is about and how logs identify them; "
        "empty: rows are not bound to a platform",
    )
    published: date | None = None
    models: AdvisoryModels | None = None
    window: Window | None = None
    trigger: Trigger | None = None
    deployment: DeploymentFacts = DeploymentFacts()
    leaked_responses: int | None = Field(default=None, ge=0)
    fixed_on: date | None = None
    references: list[Reference] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if data.get("engine") is not None and not data.get("engines"):
            data["engines"] = [data["engine"]]
        dates = dict(data.get("dates") or {})
        for old, new in (("published", "disclosed"), ("fixed_on", "fixed")):
            if data.get(old) is not None and dates.get(new) is None:
                dates[new] = data[old]
            elif dates.get(new) is not None and data.get(old) is None:
                data[old] = dates[new]
        if dates:
            data["dates"] = dates
        return data

    @model_validator(mode="after")
    def _versions_ranged(self) -> Advisory:
        for cond in self.exposed_if:
            if cond.version_of and not self.engines_named(cond.version_of):
                raise ValueError(
                    f"exposed_if {cond.question}: version_of {cond.version_of!r} names no "
                    "entry of engines (give its affected range there)"
                )
        return self

    @property
    def has_scope(self) -> bool:
        """Return True when the advisory names models and a window (`scope` can use it)."""
        return self.models is not None and self.window is not None

    def engines_named(self, name: str) -> list[EngineScope]:
        """Return the affected ranges of engine ``name`` (compared lower-case)."""
        return [e for e in self.engines if e.name.lower() == name.lower()]
