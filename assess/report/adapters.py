"""Run the scope and deploy-check engines for `assess report` and hand back contract documents.

`assess report` accepts raw request logs and raw server logs as well as the other commands'
``--json`` output; this module runs the same readers and core those commands use and returns
``model_dump(mode="json")`` of their results, i.e. exactly what their ``--json`` would print.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assess.kernel.output import ProgressCallback


@dataclass(frozen=True)
class ScopeForReport:
    """The scope document, the log files read, and the rows of affected-requests.csv."""

    document: dict[str, Any]
    files: list[Path]
    rows: list[dict[str, str]]


def run_scope(
    patterns: Sequence[str],
    incident: str,
    preset_name: str | None,
    include_prompts: bool,
    progress: ProgressCallback | None = None,
) -> ScopeForReport:
    """Scope the request logs ``patterns`` against advisory ``incident`` as `assess scope` does.

    Raises:
        InputError / UsageError: for missing files, an unknown advisory or preset, and logs
            with no record or no usable request (see ``require_evidence``).
    """
    from assess.scope.api import scope_run

    run = scope_run(
        patterns,
        incident=incident,
        preset=preset_name,
        keep_text=include_prompts,
        progress=progress,
    )
    rows = [
        _csv_row(row, _EXPOSURE[category], include_prompts) for category, row in run.affected_rows()
    ]
    return ScopeForReport(document=run.result.model_dump(mode="json"), files=run.files, rows=rows)


#: The report's name for each category of the scope's ids CSV.
_EXPOSURE = {"affected": "received", "possibly_affected": "possibly_affected"}


def _csv_row(row: dict[str, Any], exposure: str, include_prompts: bool) -> dict[str, str]:
    stamp = row.get("timestamp")
    when = (
        datetime.fromtimestamp(stamp / 1e9, UTC).isoformat().replace("+00:00", "Z")
        if isinstance(stamp, int)
        else ""
    )
    out = {
        "request_id": _text(row.get("request_id")),
        "exposure": exposure,
        "timestamp": when,
        "account_id": _text(row.get("account_id")),
        "session_id": _text(row.get("session_id")),
        "model": _text(row.get("model")),
        "prompt_tokens": _text(row.get("prompt_tokens")),
        "status": _text(row.get("status")),
    }
    if include_prompts:
        out["prompt"] = _text(row.get("prompt"))
        out["response"] = _text(row.get("response"))
    return out


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def run_deploy_check(
    patterns: Sequence[str], advertised_context: int | None
) -> tuple[dict[str, Any], list[Path]]:
    """Check the server startup logs ``patterns`` (paths or globs) as one deployment.

    ``advertised_context`` (the vendor's answer) adds the pool-vs-advertised check. Returns the
    ``assess.deploy-check`` document and the files read.

    Raises:
        InputError: for missing or unreadable logs.
    """
    from assess.deploy.api import check_deployment
    from assess.scope.logs.sources import expand_inputs

    files = expand_inputs(list(patterns))
    result = check_deployment(files, advertised_context=advertised_context)
    return result.model_dump(mode="json"), files
