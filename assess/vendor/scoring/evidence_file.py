"""Read probe (canary or cache audit) and deploy-check JSON as evidence for `assess score`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from assess.kernel.errors import InputError, UsageError
from assess.kernel.model import format_validation_error
from assess.kernel.structured import load_document
from assess.vendor.scoring.evidence import CacheProbeEvidence, DeployEvidence, ProbeEvidence

_T = TypeVar("_T", bound=BaseModel)


def _load(path: Path | str, model: type[_T], made_by: str, expected: str) -> _T:
    return _check(load_document(path), model, made_by, expected)


def _check(doc: Any, model: type[_T], made_by: str, expected: str) -> _T:
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


def load_cache_probe(path: Path | str) -> CacheProbeEvidence:
    """Load an `assess probe --mode cache --json` document.

    Raises:
        InputError: naming the file and field when it is not a cache-probe result.
    """
    return _load(path, CacheProbeEvidence, "assess probe --mode cache", "assess.cache-probe")


def load_probes(
    paths: Sequence[Path | str],
) -> tuple[ProbeEvidence | None, CacheProbeEvidence | None]:
    """Load each ``--probe`` file by its ``kind``: a canary probe and a cache audit, one each.

    Raises:
        InputError: a file that is neither (naming the file and field).
        UsageError: two files of one kind.
    """
    canary: ProbeEvidence | None = None
    cache: CacheProbeEvidence | None = None
    for path in paths:
        doc = load_document(path)
        kind = doc.data.get("kind") if isinstance(doc.data, dict) else None
        if kind == "assess.cache-probe":
            if cache is not None:
                raise UsageError(f"{path}: a second cache-probe result", _ONE_EACH)
            cache = _check(doc, CacheProbeEvidence, "assess probe --mode cache", kind)
        else:
            if canary is not None:
                raise UsageError(f"{path}: a second canary probe result", _ONE_EACH)
            canary = _check(doc, ProbeEvidence, "assess probe", "assess.probe")
    return canary, cache


_ONE_EACH = "Give at most one canary probe and one cache probe (--mode cache) JSON with --probe."


def load_deploy_check(path: Path | str) -> DeployEvidence:
    """Load an `assess deploy-check --json` document.

    Raises:
        InputError: naming the file and field when it is not a deploy-check result.
    """
    return _load(path, DeployEvidence, "assess deploy-check", "assess.deploy-check")
