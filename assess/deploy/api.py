"""Python API of the deploy-check feature: can this SGLang/vLLM deployment leak?

``from assess import check_deployment`` returns the model of `assess deploy-check --json`; the
CLI and `assess report --deploy-log` call it. Nothing here prints or exits.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from assess.deploy.models import DeployCheckResult
from assess.kernel.common import Severity, parse_fail_on
from assess.kernel.errors import UsageError


def check_deployment(
    logs: Sequence[str | Path] = (),
    *,
    nodes: Sequence[str] = (),
    advertised_context: int | None = None,
    fail_on: Severity | str = Severity.HIGH,
    service: str = "",
    model: str = "",
) -> DeployCheckResult:
    """Check the startup logs of one deployment, one log per node (``.gz`` fine, ``-`` stdin).

    ``nodes`` are ``ROLE=LOG`` specs (prefill, decode, aggregated) setting a log's role;
    ``advertised_context`` (the vendor's answer) adds the pool-vs-advertised check;
    ``result.failed`` is true when the CLI would exit 1 (a finding at ``fail_on`` or worse, or
    an inconclusive node). ``service`` / ``model`` say which service and model the logs are
    from (kept in ``result.about`` beside the models, nodes and dates the logs show).

    Raises:
        UsageError: no log given, a bad ``ROLE=LOG`` or severity.
        InputError: a missing or unreadable log.
    """
    from assess.advisories.catalogue import load_advisories
    from assess.deploy.check import check_deployment as check
    from assess.deploy.serverlogs import load_nodes, parse_node_spec
    from assess.deploy.serverlogs.isolation import load_isolation_settings

    threshold = parse_fail_on(fail_on) if isinstance(fail_on, str) else fail_on
    specs = [parse_node_spec(spec) for spec in nodes]
    if not logs and not specs:
        raise UsageError(
            "deploy-check: no log given",
            "Example: assess deploy-check prefill.log decode.log (or --node prefill=LOG).",
        )
    return check(
        load_nodes([str(p) for p in logs], specs),
        advertised_context=advertised_context,
        advisories=load_advisories(),
        isolation=load_isolation_settings(),
        fail_on=threshold,
        service=service,
        model=model,
    )
