"""The one exception hierarchy of assess.

Every error a user can cause derives from :class:`AssessError`. The CLI catches it once, prints
``message`` and ``advice`` as one paragraph and exits with code 2; ``--debug`` shows the traceback.
The core raises these and never prints or exits.
"""

from __future__ import annotations


class AssessError(Exception):
    """Base of every error assess reports to a user.

    Attributes:
        message: what went wrong, starting with the file or option it concerns.
        advice: what the user should do next (may be empty).
    """

    exit_code: int = 2

    def __init__(self, message: str, advice: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.advice = advice

    def __reduce__(self) -> tuple[type[AssessError], tuple[str, str]]:
        # rebuilt with its advice when it crosses a process boundary (parallel scope workers)
        return type(self), (self.message, self.advice)

    def render(self) -> str:
        """Return the one-paragraph text shown to the user."""
        if self.advice:
            return f"{self.message}\n{self.advice}"
        return self.message


class InputError(AssessError):
    """An input file is missing, unreadable or invalid (names file, line and field)."""


class UsageError(AssessError):
    """Options that cannot be used together or have impossible values."""


class CatalogueError(AssessError):
    """A shipped or user-supplied catalogue (questionnaire, advisory, preset) is invalid."""


class EndpointError(AssessError):
    """A remote endpoint could not be used (unreachable, auth failed, garbage replies)."""


class OutputError(AssessError):
    """An output file could not be written."""
