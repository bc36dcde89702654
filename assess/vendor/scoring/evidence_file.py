"""Read probe and deploy-check JSON documents as evidence for `assess score`."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from assess.kernel.errors import InputError
from assess.kernel.model import format_validation_error
from assess.kernel.structured import load_document
from assess.vendor.scoring.evidence import DeployEvidence, ProbeEvidence

_T = TypeVar("_T", bound=BaseModel)


def _load(path: Path | str, model: type[_T], made_by: str, expected: str) -> _T:
    doc = load_document(path)
    kind = doc.data.get("kind") if isinstance(doc.data, dict) else None
    if isinstance(kind, str) and kind.startswith("assess.") and kind != expected:
        raise InputError(
            f"{doc.where(('kind',))}: this is an {kind} document, not an {expected} result",
            f"Give the JSON written by `{made_by} --json FILE`.",
        )
    try:
        return model.model_validate(doc.data)
    except ValidationError as exc:
        raise InputError(
            format_validation_error(exc, doc),
            f"Give the JSON written by `{made_by} --json FILE`.",
        ) from exc


def load_probe(path: Path | str) -> ProbeEvidence:
    """Load an `assess probe --json` document.

    Raises:
        InputError: naming the file and field when it is not a probe result.
    """
    return _load(path, ProbeEvidence, "assess probe", "assess.probe")


def load_deploy_check(path: Path | str) -> DeployEvidence:
    """Load an `assess deploy-check --json` document.

    Raises:
        InputError: naming the file and field when it is not a deploy-check result.
    """
    return _load(path, DeployEvidence, "assess deploy-check", "assess.deploy-check")
