"""CLI for `assess questionnaire new|export|import|validate|schema|diff`."""

from __future__ import annotations

import datetime as dt
import json
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from assess.kernel.errors import UsageError

if TYPE_CHECKING:
    from assess.vendor.answers import AnswerSet

# The commands import what they use when they run: `--help` loads none of it.

_Q_HELP = "Questionnaire id or file (default: llm-inference-isolation)."


class SheetFormat(StrEnum):
    """Spreadsheet formats of `export`."""

    XLSX = "xlsx"
    CSV = "csv"


def answers_yaml(answers: AnswerSet) -> str:
    """Return checked answers as an answers file (YAML)."""
    import yaml

    body = {
        "schema_version": 1,
        "kind": "assess.answers",
        "questionnaire": answers.questionnaire,
        "vendor": answers.vendor,
        "date": answers.date,
        "answers": {
            qid: {k: v for k, v in a.model_dump(mode="json").items() if v != ""}
            for qid, a in answers.answers.items()
        },
    }
    head = f"# Imported from {answers.source}; check with: assess questionnaire validate FILE\n"
    return head + yaml.safe_dump(body, sort_keys=False, allow_unicode=True, width=100)


def _refuse_existing(out: str, force: bool) -> None:
    """Refuse to overwrite ``out`` (it may be a filled-in answers file or sheet) unless forced."""
    if out != "-" and Path(out).exists() and not force:
        raise UsageError(
            f"{out}: already exists (it may hold a vendor's answers)",
            "Choose another --out, or add --force to overwrite it.",
        )


def new_cmd(
    out: str = typer.Option(..., "--out", "-o", help="Answers file to write ('-': stdout)."),
    vendor: str = typer.Option("Vendor name", "--vendor", help="Vendor name to fill in."),
    date: str | None = typer.Option(
        None, "--date", help="Date of the answers, YYYY-MM-DD (default: today, UTC)."
    ),
    questionnaire: str | None = typer.Option(None, "--questionnaire", help=_Q_HELP),
    force: bool = typer.Option(False, "--force", help="Overwrite an existing file."),
) -> None:
    """Write a blank, commented answers file (every answer 'unknown').

    Example: assess questionnaire new --out answers.yaml --vendor "Example AI"
    """
    from assess.kernel.atomic import write_text_or_stdout
    from assess.vendor.bank import load_questionnaire
    from assess.vendor.template import answers_template

    try:
        day = dt.date.fromisoformat(date) if date else dt.datetime.now(dt.UTC).date()
    except ValueError:
        raise UsageError(f"--date: '{date}' is not a date", "Use YYYY-MM-DD.") from None
    _refuse_existing(out, force)
    bank = load_questionnaire(questionnaire)
    write_text_or_stdout(out, answers_template(bank, vendor, day))


def export_cmd(
    out: str = typer.Option(..., "--out", "-o", help="Spreadsheet to write ('-': stdout, csv)."),
    fmt: SheetFormat = typer.Option(SheetFormat.XLSX, "--format", help="xlsx or csv."),
    answers: Path | None = typer.Option(
        None, "--answers", help="Pre-fill the sheet with these answers."
    ),
    questionnaire: str | None = typer.Option(None, "--questionnaire", help=_Q_HELP),
    force: bool = typer.Option(False, "--force", help="Overwrite an existing file."),
) -> None:
    """Write the questionnaire as a spreadsheet to send to a vendor.

    Example: assess questionnaire export --format xlsx --out questionnaire.xlsx
    """
    from assess.kernel.atomic import write_bytes, write_text_or_stdout
    from assess.vendor.answers_file import load_answers_and_bank
    from assess.vendor.bank import load_questionnaire
    from assess.vendor.sheet_write import to_csv, to_xlsx

    _refuse_existing(out, force)
    if answers is not None:
        bank, given = load_answers_and_bank(answers, questionnaire)
    else:
        bank, given = load_questionnaire(questionnaire), None
    if fmt is SheetFormat.CSV:
        write_text_or_stdout(out, to_csv(bank, given))
    elif out == "-":
        raise UsageError("--out -: an xlsx workbook cannot go to stdout", "Give a file name.")
    else:
        write_bytes(out, to_xlsx(bank, given))


def import_cmd(
    sheet: Path = typer.Argument(..., help="The filled-in spreadsheet (xlsx or csv)."),
    out: str = typer.Option("-", "--out", "-o", help="Answers file to write ('-': stdout)."),
    questionnaire: str | None = typer.Option(None, "--questionnaire", help=_Q_HELP),
) -> None:
    """Read a filled-in spreadsheet back into an answers file (every problem at once).

    Example: assess questionnaire import filled.xlsx --out answers.yaml
    """
    from assess.kernel.atomic import write_text_or_stdout
    from assess.vendor.answers_file import load_answers
    from assess.vendor.bank import load_questionnaire

    if sheet.suffix.lower() not in {".xlsx", ".csv"}:
        raise UsageError(f"{sheet}: import reads .xlsx or .csv files", "Export one first.")
    checked = load_answers(sheet, load_questionnaire(questionnaire))
    write_text_or_stdout(out, answers_yaml(checked))


def validate_cmd(
    answers: Path = typer.Argument(..., help="Answers file: YAML, JSON, xlsx or csv."),
    questionnaire: str | None = typer.Option(None, "--questionnaire", help=_Q_HELP),
) -> None:
    """Check an answers file; report every problem at once (file:line: id: message).

    Example: assess questionnaire validate samples/vendors/evasive.yaml
    """
    from assess.kernel.output import stdout_console
    from assess.vendor.answers_file import load_answers_and_bank
    from assess.vendor.render import print_validation

    bank, checked = load_answers_and_bank(answers, questionnaire)
    print_validation(bank, checked, stdout_console())


def schema_cmd(
    questionnaire: str | None = typer.Option(None, "--questionnaire", help=_Q_HELP),
) -> None:
    """Print the JSON Schema of an answers file.

    Example: assess questionnaire schema > answers.schema.json
    """
    from assess.vendor.bank import load_questionnaire
    from assess.vendor.schema import answers_schema

    schema = answers_schema(load_questionnaire(questionnaire))
    typer.echo(json.dumps(schema, indent=2, ensure_ascii=False))


def diff_cmd(
    old: Path = typer.Argument(..., help="The earlier answers."),
    new: Path = typer.Argument(..., help="The later answers."),
    json_out: str | None = typer.Option(
        None, "--json", help="Write the diff as JSON to this file ('-': stdout only)."
    ),
    questionnaire: str | None = typer.Option(None, "--questionnaire", help=_Q_HELP),
) -> None:
    """Show what changed between two attestations (engine upgrades, controls dropped).

    Example: assess questionnaire diff samples/vendors/incident-like.yaml answers-2026-11.yaml
    """
    from assess.advisories.catalogue import load_advisories
    from assess.kernel.atomic import write_text_or_stdout
    from assess.kernel.output import stdout_console, to_json
    from assess.vendor.answers_file import load_answers, load_answers_and_bank
    from assess.vendor.diff import diff_answers
    from assess.vendor.render import print_diff

    bank, before = load_answers_and_bank(old, questionnaire)
    after = load_answers(new, bank)
    result = diff_answers(bank, before, after, load_advisories())
    if json_out is not None:
        write_text_or_stdout(json_out, to_json(result))
    if json_out != "-":
        print_diff(result, stdout_console())


def register(app: typer.Typer) -> None:
    """Add the `questionnaire` group to ``app``."""
    group = typer.Typer(
        rich_markup_mode=None,  # plain help: typer.rich_utils costs a third of --help CPU
        help=(
            "The vendor questionnaire: blank answers files, spreadsheets, checks and diffs.\n\n"
            'Example: assess questionnaire new --out answers.yaml --vendor "Example AI"'
        ),
        no_args_is_help=True,
    )

    group.command("new")(new_cmd)
    group.command("export")(export_cmd)
    group.command("import")(import_cmd)
    group.command("validate")(validate_cmd)
    group.command("schema")(schema_cmd)
    group.command("diff")(diff_cmd)

    app.add_typer(group, name="questionnaire")
