"""What an advisory records beyond its scope data: sources, dates, engines and settings.

Every fact here is read from a primary source the advisory file cites (``sources``); what could
not be confirmed is said in the file's ``unconfirmed`` notes, never guessed.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version
from pydantic import Field, field_validator, model_validator

from assess.kernel.model import Model

SourceKind = Literal["postmortem", "cve", "ghsa", "pr", "issue", "paper", "docs", "release"]
BehaviourClass = Literal[
    "stale-kv-read", "prefix-cache-sharing", "transfer-race", "connection-reuse"
]
Verdict = Literal["affected", "not-affected", "cannot-tell"]
Scalar = bool | int | str


class Source(Model):
    """A primary source: the postmortem, the CVE or GHSA, the pull request, the paper."""

    kind: SourceKind
    url: str = Field(pattern=r"^https?://")
    title: str
    date: dt.date | None = Field(default=None, description="Its date, when the source gives one")


class Dates(Model):
    """When the problem was made public and when it was fixed (None: not recorded)."""

    disclosed: dt.date | None = None
    fixed: dt.date | None = None


def _version(value: str | None) -> str | None:
    if value is not None:
        try:
            Version(value)
        except InvalidVersion as exc:
            raise ValueError(f"not a version: {value!r}") from exc
    return value


def _spec(value: str) -> str:
    try:
        SpecifierSet(value)
    except InvalidSpecifier as exc:
        raise ValueError(f"not a version range: {value!r}") from exc
    return value


class EngineScope(Model):
    """One affected range of one engine or library (several entries may name the same one).

    ``affected`` is a PEP 440 range; when left out it is built from ``introduced`` and
    ``fixed_version`` (``>=introduced,<fixed_version``). ``uncertain`` names versions the sources
    do not settle (a fix merged, the first release carrying it not confirmed): they are neither
    affected nor clear, and a check says it cannot tell.
    """

    name: str
    affected: str = Field(default="", description="PEP 440 range of affected versions")
    introduced: str | None = Field(default=None, description="First affected version, if known")
    fixed_version: str | None = Field(default=None, description="First fixed version; None: none")
    uncertain: str = Field(default="", description="PEP 440 range the sources do not settle")
    fixed_commit: str | None = Field(default=None, description="The fix's commit, when known")
    deployment_modes: list[str] = Field(default_factory=list)
    hardening_versions: list[str] = Field(default_factory=list)

    @field_validator("introduced", "fixed_version")
    @classmethod
    def _ver(cls, value: str | None) -> str | None:
        return _version(value)

    @field_validator("affected", "uncertain")
    @classmethod
    def _range(cls, value: str) -> str:
        return _spec(value) if value else value

    @model_validator(mode="after")
    def _derive(self) -> EngineScope:
        if not self.affected:
            parts = [f">={self.introduced}"] if self.introduced else []
            parts += [f"<{self.fixed_version}"] if self.fixed_version else []
            if not parts:
                raise ValueError("give affected, or introduced and/or fixed_version")
            object.__setattr__(self, "affected", ",".join(parts))
        spec = SpecifierSet(self.affected)
        if self.fixed_version and spec.contains(self.fixed_version, prereleases=True):
            raise ValueError(f"fixed_version {self.fixed_version} is inside {self.affected!r}")
        if self.introduced and not spec.contains(self.introduced, prereleases=True):
            raise ValueError(f"introduced {self.introduced} is outside {self.affected!r}")
        return self

    def is_affected(self, version: str) -> bool:
        """Return True when ``version`` falls in the affected range.

        A pre-release of the fixed version (``0.5.22rc1`` when the fix is ``0.5.22``) counts as
        affected: PEP 440 leaves it outside ``<0.5.22``, but nothing says it carries the fix.

        Raises:
            packaging.version.InvalidVersion: if ``version`` is not a version string.
        """
        parsed = Version(version)
        if self.fixed_version is not None:
            fixed = Version(self.fixed_version)
            if parsed.is_prerelease and parsed.release == fixed.release and parsed < fixed:
                return True
        return SpecifierSet(self.affected).contains(parsed, prereleases=True)

    def verdict(self, version: str) -> Verdict:
        """Return affected, not-affected, or cannot-tell (a version the sources do not settle).

        Raises:
            packaging.version.InvalidVersion: if ``version`` is not a version string.
        """
        if self.is_affected(version):
            return "affected"
        if self.uncertain and SpecifierSet(self.uncertain).contains(version, prereleases=True):
            return "cannot-tell"
        return "not-affected"

    def range_text(self) -> str:
        """Return the range for people: ``sglang <0.5.22 (disaggregated); fixed in 0.5.22``."""
        modes = ", ".join(self.deployment_modes) or "any"
        fixed = f"fixed in {self.fixed_version}" if self.fixed_version else "no fixed version"
        unsure = f"; cannot tell {self.uncertain}" if self.uncertain else ""
        return f"{self.name} {self.affected} ({modes}); {fixed}{unsure}"


class SettingFact(Model):
    """A setting that exposes, mitigates or detects the problem, as the engine names it.

    ``setting`` is the name a startup log prints (SGLang ``server_args=ServerArgs(...)`` field,
    vLLM ``non-default args`` key) or, with ``where: request``, a request-body field. The fact
    holds when the setting has ``value`` (``values``: any of them), every setting in ``when`` has
    one of its listed values, and the engine version is in ``versions`` (empty: every version).
    """

    engine: str
    setting: str
    where: Literal["server", "request"] = "server"
    values: list[Scalar | None] = Field(min_length=1, description="The value(s) with this effect")
    effect: Literal["exposes", "mitigates", "detects"]
    default: Scalar | None = Field(
        default=None, description="The engine's default when the log leaves it out (None: unknown)"
    )
    when: dict[str, list[Scalar | None]] = Field(
        default_factory=dict, description="Other settings that must hold too"
    )
    versions: str = Field(default="", description="PEP 440 range where this holds; empty: all")
    note: str = ""
    source: str = Field(default="", description="Where the fact was read")

    @field_validator("versions")
    @classmethod
    def _range(cls, value: str) -> str:
        return _spec(value) if value else value

    def holds_for(self, version: str | None) -> bool | None:
        """Return whether the fact holds for engine ``version`` (None: unknown or not a version).

        A fact without ``versions`` holds for every version, known or not.
        """
        if not self.versions:
            return True
        if version is None:
            return None
        try:
            parsed = Version(version)
        except InvalidVersion:
            return None
        return SpecifierSet(self.versions).contains(parsed, prereleases=True)


class AnswerCondition(Model):
    """A vendor answer that exposes a deployment to the advisory (``score`` reads these).

    The answer to ``question`` being one of ``values`` is the exposing condition; with
    ``version_of`` instead, the answer is a version and the condition holds when it falls in the
    advisory's ranges of that engine or library (its ``engines`` entries of that name: the same
    ranges, pre-release and "cannot tell" rules as an engine's). Several conditions on one
    advisory must all hold.
    """

    question: str
    values: list[Scalar] = Field(default_factory=list)
    version_of: str = Field(
        default="", description="The answer is a version of this engine or library (its ranges)"
    )
    note: str = ""

    @model_validator(mode="after")
    def _one_test(self) -> AnswerCondition:
        if bool(self.values) == bool(self.version_of):
            raise ValueError(f"{self.question}: give exactly one of values, version_of")
        return self
