"""What the user states beside the logs, as options `assess scope` and `assess report` share:
about the platform, N, V (or V / N) and who served the rows whose logs name no provider
(``--platform-requests``, ``--platform-tokens``, ``--platform-mean-tokens``, ``--served-by``),
and how the logs are read (``--no-own-overlap``, ``--max-inflate-ratio``). The review records
them in its command so `assess verify` re-runs them (docs/exposure.md, docs/verify.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assess.scope.logs.compression import MAX_RATIO

#: option -> the statement's attribute, in the order the command line records them
OPTIONS = {
    "--platform-requests": "platform_requests",
    "--platform-tokens": "platform_tokens",
    "--platform-mean-tokens": "platform_mean_tokens",
    "--served-by": "served_by",
}
#: the reading options, recorded after the statement and only when not the default (a review
#: made without them records the command it always did)
NO_OWN_OVERLAP = "--no-own-overlap"
INFLATE = "--max-inflate-ratio"
READING = (NO_OWN_OVERLAP, INFLATE)


@dataclass(frozen=True)
class PlatformStatement:
    """The platform statement (None where not given) and the reading options."""

    platform_requests: int | None = None
    platform_tokens: int | None = None
    platform_mean_tokens: int | None = None
    served_by: str | None = None
    own_overlap: bool = True
    max_inflate_ratio: int = MAX_RATIO

    def given(self) -> bool:
        """Return True when any part was given (a reading option not at its default too)."""
        platform = any(getattr(self, name) is not None for name in OPTIONS.values())
        return platform or bool(self.reading_args())

    def kwargs(self) -> dict[str, Any]:
        """Return the statement as :func:`assess.scope.api.scope_run` keyword arguments."""
        named = {name: getattr(self, name) for name in OPTIONS.values()}
        return named | {
            "own_overlap": self.own_overlap,
            "max_inflate_ratio": self.max_inflate_ratio,
        }

    def args(self) -> list[str]:
        """Return the statement as command-line words (the options given, in a fixed order)."""
        words: list[str] = []
        for option, name in OPTIONS.items():
            value = getattr(self, name)
            if value is not None:
                words += [option, str(value)]
        return words + self.reading_args()

    def reading_args(self) -> list[str]:
        """Return the reading options not at their default, as command-line words."""
        words = [] if self.own_overlap else [NO_OWN_OVERLAP]
        if self.max_inflate_ratio != MAX_RATIO:
            words += [INFLATE, str(self.max_inflate_ratio)]
        return words

    @classmethod
    def from_words(cls, values: dict[str, str]) -> PlatformStatement:
        """Return the statement of recorded option values (option -> text, "" for a flag); a
        count that is not a whole number is kept out (the recomputed review then differs from
        the stated one), as is a ratio (the default is read instead)."""
        counts = {}
        for option, name in list(OPTIONS.items())[:3]:
            text = values.get(option)
            counts[name] = int(text) if text is not None and text.isdigit() else None
        ratio = values.get(INFLATE, "")
        return cls(
            **counts,
            served_by=values.get("--served-by"),
            own_overlap=NO_OWN_OVERLAP not in values,
            max_inflate_ratio=int(ratio) if ratio.isdigit() and int(ratio) else MAX_RATIO,
        )
