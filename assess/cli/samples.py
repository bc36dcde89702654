"""CLI for `assess samples`: write the shipped samples where the docs' examples look for them."""

from __future__ import annotations

from pathlib import Path

import typer

HELP = """Write the shipped samples (vendors' answers, gateway logs, probe results, server startup
logs, a review file) into DIR in the repository's layout: DIR/vendors/, DIR/logs/, DIR/probes/,
DIR/serverlogs/, DIR/reviews/. After a pip or pipx install, `assess samples --out samples` makes
every example in the docs run as written. Files already there with the same content are kept;
different ones are only replaced with --force.

Example: assess samples --out samples
"""


def register(app: typer.Typer) -> None:
    """Add the `samples` command to ``app``."""

    @app.command("samples", help=HELP)
    def samples_cmd(
        out: Path = typer.Option(
            ..., "--out", "-o", metavar="DIR", help="Folder to write the samples into."
        ),
        force: bool = typer.Option(
            False, "--force", help="Replace files in DIR that differ from the samples."
        ),
    ) -> None:
        from assess.kernel.samples import write_samples

        done = write_samples(out, force=force)
        folders = ", ".join(f"{name}/ ({count})" for name, count in done.folders.items())
        kept = f", {len(done.unchanged)} already there" if done.unchanged else ""
        typer.echo(f"Wrote {len(done.written)} sample files to {out}{kept}: {folders}")
        typer.echo(f"Try: assess score {out / 'vendors' / 'well-run.yaml'}")
