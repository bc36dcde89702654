"""The time a document says it was made: ``SOURCE_DATE_EPOCH`` when set (reproducible builds),
else now. Shared by the review and the portfolio, so both are byte-identical under it."""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import UTC, datetime

from assess.kernel.errors import UsageError


def generation_time(environ: Mapping[str, str] | None = None) -> str:
    """Return the document's timestamp (ISO, UTC, seconds): SOURCE_DATE_EPOCH if set, else now.

    Raises:
        UsageError: when SOURCE_DATE_EPOCH is not an integer.
    """
    env = os.environ if environ is None else environ
    raw = env.get("SOURCE_DATE_EPOCH")
    if raw is None or not raw.strip():
        when = datetime.now(UTC)
    else:
        try:
            when = datetime.fromtimestamp(int(raw.strip()), UTC)
        except (ValueError, OverflowError, OSError):
            raise UsageError(
                f"SOURCE_DATE_EPOCH: '{raw}' is not a number of seconds since 1970",
                "Set it to an integer, e.g. SOURCE_DATE_EPOCH=$(git log -1 --format=%ct).",
            ) from None
    return when.replace(microsecond=0).isoformat().replace("+00:00", "Z")
