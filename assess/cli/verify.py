"""CLI for `assess verify DIR`: check a review folder against its manifest, as an auditor would."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from assess.kernel.errors import UsageError

if TYPE_CHECKING:
    from assess.report.signing import PublicKey

HELP = """Verify a review folder written by `assess report`.

With --key PUB (or --trusted-keys FILE) the signature comes first: review.intoto.jsonl must be
signed by a trusted key, and every file in DIR must be one it lists, with the hash it lists: a
changed, added or removed file fails, whatever manifest.json says. Then every file the manifest
lists is re-hashed (the outputs in DIR; the inputs under --inputs, default the current folder,
shipped samples from the installation), the report.json attached to the PDF is compared with
report.json, the findings' points are added up, and the score is recomputed from the recorded
inputs (with the options the manifest's command recorded).

With every input at hand the whole review is rebuilt: the exposure (counts and ids), the
governance and the plan are compared, and report.json, report.html, report.oscal.json,
findings-register.xlsx and affected-requests.csv are rendered again and compared byte for byte.
An input that is not at hand is "cannot check" (skipped), never a difference.

Exit codes: 0 every check holds and a trusted key's signature covers every file; 1 something
differs (each difference listed), or the signature fails; 2 bad usage (no such folder, no
manifest.json), or not proven: something could not be checked (an input not at hand,
--no-inputs), or the bundle is unsigned or no key was given, so the files agree only with a
manifest anyone can rewrite.

Example: assess verify review --key committee.pub
"""

#: What an unchecked signature leaves unproven, printed in place of "every check holds".
UNPROVEN = (
    "the files agree with manifest.json, but that proves nothing about who wrote them: anyone "
    "who edits a file can re-hash the manifest. {why}"
)
_WHY = {
    "unsigned": "The bundle is unsigned (no review.intoto.jsonl); sign it with "
    "`assess report --sign KEY` and check it with --key PUB.",
    "not-checked": "The bundle is signed, but no key was given: check it with --key PUB or "
    "--trusted-keys FILE.",
}
_MARK = {"ok": "ok     ", "differs": "DIFFERS", "not-checked": "skipped"}


def _trusted(keys: list[Path], trusted_keys: Path | None) -> list[PublicKey]:
    from assess.report.signing import load_public_keys

    found: list[PublicKey] = []
    for path in [*keys, *([trusted_keys] if trusted_keys else [])]:
        found += load_public_keys(path)
    return found


def register(app: typer.Typer) -> None:
    """Add the `verify` command to ``app``."""

    @app.command("verify", help=HELP)
    def verify_cmd(
        folder: Path = typer.Argument(..., metavar="DIR", help="The folder `assess report` wrote."),
        key: list[Path] = typer.Option(
            [], "--key", metavar="PUB", help="A trusted public key (repeat for several)."
        ),
        trusted_keys: Path | None = typer.Option(
            None, "--trusted-keys", metavar="FILE", help="A file of trusted PEM public keys."
        ),
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

        if trusted_keys is not None and not trusted_keys.is_file():
            raise UsageError(f"--trusted-keys {trusted_keys}: no such file")
        trusted = _trusted(key, trusted_keys)
        result = verify_review(folder, inputs, check_inputs=not no_inputs, keys=trusted)
        if json_out is not None:
            write_text_or_stdout(json_out, to_json(result))
        if json_out != "-":
            console = stdout_console()
            for check in result.checks:
                console.print(
                    f"{_MARK[check.status]} {check.what}: {check.detail}",
                    markup=False,
                    soft_wrap=True,
                )
            failed, cannot = len(result.differs), len(result.cannot_check)
            if failed:
                verdict = f"{failed} difference(s)"
            elif cannot:
                verdict = (f"cannot check {cannot} item(s) (listed 'skipped'): nothing differs, "
                           "but what was not checked is not proven")  # fmt: skip
            elif result.proven:
                verdict = "every check holds, signed by a trusted key"
            else:
                verdict = "not proven: " + UNPROVEN.format(why=_WHY[result.signature])
            console.print(
                f"verify {folder}: {verdict} ({len(result.checks)} checks)",
                markup=False,
                soft_wrap=True,
            )
        if result.differs or result.signature == "failed":
            raise typer.Exit(1)
        if not result.proven:
            raise typer.Exit(2)
