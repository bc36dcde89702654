"""Load the isolation settings catalogue shipped beside the parsers."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from assess.deploy.models import IsolationCatalogue, IsolationSetting

CATALOGUE = Path(__file__).with_name("isolation_settings.yaml")


@cache
def load_isolation_settings(path: Path = CATALOGUE) -> tuple[IsolationSetting, ...]:
    """Return the isolation settings of ``path`` (default: the shipped catalogue).

    Raises:
        InputError: when the file is invalid (names file, line and field).
    """
    return tuple(IsolationCatalogue.from_path(path).settings)
