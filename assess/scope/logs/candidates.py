"""Candidate paths of a canonical field: the preset's own, then the generic expansions.

Two expansions, applied when a preset (or ``--map``) is loaded, so the record path, the columnar
path and ``--explain`` all see the same ordered list:

- ``@user`` in a path stands for the metadata keys teams use for the end user, tried in this
  order: :data:`USER_KEYS` (``metadata.@user`` -> ``metadata.user``, ``metadata.user_id``, ...).
  Gateways such as Cloudflare AI Gateway or Portkey store whatever key the team chose.
- every path is followed by its camelCase / snake_case twin (``startTime`` -> ``start_time``,
  ``usage_details.input`` -> ``usageDetails.input``): the same product writes one form in its API
  and the other in its exports (Langfuse, OpenRouter). A twin comes right after its path, so the
  preset's order of meaning holds in both spellings (OpenRouter: native count, then normalised).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

#: Metadata keys holding the end user, in the order they are tried (documented in the README).
USER_KEYS = (
    "user",
    "user_id",
    "userId",
    "customer_id",
    "customerId",
    "account_id",
    "accountId",
    "end_user",
    "end_user_id",
    "endUserId",
    "_user",
)
USER_TOKEN = "@user"
_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])([A-Z])")


def _twin_part(part: str) -> str:
    """Return the other spelling of one key: snake_case <-> camelCase (else unchanged)."""
    if part.startswith("_") or part.isdigit():
        return part
    if "_" in part:
        head, *rest = part.split("_")
        if not head or not all(rest):
            return part
        return head + "".join(word[:1].upper() + word[1:] for word in rest)
    if part[:1].islower() and _CAMEL_HUMP.search(part):
        return _CAMEL_HUMP.sub(lambda m: "_" + m.group(1).lower(), part)
    return part


@lru_cache(maxsize=4096)
def twin(path: str) -> str:
    """Return ``path`` with every key in its other spelling (``start_time`` <-> ``startTime``);
    a path naming a ``[key]`` is taken as written."""
    if "[" in path:
        return path
    return ".".join(_twin_part(part) for part in path.split("."))


def _users(path: str) -> list[str]:
    if USER_TOKEN not in path:
        return [path]
    return [path.replace(USER_TOKEN, key, 1) for key in USER_KEYS]


def expand(paths: Iterable[str], twins: bool = True) -> list[str]:
    """Return the candidate paths in order: each path (``@user`` expanded), then its twin."""
    ordered: list[str] = []
    for path in paths:
        for one in _users(path):
            ordered.append(one)
            if twins:
                ordered.append(twin(one))
    return list(dict.fromkeys(ordered))


@lru_cache(maxsize=4096)
def alternatives(path: str) -> tuple[str, ...]:
    """Return the spellings a detect path may take in a record (itself, then its twin)."""
    other = twin(path)
    return (path,) if other == path else (path, other)
