"""CLI for `assess score`: findings, risk score and tier of a vendor's answers."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from assess.vendor.scoring.models import ScoreResult


def _cannot_say(threshold: str, result: ScoreResult) -> None:
    """Say why --fail-on cannot pass: too little of the questionnaire is answered."""
    from assess.kernel.output import stderr_console

    stderr_console().print(
        f"--fail-on {threshold}: cannot say: evidence coverage {result.coverage.share:.0%} is "
        f"below {result.coverage.sufficient_at:.0%}; send the questions listed "
        "(--json: questions_to_send).",
        markup=False,
    )


_FAIL_ON_HELP = (
    "Exit 1 when a finding is this severe or worse (e.g. high); exit 2 when none is but the "
    "evidence coverage is insufficient to say."
)


_PROBE = typer.Option(
    None,
    "--probe",
    metavar="JSON",
    help="JSON of `assess probe [--mode cache] --json` (repeat: canary and cache audit).",
)


def register(app: typer.Typer) -> None:
    """Add the `score` command to ``app``."""

    @app.command("score")
    def score_cmd(
        answers: Path = typer.Argument(..., help="Answers file: YAML, JSON, xlsx or csv."),
        probe: list[Path] | None = _PROBE,
        deploy_check: Path | None = typer.Option(
            None, "--deploy-check", help="JSON of `assess deploy-check --json` (startup logs)."
        ),
        json_out: str | None = typer.Option(
            None, "--json", help="Write the score document to this file ('-': stdout only)."
        ),
        fail_on: str | None = typer.Option(None, "--fail-on", help=_FAIL_ON_HELP),
        questionnaire: str | None = typer.Option(
            None, "--questionnaire", help="Questionnaire id or file (default: the one named)."
        ),
        evidence_for_vendor: bool = typer.Option(
            False,
            "--evidence-for-vendor",
            help="Score evidence even if it is not the vendor's (host, model, service) or stale.",
        ),
        period: str | None = typer.Option(
            None,
            "--period",
            metavar="FROM..TO",
            help="Assessment period (YYYY-MM-DD..YYYY-MM-DD): evidence outside it is stale.",
        ),
    ) -> None:
        """Score a vendor's answers: findings, a 0-100 risk score (higher is riskier) and a tier.

        Example: assess score samples/vendors/incident-like.yaml --fail-on high
        """
        from assess.kernel.atomic import write_text_or_stdout
        from assess.kernel.common import parse_fail_on
        from assess.kernel.output import stdout_console, to_json
        from assess.vendor.api import score_answers
        from assess.vendor.render import print_score

        threshold = parse_fail_on(fail_on) if fail_on else None
        result = score_answers(
            answers,
            probe=probe,
            deploy_check=deploy_check,
            questionnaire=questionnaire,
            evidence_for_vendor=evidence_for_vendor,
            period=period,
        )
        if json_out is not None:
            write_text_or_stdout(json_out, to_json(result))
        if json_out != "-":
            print_score(result, stdout_console())
        if threshold and any(f.severity.at_least(threshold) for f in result.findings):
            raise typer.Exit(1)
        if threshold and result.evidence_verdict != "sufficient":
            _cannot_say(threshold.value, result)
            raise typer.Exit(2)
