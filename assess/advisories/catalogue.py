"""Load the advisory catalogue (shipped ``advisories/`` plus optional extra folders)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from assess.advisories.models import Advisory
from assess.kernel.errors import CatalogueError, InputError
from assess.kernel.resources import data_dir


def load_advisories(extra_dirs: Iterable[Path] = ()) -> dict[str, Advisory]:
    """Return every advisory by id, shipped ones first, then those in ``extra_dirs``.

    Raises:
        CatalogueError: when two advisories share an id.
        InputError: when a file is invalid (names file, line and field).
    """
    found: dict[str, Advisory] = {}
    origin: dict[str, Path] = {}
    for folder in (data_dir("advisories"), *extra_dirs):
        for path in sorted(Path(folder).glob("*.y*ml")):
            advisory = Advisory.from_path(path)
            if advisory.id in found:
                raise CatalogueError(
                    f"{path}: advisory id '{advisory.id}' is already defined in "
                    f"{origin[advisory.id]}",
                    "Give each advisory a unique id.",
                )
            found[advisory.id] = advisory
            origin[advisory.id] = path
    return found


def get_advisory(advisory_id: str, extra_dirs: Iterable[Path] = ()) -> Advisory:
    """Return the advisory ``advisory_id``.

    Raises:
        InputError: naming the known ids when there is no such advisory.
    """
    catalogue = load_advisories(extra_dirs)
    try:
        return catalogue[advisory_id]
    except KeyError:
        known = ", ".join(sorted(catalogue)) or "(none)"
        raise InputError(
            f"no advisory with id '{advisory_id}'",
            f"Known advisories: {known}. List them with `assess advisories list`.",
        ) from None
