"""Vocabulary shared by every command: severities, evidence levels, findings, input hashes."""

from __future__ import annotations

import hashlib
from enum import StrEnum
from pathlib import Path

from pydantic import Field

from assess.kernel.errors import InputError, UsageError
from assess.kernel.model import Model


class Severity(StrEnum):
    """Finding severity, ordered: compare with :meth:`rank`."""

    INFO = "info"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        """Return 0 (info) .. 4 (critical)."""
        return _SEVERITY_ORDER.index(self)

    def at_least(self, other: Severity) -> bool:
        """Return True when this severity is ``other`` or worse."""
        return self.rank >= other.rank


_SEVERITY_ORDER = [Severity.INFO, Severity.LOW, Severity.MEDIUM, Severity.HIGH, Severity.CRITICAL]


def parse_fail_on(value: str) -> Severity:
    """Parse a ``--fail-on`` value.

    Raises:
        UsageError: naming the allowed values.
    """
    try:
        return Severity(value.strip().lower())
    except ValueError:
        allowed = ", ".join(s.value for s in _SEVERITY_ORDER)
        raise UsageError(
            f"--fail-on: '{value}' is not a severity", f"Use one of: {allowed}."
        ) from None


class EvidenceLevel(StrEnum):
    """How well a claim is backed, weakest first: attested < documented < verified."""

    ATTESTED = "attested"
    DOCUMENTED = "documented"
    VERIFIED = "verified"

    @property
    def rank(self) -> int:
        """Return 0 (attested) .. 2 (verified)."""
        return [EvidenceLevel.ATTESTED, EvidenceLevel.DOCUMENTED, EvidenceLevel.VERIFIED].index(
            self
        )


class Finding(Model):
    """One finding of any check, in the shape every renderer understands."""

    id: str = Field(description="Stable id, e.g. 'pool-smaller-than-context'")
    severity: Severity
    title: str
    detail: str = Field(default="", description="Why it matters, with the numbers")
    remediation: str = ""
    rests_on: list[str] = Field(
        default_factory=list, description="Question ids, node names or evidence it rests on"
    )
    evidence_level: EvidenceLevel | None = None
    source: str = Field(default="", description="Which check produced it: score, deploy-check...")


class InputFile(Model):
    """An input file as evidence: its path, size and SHA-256."""

    path: str
    bytes: int
    sha256: str


def hash_file(path: Path | str, chunk: int = 1 << 20) -> InputFile:
    """Return the size and SHA-256 of ``path``, read in chunks.

    Raises:
        InputError: if the file cannot be read.
    """
    p = Path(path)
    digest = hashlib.sha256()
    size = 0
    try:
        with p.open("rb") as handle:
            while block := handle.read(chunk):
                digest.update(block)
                size += len(block)
    except OSError as exc:
        raise InputError(f"{p}: cannot be read ({exc.strerror or exc})") from exc
    return InputFile(path=str(p), bytes=size, sha256=digest.hexdigest())
