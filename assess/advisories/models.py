"""Incident advisories: what an incident touched, when, and what triggered it."""

from __future__ import annotations

from datetime import UTC, date, datetime

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version
from pydantic import Field, field_validator, model_validator

from assess.kernel.model import Model


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


class EngineScope(Model):
    """The serving engine and versions an advisory names."""

    name: str
    affected: str = Field(description="PEP 440 specifier of affected versions, e.g. '<0.5.22'")
    fixed_version: str
    deployment_modes: list[str] = Field(default_factory=list)
    hardening_versions: list[str] = Field(default_factory=list)

    @field_validator("affected")
    @classmethod
    def _spec(cls, value: str) -> str:
        try:
            SpecifierSet(value)
        except InvalidSpecifier as exc:
            raise ValueError(f"not a version range: {value!r}") from exc
        return value

    @field_validator("fixed_version")
    @classmethod
    def _ver(cls, value: str) -> str:
        try:
            Version(value)
        except InvalidVersion as exc:
            raise ValueError(f"not a version: {value!r}") from exc
        return value

    def is_affected(self, version: str) -> bool:
        """Return True when ``version`` falls in the affected range.

        A pre-release of the fixed version (``0.5.22rc1`` when the fix is ``0.5.22``) counts as
        affected: PEP 440 leaves it outside ``<0.5.22``, but nothing says it carries the fix.

        Raises:
            packaging.version.InvalidVersion: if ``version`` is not a version string.
        """
        parsed, fixed = Version(version), Version(self.fixed_version)
        if parsed.is_prerelease and parsed.release == fixed.release and parsed < fixed:
            return True
        return SpecifierSet(self.affected).contains(parsed, prereleases=True)


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
    """One incident advisory (``advisories/<id>.yaml``)."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$")
    title: str
    summary: str
    platform: str
    platforms: list[Platform] = Field(
        default_factory=list,
        description="The deployment(s) the incident is about and how logs identify them; "
        "empty: rows are not bound to a platform",
    )
    published: date
    models: AdvisoryModels
    window: Window
    trigger: Trigger
    engine: EngineScope
    deployment: DeploymentFacts = DeploymentFacts()
    leaked_responses: int | None = Field(default=None, ge=0)
    fixed_on: date | None = None
    references: list[Reference] = Field(default_factory=list)
