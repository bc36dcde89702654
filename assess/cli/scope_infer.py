"""`assess scope` for exports no preset recognises: the inferred mapping under `--explain`, and
`--suggest-preset FILE` writing it as a preset to edit."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from assess.kernel.tables import print_table

if TYPE_CHECKING:
    from assess.scope.models import FileReading

SUGGEST = typer.Option(
    None,
    "--suggest-preset",
    metavar="FILE",
    help="Write the mapping inferred from LOGS as a commented preset YAML to edit, and stop.",
)


def _score(score: float | None) -> str:
    return "-" if score is None else f"{score:g}"


def render_inference(reading: FileReading, console: Console) -> None:
    """Print each inferred field's paths, score and runner-up (`--explain`, preset inferred)."""
    if not reading.inference:
        return
    table = Table("field", "inferred path(s)", "score", "runner-up", "its score")
    for one in reading.inference:
        table.add_row(
            one.field,
            escape(", ".join(one.paths) or "- (not read: no clear path)"),
            _score(one.score),
            escape(one.runner_up or "-"),
            _score(one.runner_up_score),
        )
    console.print("  inferred from field names and value shapes (no preset fits):")
    print_table(console, table)


def suggest(logs: list[str], out: str, limits: dict[str, int]) -> None:
    """Write the suggested preset for ``logs`` to ``out`` (sampled within ``limits``:
    ``max_line_bytes``, ``max_inflate_ratio``) and exit 0."""
    from assess.kernel.output import stdout_console
    from assess.scope.logs import suggest_preset

    inference = suggest_preset(logs, Path(out), **limits)
    check = [f.field for f in inference.fields if f.ambiguous or not f.paths]
    console = stdout_console()
    console.print(f"wrote {escape(out)}: a preset inferred from {inference.records} records")
    if check:
        console.print(f"check before use (no clear winner): {escape(', '.join(check))}")
    console.print(f"use it: assess scope LOGS --preset {escape(out)} --explain")
    raise typer.Exit(0)
