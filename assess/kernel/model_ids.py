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
#: A quantised or re-packed build serves the same model: "zai-org/GLM-5.3-FP8" is "glm-5.3" (the
#: incident deployment's own name). Only these whole suffixes after a separator are dropped, so
#: "glm-5.3x" and "glm-5.30" stay other models. (``scope/sql.py`` holds the same list as SQL.)
BUILD_SUFFIXES = "fp8|fp16|bf16|fp4|nvfp4|int4|int8|w4a16|w8a8|w8a16|awq|gptq|gguf|mlx|dynamic"
_BUILD_SUFFIX = re.compile(rf"^(.*?)(?:[-_.](?:{BUILD_SUFFIXES}))*$")


def normalise_model_id(model_id: str) -> str:
    """Return the comparable form of a model id.

    Lower-cases, keeps what follows the last ``/`` (ARNs, ``@cf/zai-org/``, ``z-ai/``), drops a
    Bedrock version (``-v1:0``) or OpenRouter variant (``:free``) suffix, then build suffixes
    (``-FP8``, ``-AWQ``, ``_int4``...: :data:`BUILD_SUFFIXES`), then geography and vendor prefixes
    such as ``us.`` and ``zai.`` (repeatedly: ``us.zai.glm-5.3``). The one normaliser of
    ``scope``, ``score`` and ``deploy-check``.
    """
    name = model_id.strip().lower().rsplit("/", 1)[-1]
    name = _VERSION_SUFFIX.sub("", name) or name
    built = _BUILD_SUFFIX.match(name)
    name = (built.group(1) if built else "") or name
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
