"""Turn the command line's logs and ``--node ROLE=LOG`` specs into parsed nodes."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import PurePath

from assess.deploy.models import NodeLog, Role
from assess.deploy.serverlogs.registry import KEEP_LINES, LAUNCH_MARKERS, parse_launches
from assess.deploy.serverlogs.source import read_log
from assess.kernel.errors import UsageError

_ROLE_NAMES = ", ".join(r.value for r in Role if r is not Role.UNKNOWN)


def parse_node_spec(spec: str) -> tuple[Role, str]:
    """Parse ``ROLE=LOG`` (e.g. ``prefill=logs/p0.log``).

    Raises:
        UsageError: when there is no '=', no path, or ROLE is not prefill, decode or aggregated.
    """
    role, sep, path = spec.partition("=")
    role = role.strip().lower()
    if not sep or not path.strip() or not role:
        raise UsageError(
            f"--node '{spec}': expected ROLE=LOG", "For example: --node prefill=prefill-0.log"
        )
    try:
        parsed = Role(role)
    except ValueError:
        parsed = Role.UNKNOWN
    if parsed is Role.UNKNOWN:
        raise UsageError(f"--node '{spec}': '{role}' is not a role", f"Use one of: {_ROLE_NAMES}.")
    return parsed, path.strip()


def node_name(path: str, taken: set[str]) -> str:
    """Return a short unique node name from ``path`` ('logs/prefill-0.log.gz' -> 'prefill-0')."""
    if path == "-":
        base = "stdin"
    else:
        base = PurePath(path).name
        for suffix in (".gz", ".log", ".txt", ".out"):
            base = base.removesuffix(suffix)
        base = base or "node"
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    taken.add(name)
    return name


def _same(path: str) -> str:
    """Return ``path`` normalised so 'x.log' and './x.log' name one node."""
    return path if path == "-" else os.path.normpath(path)


def load_nodes(paths: Sequence[str], nodes: Sequence[tuple[Role, str]] = ()) -> list[NodeLog]:
    """Read and parse every log; a ``nodes`` entry sets its log's role (and may add the log).

    Raises:
        InputError: when a log is missing or unreadable.
        UsageError: when standard input (``-``) is given twice.
    """
    override = {_same(path): role for role, path in nodes}
    ordered = list(dict.fromkeys(_same(p) for p in [*paths, *override]))
    if list(paths).count("-") > 1 or [p for _, p in nodes].count("-") > 1:
        raise UsageError("'-' (standard input) can be read only once", "Give '-' once.")
    taken: set[str] = set()
    result: list[NodeLog] = []
    for path in ordered:
        source = read_log(path, LAUNCH_MARKERS, KEEP_LINES)
        launches = parse_launches(source)
        name = node_name(path, taken)
        for number, parsed in enumerate(launches, 1):
            result.append(
                NodeLog(
                    # several launches in one log: each is its own node run, named by its order
                    name=name if len(launches) == 1 else f"{name}#{number}",
                    source=source.name,
                    parsed=parsed,
                    role_override=override.get(path),
                    input_file=source.input_file,
                )
            )
    return result
