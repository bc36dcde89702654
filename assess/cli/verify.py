"""CLI for `assess verify DIR`: check a review folder against its manifest, as an auditor would."""

from __future__ import annotations

from pathlib import Path

import typer

HELP = """Verify a review folder written by `assess report`: re-hash every file its manifest.json
lists (the outputs in DIR; the inputs under --inputs, default the current folder, shipped samples
from the installation), check that the report.json attached to the PDF is report.json, that the
findings' points add up, and that the score recomputed from the recorded inputs (with the options
the manifest's command recorded) is the stated one.

Exit codes: 0 every check holds; 1 something differs (each difference listed); 2 bad usage (no
such folder, no manifest.json).

Example: assess verify assess-demo
"""


def register(app: typer.Typer) -> None:
    """Add the `verify` command to ``app``."""

    @app.command("verify", help=HELP)
    def verify_cmd(
        folder: Path = typer.Argument(..., metavar="DIR", help="The folder `assess report` wrote."),
        inputs: Path | None = typer.Option(
            None, "--inputs", metavar="FOLDER", help="Where the inputs are (default: here)."
        ),
        no_inputs: bool = typer.Option(
            False, "--no-inputs", help="Check the folder alone (no input hashes, no re-scoring)."
        ),
        json_out: str | None = typer.Option(
            None, "--json", metavar="PATH|-", help="Write the checks as JSON (- for stdout only)."
        ),
    ) -> None:
        from assess.kernel.atomic import write_text_or_stdout
        from assess.kernel.output import stdout_console, to_json
        from assess.report.verify import verify_review

        result = verify_review(folder, inputs, check_inputs=not no_inputs)
        if json_out is not None:
            write_text_or_stdout(json_out, to_json(result))
        if json_out != "-":
            console = stdout_console()
            for check in result.checks:
                mark = {"ok": "ok     ", "differs": "DIFFERS", "not-checked": "skipped"}
                console.print(
                    f"{mark[check.status]} {check.what}: {check.detail}",
                    markup=False,
                    soft_wrap=True,
                )
            failed = len(result.differs)
            console.print(
                f"verify {folder}: "
                + (f"{failed} difference(s)" if failed else "every check holds")
                + f" ({len(result.checks)} checks)",
                markup=False,
            )
        if result.differs:
            raise typer.Exit(1)
