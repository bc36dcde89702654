"""Which objects a URL names: one key, a glob over keys, or a prefix (``s3://bucket/logs/``).

Listing is done once per pattern (pyarrow's recursive selector under the glob's fixed part).
"""

from __future__ import annotations

import re
from functools import lru_cache

from assess.kernel.errors import InputError
from assess.scope.logs.remote import (
    RemoteFile,
    _unreadable,
    display_url,
    filesystem,
    split_url,
)

_WILDCARDS = "*?["


@lru_cache(maxsize=64)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """Return the regex of a glob over object keys: ``**/`` spans folders, ``*`` and ``?`` stay
    within one, ``[...]`` is a set (``[!...]`` its complement)."""
    out: list[str] = []
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if pattern.startswith("**/", at):
            out.append("(?:[^/]*/)*")
            at += 3
            continue
        if pattern.startswith("**", at):
            out.append(".*")
            at += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (end := pattern.find("]", at + 2)) > 0:
            body = pattern[at + 1 : end]
            body = "^" + body[1:] if body.startswith("!") else body
            out.append(f"[{body.replace(chr(92), chr(92) * 2)}]")
            at = end + 1
            continue
        else:
            out.append(re.escape(char))
        at += 1
    return re.compile("".join(out) + r"\Z")


def expand_remote(pattern: str) -> list[RemoteFile]:
    """Return the objects named by the URL ``pattern``: one object, or for s3:// and gs:// a
    glob over keys or a prefix (``s3://bucket/logs/``: every object under it).

    Raises:
        InputError: for a missing object, a glob that matches nothing, a wildcard in an https://
            URL, or a bucket that cannot be listed.
    """
    scheme, bucket, key = split_url(pattern)
    wild = any(ch in key for ch in _WILDCARDS)
    if scheme in ("http", "https"):
        if wild:
            raise InputError(
                f"{display_url(pattern)}: a web server cannot be listed, so the URL cannot hold "
                "a wildcard",
                "Give each URL, or put the logs in s3:// or gs:// and use a glob there.",
            )
        from assess.scope.logs.remote_http import http_size

        return [RemoteFile(pattern, http_size(pattern))]
    if not bucket:
        raise InputError(
            f"{display_url(pattern)}: give a bucket and a key, prefix or glob, e.g. "
            "s3://bucket/logs/*.gz"
        )
    from pyarrow import fs

    system = filesystem(scheme, bucket)
    try:
        if not wild and key and not key.endswith("/"):
            info = system.get_file_info(f"{bucket}/{key}")
            if info.type == fs.FileType.File:
                return [RemoteFile(pattern, info.size)]
            if info.type != fs.FileType.Directory:
                raise InputError(f"{display_url(pattern)}: no such object", "Check the key.")
        prefix = key if not wild else key[: min(key.find(c) for c in _WILDCARDS if c in key)]
        fixed = prefix.rstrip("/") if not wild else prefix.rpartition("/")[0]
        base = f"{bucket}/{fixed}" if fixed else bucket
        selector = fs.FileSelector(base, recursive=True, allow_not_found=True)
        infos = system.get_file_info(selector)
    except OSError as exc:
        raise _unreadable(display_url(pattern), exc) from exc
    found = sorted(
        (i.path.split("/", 1)[1], i.size)
        for i in infos
        if i.type == fs.FileType.File and _wanted(key, wild, i.path.split("/", 1)[1])
    )
    if not found:
        what = "the pattern matches" if wild else "the prefix holds"
        raise InputError(
            f"{display_url(pattern)}: {what} no object", "Check the glob (quote it) or prefix."
        )
    root = f"{pattern.split('://', 1)[0]}://{bucket}/"
    return [RemoteFile(root + name, size) for name, size in found]


def _wanted(pattern: str, wild: bool, key: str) -> bool:
    """True when ``key`` is matched by the glob, or is a log under the prefix: not a folder
    marker, nor a file named ``_*`` or ``.*`` (Spark's ``_SUCCESS``, Hadoop's ``.crc``)."""
    if wild:
        return bool(glob_regex(pattern).match(key))
    name = key.rpartition("/")[2]
    return bool(name) and not name.startswith(("_", "."))
