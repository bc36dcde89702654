"""CLI for `assess scope`: were we exposed? Request logs scoped against an incident advisory."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from assess.cli.scope_exposure import (
    _DISCLOSURE_CSV,
    _NOTIFICATION_PACK,
    MAX_INFLATE_RATIO,
    OWN_OVERLAP,
    PLATFORM_MEAN_TOKENS,
    PLATFORM_REQUESTS,
    PLATFORM_TOKENS,
    SERVED_BY,
    exposure_table,
    render_method,
    render_platform,
    require_logs,
    write_exposure_files,
)
from assess.cli.scope_infer import SUGGEST, suggest
from assess.cli.scope_reading import render_reading
from assess.kernel.errors import UsageError
from assess.kernel.tables import print_table

if TYPE_CHECKING:  # the command imports the scope core when it runs: `--help` does not
    from assess.scope.api import ScopeRun
    from assess.scope.models import ScopeResult

HELP = """Scope your exposure to an incident from your own request logs.

LOGS are files or globs (NDJSON/JSONL, JSON arrays, CSV, Parquet; gzip or zstd). Rows go through
a preset (--preset auto detects the gateway) into canonical fields; --map fixes anything else.

Received (affected): requests to the model on the advisory's platform, in the window, with prompt
tokens strictly over the trigger. Possibly affected: the same with unknown tokens, a platform that
cannot be told, a fallback count or a count near the trigger. Disclosed: the requests that could
have been read by a leak (docs/exposure.md); --platform-requests with --platform-tokens or
--platform-mean-tokens give the range of the chance that a leak carried our data.

Exit codes: 0 nothing affected or possibly affected (verdict not_affected); 1 affected or possibly
affected requests found; 2 bad usage or input, or logs that back no verdict (not_assessable:
most records skipped, timestamp or model read in under 90% of requests, or no request naming the
model while others are named; --json is still written).

Example: assess scope 'logs/*.ndjson.gz' --preset auto --ids-csv affected.csv --json scope.json

Where the logs live: s3://bucket/prefix/**/*.json.gz, gs://... and https:// URLs are streamed.
--emit-sql DIALECT writes the same scoping as a query for DuckDB, Spark, Athena, Trino or
BigQuery; --from-engine-results FILE turns its exported result into this command's output.
"""


def _ids_csv(run: ScopeRun) -> str:
    from assess.scope.ids import ids_csv_text, ids_rows

    return ids_csv_text(list(ids_rows(run.affected_rows())))


def render(result: ScopeResult, console: Console) -> None:
    """Print the summary tables (never prompt or response text)."""
    from assess.scope.filter import trigger_words

    f, c = result.filter, result.counts
    console.print(
        f"[bold]scope[/bold] {f.advisory_id or '(ad hoc)'}: models {', '.join(f.model_names)}, "
        f"{f.since.isoformat()} .. {f.until.isoformat()} (inclusive), "
        f"{trigger_words(f)}; preset {result.preset}"
        + (f"; served by {f.serving_platform}" if f.serving_platform else "")
    )
    render_platform(result, console)
    table = Table("count", "records", title="Records")
    for key, value in c.model_dump().items():
        table.add_row(key, f"{value:,}")
    table.add_row("(requests)", f"{result.breakdown.requests:,}")
    print_table(console, table)
    print_table(console, exposure_table(result))
    if result.per_day:
        console.print(
            "affected per day: " + ", ".join(f"{x.date}: {x.requests}" for x in result.per_day)
        )
    render_method(result, console)
    fd = result.candidate_foreign_data
    if fd.responses_checked:
        kinds = ", ".join(f"{k}: {v}" for k, v in fd.by_kind.items()) or "none"
        console.print(
            f"candidate foreign data: {fd.responses_flagged} of {fd.responses_checked} "
            f"responses hold identifiers absent from their own prompt ({kinds}); values not shown"
        )
        console.print(f"  not detected: {', '.join(fd.not_detected)}", markup=False)
    else:
        console.print("candidate foreign data: no response text logged for in-scope requests")
    if result.engine is not None:
        console.print(
            f"engine: {result.engine.dialect} ran the scoping query (definition "
            f"{result.engine.definition}); skipped records are counted by reason, without lines",
            markup=False,
        )
    for note in result.inputs_not_read[:10]:
        console.print(f"input not read: {note.path}: {note.reason}", markup=False)
    if len(result.inputs_not_read) > 10:
        console.print(
            f"... and {len(result.inputs_not_read) - 10:,} more (--json: inputs_not_read)"
        )
    if c.records_skipped:
        console.print(f"skipped {c.records_skipped:,} malformed records; first ones:")
        for skip in result.skipped[:10]:
            console.print(f"  {skip.file}:{skip.line}: {skip.reason}", markup=False)


# Options, named once here so the command's signature stays one line per option.
_LOGS = typer.Argument(None, help="Log files or globs (local, s3://, gs://, https://).")
_INCIDENT = typer.Option("glm-5.3-kv-leak", "--incident", help="Advisory id.")
_PRESET = typer.Option("auto", "--preset", help="Preset id, YAML file, or auto.")
_MAPPING = typer.Option(
    [], "--map", help="canonical=dotted.path, e.g. prompt_tokens=usage.input_tokens."
)
_MODEL = typer.Option([], "--model", help="Model id(s) replacing the advisory's.")
_SINCE = typer.Option(None, "--since", help="Window start (ISO, UTC default).")
_UNTIL = typer.Option(
    None,
    "--until",
    help="Window end, inclusive (a bare date means that whole day, its last instant included).",
)
_MIN_PROMPT_TOKENS = typer.Option(
    None, "--min-prompt-tokens", min=0, help="Trigger: prompt tokens strictly greater."
)
_IDS_CSV = typer.Option(
    None,
    "--ids-csv",
    help="Write affected/possibly affected request ids to this CSV, or - .",
)
_JSON_OUT = typer.Option(None, "--json", help="Write JSON to PATH, or - .")
_MAX_LINE_BYTES = typer.Option(
    16 << 20,
    "--max-line-bytes",
    min=1024,
    help="Skip (and list) NDJSON lines longer than this many bytes.",
)
_EXPLAIN = typer.Option(
    False,
    "--explain",
    help="Show how each file was read: the preset and why, each field's source path.",
)
_JOBS = typer.Option(
    None,
    "--jobs",
    min=0,
    help="Processes reading the files (0: one per core; default: one per core for "
    "several files of 256 MiB or more in all). The result is the same.",
)
_EMIT_SQL = typer.Option(
    None,
    "--emit-sql",
    metavar="DIALECT",
    help="Write the scoping query for an engine (duckdb, spark, athena, trino, "
    "bigquery) to standard output instead of reading logs.",
)
_SOURCE_TABLE = typer.Option(
    "assess_logs", "--source-table", help="--emit-sql: the table of raw NDJSON lines."
)
_SOURCE_COLUMN = typer.Option(
    "line", "--source-column", help="--emit-sql: its column holding one line."
)
_FROM_ENGINE_RESULTS = typer.Option(
    None,
    "--from-engine-results",
    metavar="FILE",
    help="Scope the exported result (CSV, Parquet, JSON) of the --emit-sql query; a sharded "
    "one as its folder or a quoted glob.",
)


def scope_cmd(
    logs: list[str] = _LOGS,
    incident: str = _INCIDENT,
    preset: str = _PRESET,
    mapping: list[str] = _MAPPING,
    model: list[str] = _MODEL,
    since: str | None = _SINCE,
    until: str | None = _UNTIL,
    min_prompt_tokens: int | None = _MIN_PROMPT_TOKENS,
    platform_requests: int | None = PLATFORM_REQUESTS,
    ids_csv: str | None = _IDS_CSV,
    json_out: str | None = _JSON_OUT,
    platform_tokens: int | None = PLATFORM_TOKENS,
    platform_mean_tokens: int | None = PLATFORM_MEAN_TOKENS,
    disclosure_csv: str | None = _DISCLOSURE_CSV,
    notification_pack: str | None = _NOTIFICATION_PACK,
    served_by: str | None = SERVED_BY,
    own_overlap: bool = OWN_OVERLAP,
    max_line_bytes: int = _MAX_LINE_BYTES,
    max_inflate_ratio: int = MAX_INFLATE_RATIO,
    explain: bool = _EXPLAIN,
    jobs: int | None = _JOBS,
    emit_sql: str | None = _EMIT_SQL,
    source_table: str = _SOURCE_TABLE,
    source_column: str = _SOURCE_COLUMN,
    from_engine_results: str | None = _FROM_ENGINE_RESULTS,
    suggest_preset: str | None = SUGGEST,
) -> None:
    outputs = _one_stdout(ids_csv, json_out, disclosure_csv, notification_pack)
    platform: dict[str, Any] = {"platform_tokens": platform_tokens}
    platform |= {"platform_mean_tokens": platform_mean_tokens, "served_by": served_by}
    platform["own_overlap"] = own_overlap
    options: dict[str, Any] = {"incident": incident, "preset": preset, "mapping": mapping}
    options |= {"models": model, "since": since, "until": until}
    options["min_prompt_tokens"] = min_prompt_tokens
    if emit_sql is not None or from_engine_results is not None:
        _engine_mode(
            emit_sql,
            from_engine_results,
            logs or [],
            (source_table, source_column),
            options,
            (platform_requests, ids_csv, json_out),
            platform,
            outputs,
        )
    limits = {"max_line_bytes": max_line_bytes, "max_inflate_ratio": max_inflate_ratio}
    if suggest_preset is not None and logs:
        suggest(logs, suggest_preset, limits)
    require_logs(logs)
    run = _read(logs, options | limits, jobs=jobs, platform_requests=platform_requests, **platform)
    _finish(run, ids_csv, json_out, explain, outputs)


def _read(logs: list[str], options: dict[str, Any], **more: Any) -> Any:
    """Return the scope run of ``logs`` (``scope_run``), with a progress bar."""
    from assess.kernel.output import progress_bar
    from assess.scope.api import scope_run

    with progress_bar("scope") as progress:
        return scope_run(logs, **options, progress=progress, **more)


def register(app: typer.Typer) -> None:
    """Add the `scope` command to ``app``."""

    app.command("scope", help=HELP)(scope_cmd)


def _one_stdout(
    ids_csv: str | None, json_out: str | None, disclosure: str | None, pack: str | None
) -> dict[str, Any]:
    """Refuse two outputs to standard output; return the exposure files asked for."""
    if [ids_csv, json_out, disclosure].count("-") > 1:
        raise UsageError(
            "two of --ids-csv -, --json - and --disclosure-csv - would write to standard output",
            "Send all but one of them to a file.",
        )
    return {"disclosure": disclosure, "pack": pack}


def _engine_mode(
    dialect: str | None,
    results: str | None,
    logs: list[str],
    source: tuple[str, str],
    options: dict[str, Any],
    outputs: tuple[int | None, str | None, str | None],
    platform: dict[str, Any],
    extra: dict[str, Any],
) -> None:
    """--emit-sql: print the query; --from-engine-results: scope the engine's result. Exits."""
    from assess.scope.api import emit_sql as emit_query
    from assess.scope.api import scope_engine_run

    platform_requests, ids_csv, json_out = outputs
    if dialect is not None:
        if results is not None:
            raise UsageError(
                "--emit-sql writes a query, --from-engine-results reads its result",
                "Give one of them.",
            )
        query = emit_query(dialect, logs=logs, table=source[0], column=source[1], **options)
        typer.echo(query.sql, nl=False)
        raise typer.Exit(0)
    assert results is not None
    run = scope_engine_run(
        results, platform_requests=platform_requests, logs=logs, **options, **platform
    )
    _finish(run, ids_csv, json_out, False, extra)


def _finish(
    run: ScopeRun, ids_csv: str | None, json_out: str | None, explain: bool, extra: dict[str, Any]
) -> None:
    """Write the ids CSV, the exposure files (``extra``: disclosure CSV, notification pack) and
    JSON, print the tables (and how each file was read, with ``explain``), exit with the
    result's code."""
    from assess.kernel.atomic import write_text_or_stdout
    from assess.kernel.output import stderr_console, stdout_console, to_json

    result, disclosure = run.result, extra.get("disclosure")
    write_exposure_files(run, extra)
    if ids_csv is not None:
        write_text_or_stdout(ids_csv, _ids_csv(run))
    if json_out is not None:
        write_text_or_stdout(json_out, to_json(result))
    to_stdout = "-" in (json_out, ids_csv, disclosure)
    console = stderr_console() if to_stdout else stdout_console()
    if explain:
        render_reading(result, console)
    render(result, console)
    accounts = result.accounts_assessment
    if accounts.verdict == "not_assessable":  # the account counts above are no count at all
        stderr_console().print(f"accounts: NOT ASSESSABLE: {accounts.reason}", markup=False)
    render_duplicates(result)
    render_verdict(result, console)
    raise typer.Exit(result.exit_code)


def render_duplicates(result: ScopeResult) -> None:
    """Say on standard error which in-scope requests were logged more than once."""
    from assess.kernel.output import stderr_console

    dup, err = result.duplicates, stderr_console()
    if dup.requests:
        err.print(
            f"duplicates: {dup.requests:,} records repeat a request already counted (same "
            f"request id and content), counted once; e.g. {', '.join(dup.examples[:3])}",
            markup=False,
        )
    if dup.conflicts:
        err.print(
            f"conflicts: {dup.conflicts:,} records reuse a request id counted with other "
            f"content; both counted; e.g. {', '.join(dup.conflict_examples[:3])}",
            markup=False,
        )


def render_verdict(result: ScopeResult, console: Console) -> None:
    """Print the verdict; for ``not_assessable`` (to standard error) why, and the models seen."""
    from assess.kernel.output import stderr_console

    if result.verdict != "not_assessable":
        console.print(f"verdict: {result.verdict.replace('_', ' ')}", markup=False)
        return
    err = stderr_console()
    a = result.assessment
    err.print("verdict: NOT ASSESSABLE (exit 2): these logs back no all-clear", markup=False)
    for reason in a.reasons:
        err.print(f"  - {reason}", markup=False)
    if a.models_seen:
        table = Table("model (as logged)", "requests", title="Models seen (most requests first)")
        for seen in a.models_seen:
            table.add_row(escape(seen.model), f"{seen.requests:,}")
        print_table(err, table)
    err.print(
        "Check --preset and --map (`--explain` shows where each field was read), or --model "
        "when the advisory's model is logged under another id.",
        markup=False,
    )
