"""Model id normalisation and matching against an advisory's names.

Equality after normalisation, never substrings: ``glm-5.3-flash``, ``glm-5.2`` and ``glm-5`` are
different models from ``glm-5.3``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Geography and vendor prefixes that cloud catalogues put before a model name
# (Bedrock inference profiles: us./eu./apac./global.; vendor namespaces: zai./z-ai.).
_PREFIXES = ("us.", "eu.", "apac.", "global.", "us-gov.", "jp.", "au.", "ca.", "zai.", "z-ai.")
# Bedrock model versions ("-v1:0", ":0") and OpenRouter variants (":free", ":nitro") name the same
# model; they are suffixes after the name, so dropping them never joins two different names.
_VERSION_SUFFIX = re.compile(r"(?:-v\d+:\d+|:\d+|:[a-z]+)$")


def normalise_model_id(model_id: str) -> str:
    """Return the comparable form of a model id.

    Lower-cases, keeps what follows the last ``/`` (ARNs, ``@cf/zai-org/``, ``z-ai/``), drops a
    Bedrock version (``-v1:0``) or OpenRouter variant (``:free``) suffix, then drops geography and
    vendor prefixes such as ``us.`` and ``zai.`` (repeatedly: ``us.zai.glm-5.3``).
    """
    name = model_id.strip().lower().rsplit("/", 1)[-1]
    name = _VERSION_SUFFIX.sub("", name) or name
    changed = True
    while changed:
        changed = False
        for prefix in _PREFIXES:
            if name.startswith(prefix) and len(name) > len(prefix):
                name = name[len(prefix) :]
                changed = True
    return name


def matches(model_id: str | None, names: Iterable[str]) -> bool:
    """Return True when ``model_id`` normalises to one of ``names`` (already normalised)."""
    if not model_id:
        return False
    return normalise_model_id(model_id) in set(names)
