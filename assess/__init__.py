"""assess: judge hosted-LLM vendors and scope exposure when one has an incident.

The public Python API (each function returns the model its command's ``--json`` serialises,
raises :class:`AssessError` subclasses, and never prints or exits)::

    from assess import scope_logs, score_answers, run_probe, check_deployment, build_report
    from assess import build_portfolio

The functions are imported on first use, so ``import assess`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from assess.kernel.errors import (
    AssessError,
    CatalogueError,
    EndpointError,
    InputError,
    OutputError,
    UsageError,
)

if TYPE_CHECKING:
    from assess.deploy.api import check_deployment
    from assess.portfolio.api import build_portfolio
    from assess.probe.api import ProbeStopped, run_probe
    from assess.report.api import build_report
    from assess.scope.api import scope_logs
    from assess.vendor.api import score_answers

__version__ = "0.1.0"

#: public name -> the module that defines it (imported by ``__getattr__`` on first use)
_LAZY = {
    "scope_logs": "assess.scope.api",
    "score_answers": "assess.vendor.api",
    "run_probe": "assess.probe.api",
    "ProbeStopped": "assess.probe.api",
    "check_deployment": "assess.deploy.api",
    "build_report": "assess.report.api",
    "build_portfolio": "assess.portfolio.api",
}

__all__ = [
    "AssessError",
    "CatalogueError",
    "EndpointError",
    "InputError",
    "OutputError",
    "ProbeStopped",
    "UsageError",
    "__version__",
    "build_portfolio",
    "build_report",
    "check_deployment",
    "run_probe",
    "score_answers",
    "scope_logs",
]


def __getattr__(name: str) -> Any:
    """Import a public function's module on first use (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'assess' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
