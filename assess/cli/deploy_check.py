"""CLI for `assess deploy-check`: can this self-hosted SGLang/vLLM deployment leak?"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.table import Table

from assess.kernel.tables import print_table, print_wrapped

if TYPE_CHECKING:
    from assess.deploy.models import DeployCheckResult, NodeReport

HELP = """Check SGLang/vLLM startup logs: does every node's KV pool cover the context it serves?

Reads each node's startup log (plain, gzip, or - for standard input), finds the engine, version,
role, KV pool and context length, and reports pool < context (critical on a disaggregated prefill
node), pool < --advertised-context, engine versions an advisory names, isolation settings left
off, and nodes that disagree. A log without a pool or a context length is inconclusive.

Exit codes: 0 pass; 1 a finding at or above --fail-on, or an inconclusive node; 2 bad input.

Example: assess deploy-check samples/serverlogs/sglang-prefill.log
samples/serverlogs/sglang-decode.log --advertised-context 1048576
"""


def register(app: typer.Typer) -> None:
    """Add the `deploy-check` command to ``app``."""

    @app.command("deploy-check", help=HELP)
    def deploy_check(
        logs: list[str] = typer.Argument(
            None, metavar="LOG...", help="Startup logs, one per node (.gz is fine; - is stdin)."
        ),
        node: list[str] = typer.Option(
            [], "--node", metavar="ROLE=LOG", help="Set a log's role: prefill, decode, aggregated."
        ),
        advertised_context: int | None = typer.Option(
            None, "--advertised-context", min=1, metavar="N", help="Context window you advertise."
        ),
        json_out: str | None = typer.Option(
            None, "--json", metavar="PATH|-", help="Write the JSON result (- for stdout only)."
        ),
        fail_on: str = typer.Option(
            "high", "--fail-on", metavar="SEVERITY", help="Exit 1 at this severity or worse."
        ),
        service: str = typer.Option(
            "", "--service", metavar="NAME", help="The service these logs are from (for score)."
        ),
        model: str = typer.Option(
            "", "--model", metavar="ID", help="The model these nodes serve (for score)."
        ),
    ) -> None:
        from assess.deploy.api import check_deployment
        from assess.kernel.atomic import write_text_or_stdout
        from assess.kernel.output import stdout_console, to_json

        result = check_deployment(
            logs or [],
            nodes=node,
            advertised_context=advertised_context,
            fail_on=fail_on,
            service=service,
            model=model,
        )
        if json_out is not None:
            write_text_or_stdout(json_out, to_json(result))
        if json_out != "-":
            render(result, stdout_console())
        if result.failed:
            raise typer.Exit(1)


def _cover(node: NodeReport) -> str:
    if node.pool_tokens is None or node.context_tokens is None:
        return "-"
    return f"{node.pool_tokens / node.context_tokens:.1%}"


def _num(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def about_line(result: DeployCheckResult) -> str:
    """Return 'about: ...': the service, models and time span the logs are evidence of."""
    about = result.about
    parts = [f"service {about.service}"] if about.service else []
    models = list(dict.fromkeys([*([about.model] if about.model else []), *about.models_seen]))
    parts.append(f"model {', '.join(models)}" if models else "no model named")
    period = about.period
    if period is None:
        parts.append("no timestamps")
    else:
        span = period.start if period.start == period.end else f"{period.start} to {period.end}"
        parts.append(f"logs {span}" + ("" if period.dated else " (no year printed)"))
    return "about: " + "; ".join(parts)


def _shown(value: object) -> str:
    if value is None or isinstance(value, bool):
        return {True: "on", False: "off", None: "none"}[value]
    return str(value)


def settings_line(node: NodeReport) -> str:
    """Return 'NODE settings (LINE): name value, ...; not shown in this log: ...'."""
    source = f" ({node.cache_settings_source})" if node.cache_settings_source else ""
    shown = ", ".join(f"{k} {_shown(v)}" for k, v in node.cache_settings.items())
    text = f"{node.name} settings{source}: {shown or 'none shown in this log'}"
    if node.cache_settings and node.cache_settings_not_shown:
        text += "; not shown in this log: " + ", ".join(node.cache_settings_not_shown)
    return text


def render(result: DeployCheckResult, console: Console) -> None:
    """Print the per-node table, the findings and the verdict."""
    table = Table("node", "engine", "version", "role", "KV pool", "context", "pool/context",
                  "verdict", title="Nodes")  # fmt: skip
    for n in result.nodes:
        role = n.role.value + (" (--node)" if n.role_from == "--node" else "")
        table.add_row(n.name, n.engine, n.version or "?", role, _num(n.pool_tokens),
                      _num(n.context_tokens), _cover(n), n.verdict.value)  # fmt: skip
    print_table(console, table)
    indent = " " * 9  # under the title, past the severity
    for n in result.nodes:
        if n.engine != "unknown":
            print_wrapped(console, settings_line(n), indent, first="")
        if n.reason:
            print_wrapped(console, f"{n.name}: inconclusive: {n.reason}", indent)
    for f in result.findings:
        print_wrapped(console, f.title, indent, first=f"{f.severity.value.upper():8} ")
        print_wrapped(console, f.detail, indent)
        if f.remediation:
            print_wrapped(console, f"fix: {f.remediation}", indent)
    print_wrapped(console, about_line(result), indent, first="")
    console.print(
        f"verdict: {result.verdict.value} (fail-on {result.fail_on.value}; "
        f"{len(result.findings)} finding(s), {len(result.nodes)} node(s))",
        markup=False,
    )
