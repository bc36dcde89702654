"""CLI for `assess report` (the vendor review) and `assess demo` (the review of the samples)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from assess.cli.keys import PASSPHRASE_ENV, load_signing_key
from assess.cli.options import either, old_spelling, required
from assess.cli.scope_exposure import (
    MAX_INFLATE_RATIO,
    OWN_OVERLAP,
    PLATFORM_MEAN_TOKENS,
    PLATFORM_REQUESTS,
    PLATFORM_TOKENS,
    SERVED_BY,
)
from assess.kernel.resources import data_dir

if TYPE_CHECKING:  # the report core (pandas, weasyprint) is imported when a command runs
    from assess.report.files import Signing
    from assess.report.inputs import ReportRequest
    from assess.report.models import Report

#: the formats written without --format (assess.report.files.DEFAULT_FORMATS; a test holds them
#: equal)
DEFAULT_FORMATS = ("html", "pdf", "json")

#: The shipped samples `assess demo` reviews: an incident-like vendor and its evidence.
DEMO_VENDOR = "vendors/incident-like.yaml"
DEMO_LOGS = "logs/cloudflare-ai-gateway.ndjson"
DEMO_PROBE = "probes/leaky-lab.json"
DEMO_SERVERLOGS = ("serverlogs/sglang-prefill.log", "serverlogs/sglang-decode.log")
DEMO_INCIDENT = "glm-5.3-kv-leak"
DEMO_REVIEW = "reviews/incident-like.review.yaml"


REPORT_HELP = (
    "Write the vendor review: report.html, report.pdf (PDF/A-3b with report.json attached), "
    "report.json and manifest.json (SHA-256 of every input and output).\n\n"
    "Only the vendor's answers (--answers) are required: a missing input makes the review say "
    "plainly what was "
    "not assessed. With --logs, the received and possibly affected requests are listed in "
    "affected-requests.csv. Prompt and response text is redacted unless --include-prompts. "
    "With SOURCE_DATE_EPOCH set, report.json and manifest.json (and report.oscal.json and "
    "findings-register.xlsx, --format oscal,xlsx) are byte-identical across runs."
    "\n\n"
    "Example: assess report --answers answers.yaml --logs 'gw/*.jsonl.gz' "
    "--incident glm-5.3-kv-leak --probe probe.json --deploy-check deploy.json --out review"
)
DEMO_HELP = (
    "Review the shipped samples (an incident-like vendor, request logs for it, a probe of the "
    "leaky lab, the vendor's SGLang prefill/decode startup logs and an invented committee's "
    "review file) and print the paths written."
    "\n\n"
    "Example: assess demo --out assess-demo"
)


def command_line(req: ReportRequest, formats: tuple[str, ...]) -> list[str]:
    """Return the command as a canonical argument list, paths shown as in the review."""
    from assess.report.inputs import display_path

    def shown(path: Path | str) -> str:
        return display_path(path, req.cwd)

    args = ["assess", "report", "--answers", shown(req.questionnaire)]
    for log in req.logs:
        args += ["--logs", shown(log)]
    if req.incident:
        args += ["--incident", req.incident]
    if req.preset:
        args += ["--preset", req.preset]
    args += req.platform.args()  # recorded: verify re-runs the scope with them
    for probe in req.probes:
        args += ["--probe", shown(probe)]
    if req.deploy_check is not None:
        args += ["--deploy-check", shown(req.deploy_check)]
    for log in req.deploy_logs:
        args += ["--deploy-log", shown(log)]
    # Outputs are listed relative to the folder holding the manifest, and so is --out: two runs
    # into different folders give the same manifest.
    args += ["--out", ".", "--format", ",".join(formats)]
    if req.include_prompts:
        args.append("--include-prompts")
    if req.evidence_for_vendor:
        args.append("--evidence-for-vendor")
    if req.period is not None:
        args += ["--period", req.period]
    if req.review is not None:
        args += ["--review", shown(req.review)]
    if req.previous is not None:
        args += ["--previous", shown(req.previous)]
    if req.due_from_review_date:  # `assess demo`: recorded, so verify rebuilds the same plan
        args.append("--due-from-review-date")
    return args


def _warn_accounts(why: str | None) -> None:
    """Say on stderr, as `assess scope` does, that the logs cannot tell accounts (no count)."""
    if why:
        from assess.kernel.output import stderr_console

        stderr_console().print(f"accounts: NOT ASSESSABLE: {why}", markup=False)


def _warn_glyphs(report: Report) -> None:
    """Name on stderr the characters report.pdf shows as boxes (no installed font covers them)."""
    from assess.report.glyphs import glyph_warning
    from assess.report.html import render_html

    warning = glyph_warning(render_html(report, pdf=True))
    if warning:
        typer.echo(f"warning: {warning}", err=True)


def _writing_progress(formats: tuple[str, ...], out: Path) -> AbstractContextManager[Any]:
    """Return the progress shown while the review is written (stderr, a terminal only)."""
    from assess.kernel.output import logged_steps, step

    writing = f"writing the review ({', '.join(formats)})"
    if "pdf" in formats:  # most of the writing: a bar over WeasyPrint's rendering steps
        return logged_steps("weasyprint.progress", writing, 7)  # no path: the bar needs the width
    return step(f"{writing} to {out}")


def run_report(
    req: ReportRequest,
    out: Path,
    formats: tuple[str, ...],
    signing: Signing | None = None,
    force: bool = False,
) -> None:
    """Gather, build, write and print what was written (shared by `report` and `demo`).

    Raises:
        UsageError: ``out`` holds a review and not ``force`` (before anything is read).
        AssessError: from any input, or when an output cannot be written.
    """
    from assess.kernel.output import progress_bar
    from assess.report.api import review
    from assess.report.files import refuse_existing, write_review

    if not force:
        refuse_existing(out)
    # progress on stderr, only on a terminal: the inputs (a bar while logs are read), then the
    # writing (the PDF is most of a run's time)
    with progress_bar("reading the inputs and request logs") as progress:
        done = review(replace(req, progress=progress))
    report = done.report
    with _writing_progress(formats, out):
        args = (done.affected_rows, signing, force, done.notification_pack)
        written = write_review(report, out, formats, command_line(req, formats), *args)
    counts = ", ".join(f"{n} {s}" for s, n in report.scoring.severity_counts.items() if n)
    uncounted = [f for f in report.findings if not f.counted]
    if uncounted:  # listed in the review, resting on evidence the scoring left out
        counts += f"; {len(uncounted)} not counted: {uncounted[0].not_counted}"
    typer.echo(
        f"Vendor review of {report.vendor.name}: {report.tier.upper()} risk, score "
        f"{report.score}/100, {len(report.findings)} findings" + (f" ({counts})" if counts else "")
    )
    for item in report.not_assessed:
        typer.echo(f"Not assessed ({item.section}): {item.reason}")
    if report.notification is not None and not report.notification.available:
        typer.echo(f"Notification appendix not available: {report.notification.why_not}")
    _warn_accounts(report.exposure.accounts_unknown)
    gov = report.governance
    typer.echo(
        f"Status: {gov.status_text}"
        + (f" (report {gov.report_id} v{gov.version})" if gov.report_id else "")
        + ("" if gov.report_id else "; give --review review.yaml (see `assess review new`)")
    )
    typer.echo("Wrote:")
    for path in written.paths:
        typer.echo(f"  {path}")
    if "pdf" in formats:
        _warn_glyphs(report)
    if signing is not None:
        from assess.report.signing import keyid_of

        typer.echo(f"Signed by {keyid_of(signing.key.public_key())}: check with "
                   f"assess verify {out} --key PUB")  # fmt: skip
    for path in written.removed:
        typer.echo(f"Removed {path}: left by an earlier review, not part of this one")


# Options, named once here so the command's signature stays one line per option.
_ANSWERS = typer.Option(
    None,
    "--answers",
    "-a",
    metavar="ANSWERS",
    help="The vendor's answers (YAML/JSON), or an `assess score --json` result. [required]",
)
# the question bank is --questionnaire everywhere else: this old spelling goes in a later release
_OLD_ANSWERS = old_spelling("--questionnaire", "-q", new="--answers", metavar="ANSWERS")
_LOGS = typer.Option(
    [],
    "--logs",
    metavar="FILE",
    help="Request logs to scope (repeat; globs allowed), or an `assess scope --json` result.",
)
_INCIDENT = typer.Option(
    None,
    "--incident",
    metavar="ID",
    help="Advisory to scope the logs against (default: glm-5.3-kv-leak, as for scope).",
)
_PRESET = typer.Option(
    None, "--preset", metavar="NAME", help="Log preset for --logs (default: auto)."
)
_PROBE = typer.Option(
    [],
    "--probe",
    metavar="JSON",
    help="An `assess probe [--mode cache] --json` result (repeat for several runs).",
)
_DEPLOY_CHECK = typer.Option(
    None, "--deploy-check", metavar="JSON", help="An `assess deploy-check --json` result."
)
_DEPLOY_LOG = typer.Option(
    [],
    "--deploy-log",
    metavar="LOG",
    help="Server startup logs to check instead (repeat; globs allowed).",
)
_OUT = typer.Option(..., "--out", "-o", metavar="DIR", help="Folder to write the review into.")
_FMT = typer.Option(
    ",".join(DEFAULT_FORMATS),
    "--format",
    metavar="FORMATS",
    help="Comma-separated subset of html,pdf,json,oscal,xlsx: oscal is report.oscal.json "
    "(OSCAL assessment-results), xlsx is findings-register.xlsx (one row per finding, "
    "for GRC tools); manifest.json is always written.",
)
_INCLUDE_PROMPTS = typer.Option(
    False,
    "--include-prompts",
    help="Show prompt and response text from logs and probes (redacted by default).",
)
_EVIDENCE_FOR_VENDOR = typer.Option(
    False,
    "--evidence-for-vendor",
    help="Score evidence even if it is not the vendor's (host, model, service) or stale.",
)
_PERIOD = typer.Option(
    None,
    "--period",
    metavar="FROM..TO",
    help="Assessment period (YYYY-MM-DD..YYYY-MM-DD): evidence outside it is stale.",
)
_REVIEW_FILE = typer.Option(
    None,
    "--review",
    metavar="YAML",
    help="The governance file: report id, scope, sign-off, decision, remediation owners "
    "(`assess review new` writes one). Without it the review is a draft.",
)
_PREVIOUS = typer.Option(
    None,
    "--previous",
    metavar="DIR",
    help="An earlier review's folder (or its report.json): the remediation plan shows "
    "what moved since.",
)
_DUE_FROM_REVIEW_DATE = typer.Option(
    False,
    "--due-from-review-date",
    hidden=True,
    help="Count the review file's due dates from the review date (what `assess demo` does).",
)
_FORCE = typer.Option(
    False, "--force", help="Replace the review already in --out (refused without it)."
)
_SIGN = typer.Option(
    None,
    "--sign",
    metavar="KEY",
    help="Sign the review with this private key (`assess keys new`): review.intoto.jsonl, "
    "an in-toto statement of every file in a DSSE envelope, beside manifest.json.",
)
_SIGNER = typer.Option(
    None, "--signer", metavar="NAME", help="Who signs, recorded in the signed statement."
)


def report_cmd(
    answers: Path | None = _ANSWERS,
    logs: list[str] = _LOGS,
    incident: str | None = _INCIDENT,
    preset: str | None = _PRESET,
    platform_requests: int | None = PLATFORM_REQUESTS,
    platform_tokens: int | None = PLATFORM_TOKENS,
    platform_mean_tokens: int | None = PLATFORM_MEAN_TOKENS,
    served_by: str | None = SERVED_BY,
    own_overlap: bool = OWN_OVERLAP,
    max_inflate_ratio: int = MAX_INFLATE_RATIO,
    probe: list[Path] = _PROBE,
    deploy_check: Path | None = _DEPLOY_CHECK,
    deploy_log: list[str] = _DEPLOY_LOG,
    out: Path = _OUT,
    fmt: str = _FMT,
    include_prompts: bool = _INCLUDE_PROMPTS,
    evidence_for_vendor: bool = _EVIDENCE_FOR_VENDOR,
    period: str | None = _PERIOD,
    review_file: Path | None = _REVIEW_FILE,
    previous: Path | None = _PREVIOUS,
    sign: Path | None = _SIGN,
    signer: str | None = _SIGNER,
    passphrase_env: str | None = PASSPHRASE_ENV,
    force: bool = _FORCE,
    due_from_review_date: bool = _DUE_FROM_REVIEW_DATE,
    old_answers: Path | None = _OLD_ANSWERS,
) -> None:
    """Write the vendor review (see REPORT_HELP)."""
    from assess.report.files import Signing, parse_formats
    from assess.report.inputs import ReportRequest
    from assess.scope.statement import PlatformStatement

    formats = parse_formats(fmt)
    signing = None
    if sign is not None:  # read before the review is built: a wrong passphrase fails fast
        signing = Signing(key=load_signing_key(sign, passphrase_env), name=signer)
    req = ReportRequest(
        questionnaire=required(either(answers, old_answers, "--answers"), "--answers"),
        logs=logs,
        incident=incident,
        preset=preset,
        platform=PlatformStatement(
            *(platform_requests, platform_tokens, platform_mean_tokens, served_by),
            own_overlap=own_overlap,
            max_inflate_ratio=max_inflate_ratio,
        ),
        probes=probe,
        deploy_check=deploy_check,
        deploy_logs=deploy_log,
        include_prompts=include_prompts,
        evidence_for_vendor=evidence_for_vendor,
        period=period,
        review=review_file,
        previous=previous,
        due_from_review_date=due_from_review_date,
    )
    run_report(req, out, formats, signing, force)


# Options, named once here so the command's signature stays one line per option.
_DEMO_OUT = typer.Option(
    Path("assess-demo"),
    "--out",
    "-o",
    metavar="DIR",
    help="Folder to write the demo review into.",
)


def demo_cmd(
    out: Path = _DEMO_OUT,
    force: bool = _FORCE,
) -> None:
    """Review the shipped samples (see DEMO_HELP)."""
    from assess.report.files import FORMATS

    typer.echo(
        "Demo: the probe evidence is a simulation, a run against the local lab "
        "(127.0.0.1), not the vendor's service; the review labels it and does not score it."
    )
    run_report(demo_request(), out, FORMATS, force=force)


def register(app: typer.Typer) -> None:
    """Add the `report` and `demo` commands to ``app``."""

    app.command("report", help=REPORT_HELP)(report_cmd)
    app.command("demo", help=DEMO_HELP)(demo_cmd)


def demo_request() -> ReportRequest:
    """Return the report request for the shipped samples (missing ones are left out)."""
    from assess.report.inputs import ReportRequest

    samples = data_dir("samples")
    logs = samples / DEMO_LOGS
    probe = samples / DEMO_PROBE
    serverlogs = [samples / name for name in DEMO_SERVERLOGS if (samples / name).is_file()]
    review_file = samples / DEMO_REVIEW
    return ReportRequest(
        questionnaire=samples / DEMO_VENDOR,
        logs=[str(logs)] if logs.is_file() else [],
        incident=DEMO_INCIDENT if logs.is_file() else None,
        probes=[probe] if probe.is_file() else [],
        deploy_logs=[str(p) for p in serverlogs],
        review=review_file if review_file.is_file() else None,
        due_from_review_date=True,
    )
