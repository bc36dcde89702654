"""What the user states about the platform, beside the logs: N, V (or V / N) and who served the
rows whose logs name no provider. `assess scope` and `assess report` take the same options
(``--platform-requests``, ``--platform-tokens``, ``--platform-mean-tokens``, ``--served-by``);
the review records them in its command so `assess verify` re-runs them (docs/exposure.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: option -> the statement's attribute, in the order the command line records them
OPTIONS = {
    "--platform-requests": "platform_requests",
    "--platform-tokens": "platform_tokens",
    "--platform-mean-tokens": "platform_mean_tokens",
    "--served-by": "served_by",
}


@dataclass(frozen=True)
class PlatformStatement:
    """The platform statement; None where not given."""

    platform_requests: int | None = None
    platform_tokens: int | None = None
    platform_mean_tokens: int | None = None
    served_by: str | None = None

    def given(self) -> bool:
        """Return True when any part was given."""
        return any(value is not None for value in self.kwargs().values())

    def kwargs(self) -> dict[str, Any]:
        """Return the statement as :func:`assess.scope.api.scope_run` keyword arguments."""
        return {name: getattr(self, name) for name in OPTIONS.values()}

    def args(self) -> list[str]:
        """Return the statement as command-line words (the options given, in a fixed order)."""
        words: list[str] = []
        for option, name in OPTIONS.items():
            value = getattr(self, name)
            if value is not None:
                words += [option, str(value)]
        return words

    @classmethod
    def from_words(cls, values: dict[str, str]) -> PlatformStatement:
        """Return the statement of recorded option values (option -> text); a count that is not
        a whole number is kept out (the recomputed review then differs from the stated one)."""
        counts = {}
        for option, name in list(OPTIONS.items())[:3]:
            text = values.get(option)
            counts[name] = int(text) if text is not None and text.isdigit() else None
        return cls(**counts, served_by=values.get("--served-by"))
