"""`assess scope --explain`: how each file was read (the preset and why, each field's path, and
the inferred mapping where no preset fits)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Column, Table

from assess.cli.scope_infer import render_inference
from assess.kernel.tables import print_table

if TYPE_CHECKING:
    from assess.scope.models import FileReading, ScopeResult


def render_reading(result: ScopeResult, console: Console) -> None:
    """Print how each file was read (`--explain`): preset and why, each field's path.

    Files read alike (same preset, role and detect rule, and the same runner-up: one shape, such
    as a gateway's one object per request) share one table: their records added up, each field's
    path the one that gave most values over them all."""
    groups: dict[tuple[object, ...], list[FileReading]] = {}
    for reading in result.reading:
        groups.setdefault(_shape(reading), []).append(reading)
    for readings in groups.values():
        _render_group(readings, console)
        render_inference(readings[0], console)


def _shape(reading: FileReading) -> tuple[object, ...]:
    d, r = reading.detect, reading.runner_up
    return (
        reading.preset,
        reading.role,
        reading.chosen_by,
        d.form if d else None,
        (r.preset, r.form) if r else None,
        tuple(f.field for f in reading.fields),
    )


def _render_group(readings: list[FileReading], console: Console) -> None:
    first, d, r = readings[0], readings[0].detect, readings[0].runner_up
    examined = sum(x.records_examined for x in readings)
    why = f"chosen by {first.chosen_by}"
    if d is not None:
        fits = sum(x.detect.records_matched for x in readings if x.detect)
        matched = sorted({p for x in readings if x.detect for p in x.detect.fields_matched})
        why += (
            f"; rule '{d.form}' fits {fits:,} of {examined:,} "
            f"records examined (fields: {', '.join(matched) or '-'})"
        )
    name = first.file
    if len(readings) > 1:
        name = f"{len(readings):,} files read alike ({first.file} .. {readings[-1].file})"
    console.print(
        f"[bold]{escape(name)}[/bold]: preset {first.preset} ({first.role}); {escape(why)}"
    )
    if r is not None:
        fit = sum(x.runner_up.records_matched for x in readings if x.runner_up)
        console.print(
            f"  runner-up {r.preset}: {fit:,} records fit "
            f"'{escape(r.form)}'; missing {escape(', '.join(r.missing) or '-')}"
        )
    # paths and examples fold onto more lines rather than being cut (what --explain shows)
    names = ("field", "path used", "records", "other paths seen", "example")
    table = Table(*(Column(n, overflow="fold") for n in names))
    for index, f in enumerate(first.fields):
        fields = [x.fields[index] for x in readings]
        used: Counter[str] = Counter()
        for one in fields:
            used.update(one.by_path)
        source = used.most_common(1)[0][0] if used else f.source
        seen = sorted({p for one in fields for p in one.other_paths_seen} - {source})
        table.add_row(
            f.field,
            escape(source or "-"),
            f"{sum(one.records_with_value for one in fields):,}",
            escape(", ".join(seen) or "-"),
            escape(next((one.example for one in fields if one.example), None) or "-"),
        )
    print_table(console, table)
