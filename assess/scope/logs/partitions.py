"""Date-named folders outside the window are not read: hive partitions (``dt=2026-08-01/``,
``date=2026-08-01/``, ``year=2026/month=08/day=01/``, month or year alone) and date folders
(``2026-08-01/``, the layout LiteLLM's S3 logger writes:
``<s3_path>/[<team alias>/]<YYYY-MM-DD>/time-<HH-MM-SS-ffffff>_<id>.json``, the date of the
call's ``start_time``: ``get_s3_object_key`` in BerriAI/litellm ``litellm/integrations/s3.py``).

Only folders a glob or a prefix listing reached are read for dates (a file named in full is
always read), and only a folder's whole name counts (``incident-2026-08-01`` names no day). The
day a folder names is the writer's, in the writer's time zone (LiteLLM uses the proxy's local
start time), so a folder is skipped only when its days widened by :data:`MARGIN` on each side
miss the window: its neighbours are read. A key naming two days that disagree is read.
"""

from __future__ import annotations

import re
from calendar import monthrange
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from assess.scope.models import InputNote

#: Read around a folder's days: a writer in any time zone (UTC-12 to UTC+14) puts a record of a
#: window's edge in the day before or after it.
MARGIN = timedelta(days=1)
_DAY = re.compile(r"(?:(?:dt|date)=)?(\d{4})-(\d{2})-(\d{2})", re.IGNORECASE)
_PART = re.compile(r"(year|month|day)=(\d{1,4})", re.IGNORECASE)
_WILD = "*?["


def listed_part(pattern: str, name: str) -> str:
    """Return the part of ``name`` (a file the pattern matched) a glob or prefix reached: after
    the pattern's fixed folders; empty for a pattern without a wildcard naming one file."""
    body = pattern.split("://", 1)[-1]
    wild = [body.find(c) for c in _WILD if c in body]
    if wild:
        fixed = body[: min(wild)].rpartition("/")[0]
    elif body.endswith("/") or name.split("://", 1)[-1].rstrip("/") != body.rstrip("/"):
        fixed = body.rstrip("/")  # a prefix listed
    else:
        return ""
    tail = name.split("://", 1)[-1]
    return tail[len(fixed) :].lstrip("/") if tail.startswith(fixed) else ""


def folder_days(relative: str) -> tuple[date, date, str] | None:
    """Return (first day, last day, the folders naming them) of the folders of ``relative``,
    or None when they name no day, an impossible one, or two that disagree."""
    folders = relative.split("/")[:-1]
    spans: list[tuple[date, date]] = []
    parts: dict[str, int] = {}
    until = 0
    try:
        for at, folder in enumerate(folders):
            if found := _DAY.fullmatch(folder):
                day = date(int(found[1]), int(found[2]), int(found[3]))
                spans.append((day, day))
                until = at + 1
            elif (part := _PART.fullmatch(folder)) and part[1].lower() not in parts:
                parts[part[1].lower()] = int(part[2])
                until = at + 1
        if "year" in parts:
            spans.append(_hive_span(parts))
    except ValueError:
        return None
    if not spans:
        return None
    first, last = max(s[0] for s in spans), min(s[1] for s in spans)
    if first > last:
        return None
    return first, last, "/".join(folders[:until]) + "/"


def _hive_span(parts: dict[str, int]) -> tuple[date, date]:
    year = parts["year"]
    if "month" not in parts:
        return date(year, 1, 1), date(year, 12, 31)
    month = parts["month"]
    if "day" not in parts:
        return date(year, month, 1), date(year, month, monthrange(year, month)[1])
    day = date(year, month, parts["day"])
    return day, day


def outside(first: date, last: date, since: datetime, until: datetime) -> bool:
    """True when the days ``first``..``last``, widened by :data:`MARGIN`, miss the window."""
    start = datetime(first.year, first.month, first.day, tzinfo=UTC) - MARGIN
    end = datetime(last.year, last.month, last.day, tzinfo=UTC) + timedelta(days=1) + MARGIN
    return end <= _utc(since) or start > _utc(until)


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def prune(
    pattern: str, files: Sequence[Any], since: datetime, until: datetime
) -> tuple[list[Any], list[InputNote]]:
    """Return the files of ``pattern`` to read and one note per date folder not read (its
    objects and bytes counted)."""
    kept: list[Any] = []
    skipped: dict[str, list[Any]] = {}
    spans: dict[str, tuple[date, date]] = {}
    for file in files:
        name = str(file)
        found = folder_days(listed_part(pattern, name))
        if found is None or not outside(found[0], found[1], since, until):
            kept.append(file)
            continue
        folder = name[: len(name) - len(listed_part(pattern, name))] + found[2]
        skipped.setdefault(folder, []).append(file)
        spans[folder] = found[0], found[1]
    notes = []
    for folder, group in skipped.items():
        first, last = spans[folder]
        days = f"{first}" if first == last else f"{first} to {last}"
        size = sum(f.stat().st_size for f in group)
        notes.append(
            InputNote(
                path=folder,
                reason=f"a date folder outside the window ({window_text(since, until)}): "
                f"it names {days} (read when within a day of the window, for the writer's "
                f"time zone); {len(group):,} file(s), {size:,} bytes not read",
                objects=len(group),
                bytes=size,
            )
        )
    return kept, notes


def window_text(since: datetime, until: datetime) -> str:
    """Return the window as ``<since> to <until>`` in UTC."""
    return " to ".join(_utc(m).strftime("%Y-%m-%dT%H:%M:%SZ") for m in (since, until))
