"""CLI for `assess review new`: write a commented review.yaml (the governance of a review)."""

from __future__ import annotations

from pathlib import Path

import typer

from assess.cli.options import either, old_spelling
from assess.kernel.errors import UsageError

NEW_HELP = (
    "Write a commented review.yaml to fill in: report id and version, classification, scope and "
    "period, assessor / reviewer / approver, the decision and residual-risk acceptance, and the "
    "remediation plan. Give it to `assess report --review`.\n\n"
    "With --previous DIR (an earlier review) the plan lists that review's findings and exposure "
    "actions, with their owners and statuses, and its report id, classification and scope are "
    "kept (version, period, people and decision are new).\n\n"
    "Example: assess review new review.yaml --previous assess-demo"
)


def register(app: typer.Typer) -> None:
    """Add the `review` command group to ``app``."""
    group = typer.Typer(
        rich_markup_mode=None,  # plain help: typer.rich_utils costs a third of --help CPU
        name="review",
        help="The governance of a vendor review (who signs it, what was decided).",
        no_args_is_help=True,
    )

    @group.command("new", help=NEW_HELP)
    def new_cmd(
        path: Path = typer.Argument(Path("review.yaml"), metavar="[PATH]", help="File to write."),
        previous: Path | None = typer.Option(
            None,
            "--previous",
            metavar="DIR",
            help="An earlier review's folder (or report.json) whose items fill the plan.",
        ),
        force: bool = typer.Option(False, "--force", help="Overwrite PATH if it exists."),
        old_from: Path | None = old_spelling("--from", new="--previous", metavar="DIR"),
    ) -> None:
        """Write the review file template (see NEW_HELP)."""
        from assess.kernel.atomic import write_text
        from assess.report.review_template import from_review, review_template

        if path.exists() and not force:
            raise UsageError(
                f"{path}: exists already", "Give another PATH, or --force to overwrite it."
            )
        source = either(previous, old_from, "--previous")
        items, meta = from_review(source) if source is not None else (None, None)
        write_text(path, review_template(path.name, items, meta))
        typer.echo(f"Wrote {path}: replace every <...>, then run assess report --review {path}")

    app.add_typer(group)
