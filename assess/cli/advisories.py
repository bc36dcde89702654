"""CLI for `assess advisories list|show`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from rich.table import Column, Table

from assess.kernel.tables import print_pairs, print_table

if TYPE_CHECKING:
    from assess.advisories.facts import EngineScope
    from assess.advisories.models import Advisory


def list_cmd(
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """List known advisories: class, affected engines, scope data.

    Example: assess advisories list
    """
    from assess.advisories.catalogue import load_advisories
    from assess.kernel.output import stdout_console, to_json

    catalogue = load_advisories()
    if json_out:
        rows = [_list_row(a) for a in catalogue.values()]
        document = {"schema_version": 1, "kind": "assess.advisories", "advisories": rows}
        typer.echo(to_json(document), nl=False)
        return
    # the id is what users copy into --incident: never wrapped or cut, whatever the width
    id_column = Column("id", no_wrap=True)
    table = Table(id_column, "class", "engines", "scope data", "title")
    for adv in catalogue.values():
        engines = "; ".join(_engine_text(e) for e in adv.engines) or "-"
        engines += " (not checked by score)" if adv.not_checked else ""
        table.add_row(adv.id, adv.behaviour or "-", engines, _scope_text(adv), adv.title)
    print_table(stdout_console(), table)


def _list_row(adv: Advisory) -> dict[str, object]:
    """One advisory in `list --json`: the keys of version 1 first, then what was added."""
    return {
        "id": adv.id,
        "title": adv.title,
        "platform": adv.platform,
        "behaviour": adv.behaviour,
        "disclosed": adv.dates.disclosed.isoformat() if adv.dates.disclosed else None,
        "fixed": adv.dates.fixed.isoformat() if adv.dates.fixed else None,
        "engines": [
            {
                "name": e.name,
                "affected": e.affected,
                "fixed_version": e.fixed_version,
                "uncertain": e.uncertain,
                "deployment_modes": list(e.deployment_modes),
            }
            for e in adv.engines
        ],  # fmt: skip
        "has_scope": adv.has_scope,
        "sources": [s.url for s in adv.sources],
        "not_checked": adv.not_checked,
    }


def _engine_text(engine: EngineScope) -> str:
    """An engine range for the list: ``sglang <0.5.22 (disaggregated)``; no mode: every mode."""
    modes = f" ({', '.join(engine.deployment_modes)})" if engine.deployment_modes else ""
    return f"{engine.name} {engine.affected}{modes}"


def _scope_text(adv: Advisory) -> str:
    if not adv.has_scope or adv.models is None or adv.window is None:
        return "none"
    where = f" on {adv.platform}" if adv.platform else ""
    window = f"{adv.window.start:%Y-%m-%d} .. {adv.window.end:%Y-%m-%d}"
    return f"{', '.join(adv.models.names)}{where}, {window}"


def show_cmd(
    advisory_id: str = typer.Argument(..., help="Advisory id, e.g. glm-5.3-kv-leak."),
    json_out: bool = typer.Option(False, "--json", help="Print the advisory as JSON."),
) -> None:
    """Show one advisory in full: sources, engines, settings, scope data.

    Example: assess advisories show glm-5.3-kv-leak
    """
    from assess.advisories.catalogue import get_advisory
    from assess.kernel.output import stdout_console, to_json

    adv = get_advisory(advisory_id)
    if json_out:
        document = {"schema_version": 1, "kind": "assess.advisory"}
        typer.echo(to_json({**document, **adv.model_dump(mode="json")}), nl=False)
        return
    console = stdout_console()
    console.print(f"[bold]{adv.id}[/bold]: {adv.title}")
    console.print(adv.summary, markup=False)
    # a record, not a table: labels in a column, values wrapped beside them; a URL longer than
    # the value column gets a line of its own (the table layout fell back to one blank-line
    # separated block per row whenever one URL did not fit)
    print_pairs(console, [*_facts(adv), *_scope_rows(adv), *_engine_rows(adv), *_cited(adv)])


def _facts(adv: Advisory) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = [("class", adv.behaviour or "-")]
    if adv.platform:
        rows.append(("platform", adv.platform))
    rows.append(("disclosed", str(adv.dates.disclosed or "not recorded")))
    rows.append(("fixed", str(adv.dates.fixed or "not recorded")))
    return rows


def _scope_rows(adv: Advisory) -> list[tuple[str, str]]:
    from assess.kernel.model_ids import normalise_model_id

    if adv.models is None or adv.window is None:
        return [("scope data", "none (`assess scope --incident` refuses this advisory)")]
    examples = ", ".join(f"{ex} -> {normalise_model_id(ex)}" for ex in adv.models.examples)
    rows = [
        ("models", ", ".join(adv.models.names)),
        ("matches ids like", examples or "-"),
        ("window (UTC, inclusive)", f"{adv.window.start.isoformat()} .. "
         f"{adv.window.end.isoformat()}"),
        ("trigger", f"prompt tokens > {adv.trigger.prompt_tokens_gt:,}" if adv.trigger
         else "none: any request in the window"),
    ]  # fmt: skip
    if adv.leaked_responses is not None:
        rows.append(("leaked responses (platform)", f"{adv.leaked_responses:,}"))
    return rows


def _engine_rows(adv: Advisory) -> list[tuple[str, str]]:
    rows = [("engine", e.range_text()) for e in adv.engines]
    for fact in adv.settings:
        when = ", ".join(f"{k} in {v}" for k, v in fact.when.items())
        cond = f" when {when}" if when else ""
        versions = f" ({fact.versions})" if fact.versions else ""
        values = " or ".join(str(v) for v in fact.values)
        rows.append(
            ("setting", f"{fact.engine} {fact.setting}={values}{cond}{versions}: {fact.effect}")
        )
    rows += [
        (
            "exposed if",
            f"{answer.question} in the {answer.version_of} ranges above"
            if answer.version_of
            else f"{answer.question} in {', '.join(map(str, answer.values))}",
        )
        for answer in adv.exposed_if
    ]
    return rows


def _cited(adv: Advisory) -> list[tuple[str, str]]:
    rows = [(f"source ({s.kind})", f"{s.title}: {s.url}") for s in adv.sources]
    cited = {s.url for s in adv.sources}
    rows += [("reference", f"{r.title}: {r.url}") for r in adv.references if r.url not in cited]
    rows += [("unconfirmed", note) for note in adv.unconfirmed]
    if adv.not_checked:
        rows.append(("not checked by score", adv.not_checked))
    return rows


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
