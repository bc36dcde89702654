"""How `assess report` names, hashes and recognises its input files.

Names shown in the review are ``samples/...`` for a shipped sample, else relative to the working
folder, else bare file names, so no private folder ends up in ``report.json``. A contract document
is recognised by its ``kind``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from assess.kernel.common import hash_file
from assess.kernel.errors import CatalogueError, InputError
from assess.kernel.model import Model
from assess.kernel.resources import data_dir
from assess.kernel.structured import load_document
from assess.report.models import InputRole, ReportInput

ViewT = TypeVar("ViewT", bound=Model)
#: A JSON file larger than this is never opened to look for a ``kind`` (it is a log).
_SNIFF_LIMIT = 64 * 1024 * 1024


def display_path(path: Path | str, cwd: Path) -> str:
    """Return how the review names ``path``: ``samples/...`` for a shipped sample, else relative
    to ``cwd`` when it lies inside it, else its bare file name (never a private folder)."""
    p = Path(path).resolve()
    for base, prefix in ((_samples_dir(), "samples/"), (cwd.resolve(), "")):
        if base is not None and p.is_relative_to(base):
            return prefix + p.relative_to(base).as_posix()
    return p.name


def _samples_dir() -> Path | None:
    try:
        return data_dir("samples").resolve()
    except CatalogueError:
        return None


def input_record(path: Path, role: InputRole, cwd: Path) -> ReportInput:
    """Return ``path`` hashed, as an input of the review.

    Raises:
        InputError: when the file cannot be read.
    """
    hashed = hash_file(path)
    return ReportInput(
        role=role, path=display_path(path, cwd), bytes=hashed.bytes, sha256=hashed.sha256
    )


def document_kind(path: Path) -> str | None:
    """Return the ``kind`` of a small JSON document, or None for anything else."""
    if path.suffix.lower() != ".json":
        return None
    try:
        if path.stat().st_size > _SNIFF_LIMIT:
            return None
        with path.open("rb") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    kind = data.get("kind") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) else None


def load_view(path: Path, view: type[ViewT], kind: str, option: str) -> tuple[ViewT, Any]:
    """Load a contract document as ``view``; return it and the raw data.

    Raises:
        InputError: when the file is not a ``kind`` document (names file, line and field).
    """
    doc = load_document(path)
    found = doc.data.get("kind") if isinstance(doc.data, dict) else None
    if found != kind:
        raise InputError(
            f"{path}: not an {kind} document (kind is {found!r})",
            f"{option} takes the JSON written by `{kind.replace('.', ' ', 1)} --json`.",
        )
    return view.from_located(doc), doc.data
