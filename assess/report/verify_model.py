"""The result of `assess verify`: each check with whether it holds (``--json`` document)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from assess.kernel.model import Model

Status = Literal["ok", "differs", "not-checked"]
#: Whether the bundle's signature was checked: "verified" by a trusted key, "failed" (a wrong
#: key, a changed, added or removed file), "not-checked" (signed, but no key given), "unsigned".
Signature = Literal["verified", "failed", "not-checked", "unsigned"]


class Check(Model):
    """One thing verified."""

    what: str = Field(description="What was checked, e.g. 'output report.pdf'")
    status: Status
    detail: str = ""


class VerifyResult(Model):
    """The `assess verify --json` document: every check and whether all hold."""

    schema_version: int = 1
    kind: Literal["assess.verify"] = "assess.verify"
    folder: str
    checks: list[Check]
    signature: Signature = "unsigned"
    signed_by: str | None = Field(default=None, description="The keyid that verified it")

    @property
    def differs(self) -> list[Check]:
        """Return the checks that failed."""
        return [c for c in self.checks if c.status == "differs"]

    @property
    def cannot_check(self) -> list[Check]:
        """Return the checks that could not be made (an input not at hand, --no-inputs)."""
        return [c for c in self.checks if c.status == "not-checked" and c.what != "signature"]

    @property
    def proven(self) -> bool:
        """True when nothing differs, every check could be made, and a trusted key's signature
        covers every file."""
        return not self.differs and not self.cannot_check and self.signature == "verified"
