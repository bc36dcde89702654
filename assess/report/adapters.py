"""Run the scope and deploy-check engines for `assess report` and hand back contract documents.

`assess report` accepts raw request logs and raw server logs as well as the other commands'
``--json`` output; this module runs the same readers and core those commands use and returns
``model_dump(mode="json")`` of their results, i.e. exactly what their ``--json`` would print.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assess.kernel.output import ProgressCallback
from assess.scope.statement import PlatformStatement


@dataclass(frozen=True)
class ScopeForReport:
    """The scope document, the log files read, and the rows of affected-requests.csv
    (:mod:`assess.scope.ids`)."""

    document: dict[str, Any]
    files: list[Path]
    rows: list[dict[str, Any]]
    #: `assess scope --notification-pack` of the same run: file name -> text.
    pack: dict[str, str]


def run_scope(
    patterns: Sequence[str],
    incident: str,
    preset_name: str | None,
    include_prompts: bool,
    progress: ProgressCallback | None = None,
    platform: PlatformStatement | None = None,
) -> ScopeForReport:
    """Scope the request logs ``patterns`` against advisory ``incident`` as `assess scope` does,
    with the user's ``platform`` statement (N, V, who served) as its options.

    Raises:
        InputError / UsageError: for missing files, an unknown advisory or preset, and logs
            with no record or no usable request (see ``assess.scope.evidence.require_evidence``).
    """
    from assess.scope.api import scope_run
    from assess.scope.ids import ids_rows
    from assess.scope.notify import notification_pack

    run = scope_run(
        patterns,
        incident=incident,
        preset=preset_name,
        keep_text=include_prompts,
        progress=progress,
        **(platform or PlatformStatement()).kwargs(),
    )
    rows = list(ids_rows(run.affected_rows()))
    sources = run.accumulator.exposure.source_table()
    pack = notification_pack(run.result, run.affected_rows(), sources)
    document = run.result.model_dump(mode="json")
    return ScopeForReport(document=document, files=run.files, rows=rows, pack=pack)


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
