"""Whether evidence is of the time assessed: its dates against the answers' date or a period.

The rule (docs and README say the same):

- with a stated period (``--period FROM..TO``), evidence is *current* when its dates overlap the
  period and *stale* when it ended before FROM or began after TO;
- without one, evidence is *stale* when it ended more than ``scoring.evidence_max_age_days``
  (questionnaire data, 30 in the shipped one) before the answers' date: the vendor's claims are
  as of that date, and a deployment seen long before may since have changed. Evidence from after
  the answers' date tests the claims as made: current;
- evidence without a usable date (a probe without ``started_at``, a vLLM log whose timestamps
  print no year) is *undated*: shown as such, and it scores like current evidence.

Stale evidence is shown, labelled, and does not score unless the user vouches for it
(``--evidence-for-vendor``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal

from assess.kernel.errors import UsageError

Freshness = Literal["current", "stale", "undated"]


@dataclass(frozen=True)
class Period:
    """An assessment period, both ends included."""

    start: dt.date
    end: dt.date

    def __str__(self) -> str:
        return f"{self.start.isoformat()}..{self.end.isoformat()}"


def parse_period(text: str) -> Period:
    """Parse ``YYYY-MM-DD..YYYY-MM-DD`` (both ends included).

    Raises:
        UsageError: when it is not two ISO dates joined by '..', or the end is before the start.
    """
    first, sep, last = text.strip().partition("..")
    try:
        if not sep:
            raise ValueError(text)
        period = Period(dt.date.fromisoformat(first.strip()), dt.date.fromisoformat(last.strip()))
    except ValueError:
        raise UsageError(
            f"--period '{text}': expected FROM..TO, two dates",
            "For example: --period 2026-09-01..2026-09-30",
        ) from None
    if period.end < period.start:
        raise UsageError(f"--period '{text}': ends before it starts", "Give FROM..TO in order.")
    return period


def date_of(stamp: str) -> dt.date | None:
    """Return the date of an ISO 8601 date or date-time ('...Z' fine), None when it is none."""
    text = stamp.strip()
    if not text:
        return None
    try:
        return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).date()
    except ValueError:
        try:
            return dt.date.fromisoformat(text[:10])
        except ValueError:
            return None


def judge(
    dates: tuple[dt.date, dt.date] | None,
    answered_on: dt.date,
    max_age_days: int,
    period: Period | None = None,
) -> tuple[Freshness, str]:
    """Return whether evidence spanning ``dates`` (first, last) is current, stale or undated,
    and why (see the module's rule)."""
    if dates is None:
        return "undated", "the evidence carries no date, so its age is not known"
    first, last = dates
    span = first.isoformat() if first == last else f"{first.isoformat()}..{last.isoformat()}"
    if period is not None:
        if last < period.start or first > period.end:
            return "stale", f"dated {span}, outside the stated period {period}"
        return "current", f"dated {span}, within the stated period {period}"
    oldest = answered_on - dt.timedelta(days=max_age_days)
    if last < oldest:
        return "stale", (
            f"dated {span}, more than {max_age_days} days before the answers "
            f"({answered_on.isoformat()}): the deployment may have changed since"
        )
    return "current", (
        f"dated {span}, at most {max_age_days} days before the answers "
        f"({answered_on.isoformat()}) or after them"
    )
