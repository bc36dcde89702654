"""The exposure part of `assess scope` (docs/exposure.md): its options, tables (received, possibly
affected, disclosed, served elsewhere), the method of the range, and the files written (the
disclosure CSV, the notification pack). Never prompt text."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.table import Table

from assess.kernel.errors import UsageError

if TYPE_CHECKING:
    from assess.scope.api import ScopeRun
    from assess.scope.models import ScopeFilter, ScopeResult

# The platform statement (N, V, who served): shared by `assess scope` and `assess report`, so
# both take the same names, meaning and bounds.
PLATFORM_REQUESTS = typer.Option(
    None, "--platform-requests", min=1, help="N: the provider's total requests in the window."
)
PLATFORM_TOKENS = typer.Option(
    None, "--platform-tokens", min=1, help="V: the provider's total tokens in the window."
)
PLATFORM_MEAN_TOKENS = typer.Option(
    None, "--platform-mean-tokens", min=1, help="V / N: the provider's mean tokens per request."
)
_DISCLOSURE_CSV = typer.Option(
    None,
    "--disclosure-csv",
    help="Write the requests that could have been read by a leak (the source set) to this CSV.",
)
_NOTIFICATION_PACK = typer.Option(
    None,
    "--notification-pack",
    metavar="DIR",
    help="Write per-account notification files and the method statement to DIR.",
)
OWN_OVERLAP = typer.Option(
    True,
    "--own-overlap/--no-own-overlap",
    help="Match our prompts in over-length responses (own_overlap); --no-own-overlap skips it "
    "(reported not assessable).",
)
# How the logs are read: shared too, and recorded by the review when not the default.
MAX_INFLATE_RATIO = typer.Option(
    1000,  # assess.scope.logs.compression.MAX_RATIO (not imported: `--help` stays light)
    "--max-inflate-ratio",
    min=1,
    help="Refuse a compressed log (gzip, zstd, xz, bzip2) that, past its first 32 MiB "
    "inflated, inflates to more than this many times its compressed size (a bomb).",
)
SERVED_BY = typer.Option(
    None,
    "--served-by",
    metavar="PLATFORM",
    help="State who served requests whose logs name no provider (e.g. workers-ai).",
)


def write_exposure_files(run: ScopeRun, extra: dict[str, Any]) -> None:
    """Write ``--disclosure-csv`` (``extra["disclosure"]``, ``-`` for standard output) and the
    ``--notification-pack`` folder (``extra["pack"]``)."""
    from assess.kernel.atomic import write_text, write_text_or_stdout
    from assess.kernel.errors import OutputError
    from assess.scope.disclosure import disclosure_csv_text
    from assess.scope.notify import notification_pack

    sources = run.accumulator.exposure.source_table()
    if extra.get("disclosure") is not None:
        write_text_or_stdout(extra["disclosure"], disclosure_csv_text(sources))
    if extra.get("pack") is not None:
        folder = Path(extra["pack"])
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # an existing file, no permission: one line, exit 2
            raise OutputError(f"{folder}: write failed ({exc.strerror or exc})") from exc
        for name, text in notification_pack(run.result, run.affected_rows(), sources).items():
            write_text(folder / name, text)


def exposure_table(result: ScopeResult) -> Table:
    """The exposure table: received, possibly affected and disclosed requests."""
    from assess.scope.filter import has_trigger

    a, p, d = result.affected, result.possibly_affected, result.disclosed
    estimate = (
        f"estimate from prompt text ({p.with_prompt_text:,}): over {p.estimate_over}, "
        f"crosses {p.estimate_crosses}, under {p.estimate_under}; "
        if has_trigger(result.filter)
        else ""
    )
    summary = Table("", "requests", "accounts", "no account", "detail", title="Exposure")
    summary.add_row(
        "received (affected)",
        f"{a.requests:,}",
        f"{len(a.accounts):,}",
        f"{a.unattributed:,}",
        f"{a.sessions:,} sessions; status "
        + (", ".join(f"{k}: {v}" for k, v in result.status.items()) or "-"),
    )
    summary.add_row(
        "possibly affected",
        f"{p.requests:,}",
        f"{len(p.accounts):,}",
        "",
        f"{estimate}status " + (", ".join(f"{k}: {v}" for k, v in p.status.items()) or "-"),
    )
    summary.add_row(
        "disclosed (could be read)",
        f"{d.requests:,}",
        f"{d.accounts:,}",
        f"{d.unattributed:,}",
        f"{d.prompt_tokens_total:,} prompt tokens over {d.prompt_tokens_known:,} known counts, "
        f"{d.output_tokens_total:,} output tokens over {d.output_tokens_known:,}; "
        f"platform not told for {d.platform_unknown:,}",
    )
    b = result.breakdown
    if b.served_elsewhere:
        by = ", ".join(f"{k}: {v}" for k, v in b.served_elsewhere_by_provider.items())
        summary.add_row(
            "served elsewhere (not affected)", f"{b.served_elsewhere:,}", "", "", f"by {by}"
        )
    return summary


def render_platform(result: ScopeResult, console: Console) -> None:
    """Say when the platform is not checked (``--model``), and when the export records no
    provider and the user stated none (``--served-by`` would tell)."""
    f = result.filter
    if f.advisory_id is not None and not f.platforms:
        console.print(f"platform: {platform_not_checked(f)}", markup=False)
    elif f.platforms and not f.provider_recorded and not f.serving_platform:
        console.print(
            f"platform: the {result.preset} export records no serving provider or endpoint: "
            "rows over the trigger stay possibly affected; if you know who served them, say so "
            "with --served-by PLATFORM (e.g. --served-by workers-ai)",
            markup=False,
        )


def platform_not_checked(f: ScopeFilter) -> str:
    """Why the platform is not checked: ``--model`` dropped the advisory's binding, or the
    advisory has none."""
    if f.models_given:
        return (
            "not checked: --model replaces the advisory's models and with them its platform "
            "binding, so rows on any platform count"
        )
    return f"not checked: {f.advisory_id} binds no platform, so rows on any platform count"


def render_method(result: ScopeResult, console: Console) -> None:
    """Print why rows are possibly affected, what left S, and the exposure range's method."""
    p, d = result.possibly_affected, result.disclosed
    for reason, n in p.by_reason.items():
        console.print(f"possibly affected, {reason}: {n:,}", markup=False)
    for reason, n in d.excluded.items():
        console.print(f"not a source, {reason}: {n:,}", markup=False)
    estimate = d.estimate
    if estimate is None:
        from assess.scope.estimate import no_range

        console.print(f"exposure range {no_range(result.filter)}", markup=False)
    elif not estimate.applies:
        console.print(f"exposure range {estimate.formula}", markup=False)
    else:
        console.print(
            f"exposure range (chance a leak carried our data): {estimate.formula}", markup=False
        )
        missing = {"lower:": estimate.lower is None, "upper:": estimate.upper is None}
        for item in estimate.assumptions:  # none of a bound not computed
            if not any(item.assumption.startswith(k) and gone for k, gone in missing.items()):
                console.print(f"  assumes {item.assumption} (biases {item.bias})", markup=False)
    own = result.own_overlap
    if own is not None:
        console.print(
            f"our prompts in over-length responses: {own.status.replace('_', ' ')}: {own.why}",
            markup=False,
        )


def require_logs(logs: list[str] | None) -> None:
    if not logs:
        raise UsageError(
            "scope: give LOGS (files or globs), --emit-sql DIALECT or --from-engine-results",
            "Example: assess scope 'logs/*.ndjson.gz'",
        )
