"""How a run read its files: the preset of each file and why, and where every field came from.

Computed from the first :data:`EXAMINED` records of each file, read again by the reference
reader (envelopes unwrapped, JSON strings decoded as the run does), so the answer is the same
whichever path (columnar or record by record) read the file, and costs one short read per file.
Values are redacted: ids keep their first characters, prompts and responses show only their size.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from assess.scope.logs.candidates import alternatives
from assess.scope.logs.formats import Bad
from assess.scope.logs.paths import MISSING, get_path
from assess.scope.logs.presets import CANONICAL_FIELDS, Detect, Preset
from assess.scope.models import DetectMatch, FieldReading, FileReading

if TYPE_CHECKING:
    from assess.scope.logs.engine import LogReader

#: Records examined per file; with many files fewer each (never under 50), so a run over a
#: thousand files does not read a million records twice.
ChosenBy = Literal["auto", "--preset", "--map", "inferred"]

EXAMINED = 1000
EXAMINED_IN_ALL = 20_000
_IDS = ("request_id", "account_id", "session_id")
_TEXTS = ("prompt", "response")


def redact(name: str, value: Any) -> str | None:
    """Return ``value`` of the canonical field ``name`` as a redacted example."""
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    if name in _TEXTS:
        return f"<{len(text):,} characters>"
    if name in _IDS:
        return text[:3] + "***" if len(text) > 3 else "***"
    return text if len(text) <= 40 else text[:37] + "..."


def rule_match(
    preset: Preset, records: Sequence[Any], shapes: Sequence[Shape] | None = None
) -> DetectMatch:
    """Return the best-fitting detect rule of ``preset`` (its join's too) on ``records``.

    ``shapes``: the :func:`shape` of each record, when the caller matches several presets.
    """
    if shapes is None:
        shapes = [shape(r) for r in records]
    rules = [*preset.detect, *([preset.join.detect] if preset.join else [])]
    best: DetectMatch | None = None
    for rule in rules:
        match = _match(preset.id, rule, records, shapes)
        if best is None or _rank(match) > _rank(best):
            best = match
    assert best is not None
    return best


#: A record's top-level keys in order (None when it is not an object): records of one export
#: share a few shapes, and a rule of plain keys answers the same for every record of a shape.
Shape = tuple[str, ...] | None


def shape(record: Any) -> Shape:
    """Return the :data:`Shape` of ``record``."""
    return tuple(record) if isinstance(record, dict) else None


def _rank(match: DetectMatch) -> tuple[int, int]:
    return match.records_matched, len(match.fields_matched)


def _match(
    preset_id: str, rule: Detect, records: Sequence[Any], shapes: Sequence[Shape]
) -> DetectMatch:
    spellings = {s for path in (*rule.all_of, *rule.any_of) for s in alternatives(path)}
    # a plain key (no dot) is found in an object by its keys alone: answers are kept per shape
    by_shape = all("." not in s for s in spellings)
    fits_of: dict[Shape, bool] = {}
    fits = []
    for record, keys in zip(records, shapes, strict=True):
        if by_shape and keys is not None:
            fit = fits_of.get(keys)
            if fit is None:
                fit = fits_of[keys] = rule.matches(record)
        else:
            fit = rule.matches(record)
        fits.append(fit)
    hits = [i for i, fit in enumerate(fits) if fit]
    seen: set[str] = set()
    done: set[Shape] = set()
    for index in hits or range(min(1, len(records))):
        keys = shapes[index]
        if by_shape and keys is not None:
            if keys in done:
                continue
            done.add(keys)
        seen.update(rule.present(records[index]))
        if len(seen) == len(spellings):  # every spelling seen: later records add nothing
            break
    misfit = next((records[i] for i, fit in enumerate(fits) if not fit), None)
    return DetectMatch(
        preset=preset_id,
        form=rule.name or "records",
        records_matched=len(hits),
        fields_matched=sorted(seen),
        missing=rule.missing(misfit) if misfit is not None else [],
    )


def closest(records: Sequence[Any], catalogue: Mapping[str, Preset], n: int = 3) -> list[str]:
    """Return the ``n`` presets whose rules come nearest to ``records``, each with what it
    lacks, as text for the refusal message (``langfuse (missing: type)``)."""
    found = []
    keys = [shape(r) for r in records]
    for preset in catalogue.values():
        if preset.id == "canonical":
            continue
        match = rule_match(preset, records, keys)
        if match.fields_matched:  # a preset sharing no field is not close
            found.append((len(match.fields_matched), match))
    found.sort(key=lambda item: -item[0])
    return [
        f"{m.preset} (has {', '.join(m.fields_matched) or 'none of its fields'}; "
        f"missing: {', '.join(m.missing) or 'nothing'})"
        for _, m in found[:n]
    ]


def field_readings(
    preset: Preset, records: Iterable[Any], side: bool = False
) -> list[FieldReading]:
    """Return, for each canonical field of ``preset`` (its join's for a side table), the path
    that gave the value, how many records had one and the other candidate paths seen."""
    fields = preset.join.fields if side and preset.join else preset.fields
    records = list(records)
    out = []
    for name in CANONICAL_FIELDS:
        paths = fields.get(name)
        if not paths:
            continue
        columns = [_column(records, path) for path in paths]
        present = {p for p, column in zip(paths, columns, strict=True) if _any_key(column)}
        empty = () if side else preset.no_value.get(name, ())
        used, example = _givers(paths, columns, empty)
        example = redact(name, example) if example is not None else None
        source = used.most_common(1)[0][0] if used else None
        if source is None and not side and preset.join and name in preset.join.fields:
            source = f"(joined on {preset.join.key} = side table {preset.join.side_path})"
            used = Counter({source: sum(1 for r in records if _has(r, preset.join.key))})
        out.append(
            FieldReading(
                field=name,
                source=source,
                records_with_value=sum(used.values()),
                by_path=dict(used.most_common()),
                other_paths_seen=sorted(present - {source} if source else present),
                example=example,
            )
        )
    return out


def _column(records: list[Any], path: str) -> list[Any]:
    """Return the value at ``path`` of each record (:data:`MISSING` where it has none)."""
    if "." in path:
        return [get_path(r, path) for r in records]
    # get_path's answer for a plain key of an object, without the call
    return [r.get(path, MISSING) if isinstance(r, dict) else get_path(r, path) for r in records]


def _any_key(column: list[Any]) -> bool:
    return any(value is not MISSING for value in column)


def _givers(
    paths: list[str], columns: list[list[Any]], no_value: Sequence[str] = ()
) -> tuple[Counter[str], Any]:
    """Return how many records got their value from each path (the first path with a value that
    is not null, "" or a placeholder in ``no_value``), in the order the paths first gave one,
    and the first value given."""
    used: Counter[str] = Counter()
    example = None
    if no_value:
        columns = [[MISSING if v in no_value else v for v in column] for column in columns]
    if len(paths) == 1:
        given = [v for v in columns[0] if v is not MISSING and v is not None and v != ""]
        if given:
            used[paths[0]] = len(given)
            example = given[0]
        return used, example
    for row in zip(*columns, strict=True):
        for path, value in zip(paths, row, strict=True):
            if value is not MISSING and value is not None and value != "":
                used[path] += 1
                if example is None:
                    example = value
                break
    return used, example


def _has(record: Any, path: str) -> bool:
    value = get_path(record, path)
    return value is not MISSING and value is not None and value != ""


def _head(reader: LogReader, path: Path, count: int) -> list[Any]:
    return [r for _, r in islice(reader.records(path), count) if not isinstance(r, Bad)]


def read_report(
    reader: LogReader, catalogue: Mapping[str, Preset], chosen_by: ChosenBy
) -> list[FileReading]:
    """Return how each file of ``reader`` was read (see the module docstring)."""
    preset = reader.preset
    count = max(50, min(EXAMINED, EXAMINED_IN_ALL // max(1, len(reader.files))))
    out = []
    for path in reader.files:
        records = _head(reader, path, count)
        side = preset.join is not None and any(preset.join.detect.matches(r) for r in records)
        if side and preset.join is not None:
            kept = [r for r in records if preset.join.detect.matches(r)]
        else:
            kept = [r for r in records if preset.non_request_reason(r) is None]
        keys = [shape(r) for r in records]
        others = [rule_match(p, records, keys) for p in catalogue.values() if p.id != preset.id]
        others.sort(key=_rank, reverse=True)
        out.append(
            FileReading(
                file=str(path),
                preset=preset.id,
                chosen_by=chosen_by,
                role="side table" if side else "requests",
                records_examined=len(records),
                detect=rule_match(preset, records, keys) if not reader.inference else None,
                runner_up=others[0] if others and others[0].fields_matched else None,
                fields=field_readings(preset, kept, side),
                inference=reader.inference.reading() if reader.inference else [],
            )
        )
    return out
