"""Locate the data folders (questionnaires, templates, advisories, samples).

In a wheel they ship as ``assess/_data/<name>``; in a source checkout (editable install, tests)
they are top-level folders beside the package. Both are found the same way.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Literal

from assess.kernel.errors import CatalogueError

DataFolder = Literal["questionnaires", "templates", "advisories", "samples", "controls"]

_PACKAGE_ROOT = Path(__file__).resolve().parent.parent


def data_dir(name: DataFolder) -> Path:
    """Return the folder holding shipped data of kind ``name``.

    Raises:
        CatalogueError: if the folder is in neither the wheel nor the source tree.
    """
    packaged = Path(str(resources.files("assess").joinpath("_data", name)))
    if packaged.is_dir():
        return packaged
    source = _PACKAGE_ROOT.parent / name
    if source.is_dir():
        return source
    raise CatalogueError(
        f"assess: the shipped '{name}' folder is missing from this installation",
        "Reinstall assess (pip install --force-reinstall assess-llm).",
    )
