"""CLI for `assess advisories list|show`."""

from __future__ import annotations

import typer
from rich.table import Column, Table

from assess.kernel.tables import print_table


def list_cmd(
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """List known advisories.

    Example: assess advisories list
    """
    from assess.advisories.catalogue import load_advisories
    from assess.kernel.output import stdout_console, to_json

    catalogue = load_advisories()
    if json_out:
        typer.echo(
            to_json(
                {
                    "schema_version": 1,
                    "kind": "assess.advisories",
                    "advisories": [
                        {"id": a.id, "title": a.title, "platform": a.platform}
                        for a in catalogue.values()
                    ],
                }
            ),
            nl=False,
        )
        return
    # the id is what users copy into --incident: never wrapped or cut, whatever the width
    id_column = Column("id", no_wrap=True)
    table = Table(id_column, "platform", "window (UTC)", "models", "title")
    for adv in catalogue.values():
        table.add_row(
            adv.id,
            adv.platform,
            f"{adv.window.start:%Y-%m-%d} .. {adv.window.end:%Y-%m-%d}",
            ", ".join(adv.models.names),
            adv.title,
        )
    print_table(stdout_console(), table)


def show_cmd(
    advisory_id: str = typer.Argument(..., help="Advisory id, e.g. glm-5.3-kv-leak."),
    json_out: bool = typer.Option(False, "--json", help="Print the advisory as JSON."),
) -> None:
    """Show one advisory in full.

    Example: assess advisories show glm-5.3-kv-leak
    """
    from assess.advisories.catalogue import get_advisory
    from assess.kernel.model_ids import normalise_model_id
    from assess.kernel.output import stdout_console, to_json

    adv = get_advisory(advisory_id)
    if json_out:
        document = {"schema_version": 1, "kind": "assess.advisory"}
        typer.echo(to_json({**document, **adv.model_dump(mode="json")}), nl=False)
        return
    console = stdout_console()
    console.print(f"[bold]{adv.id}[/bold]: {adv.title}")
    console.print(adv.summary, markup=False)
    table = Table(show_header=False, box=None)
    table.add_row("platform", adv.platform)
    table.add_row("published", str(adv.published))
    table.add_row("models", ", ".join(adv.models.names))
    examples = ", ".join(f"{ex} -> {normalise_model_id(ex)}" for ex in adv.models.examples)
    table.add_row("matches ids like", examples or "-")
    table.add_row(
        "window (UTC, inclusive)",
        f"{adv.window.start.isoformat()} .. {adv.window.end.isoformat()}",
    )
    table.add_row("trigger", f"prompt tokens > {adv.trigger.prompt_tokens_gt:,}")
    modes = ", ".join(adv.engine.deployment_modes) or "any"
    table.add_row(
        "engine",
        f"{adv.engine.name} {adv.engine.affected} ({modes}); fixed in {adv.engine.fixed_version}",
    )
    if adv.leaked_responses is not None:
        table.add_row("leaked responses (platform)", f"{adv.leaked_responses:,}")
    for ref in adv.references:
        table.add_row("reference", f"{ref.title}: {ref.url}")
    print_table(console, table)


def register(app: typer.Typer) -> None:
    """Add the `advisories` group to ``app``."""
    group = typer.Typer(
        rich_markup_mode=None,  # plain help: typer.rich_utils costs a third of --help CPU
        help=(
            "Incident advisories shipped with assess (what an incident touched, when, and how)."
            "\n\nExample: assess advisories show glm-5.3-kv-leak"
        ),
        no_args_is_help=True,
    )

    group.command("list")(list_cmd)
    group.command("show")(show_cmd)

    app.add_typer(group, name="advisories")
