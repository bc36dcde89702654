"""Atomic folder output: build the new folder beside the old one, then swap it in.

A review is several files listed by one manifest. Written one by one into the folder, a crash
between two writes left new files beside the old manifest. Here the new folder is built as
``DIR.tmp-xxxx`` (the other files of the old folder hard-linked in, so they stay as they were),
then the old folder is renamed to ``DIR.old-xxxx``, the new one to ``DIR``, and the old one
removed. A crash leaves ``DIR`` holding the old review or the new one, never a mix; only
between the two renames is ``DIR`` absent, and the old review is then whole in ``DIR.old-xxxx``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TypeVar

from assess.kernel.errors import OutputError

T = TypeVar("T")

# Indirections the tests replace to crash between the steps.
_rename = os.rename
_link = os.link


def can_swap(target: Path) -> bool:
    """True when ``target`` can be replaced by a swap: absent, or a folder (not a mount point,
    not the working folder or one above it) whose parent is writable."""
    real = target.resolve()
    if real.exists() and (not real.is_dir() or real.is_mount()):
        return False
    cwd = Path.cwd().resolve()
    if cwd == real or real in cwd.parents:
        return False  # `--out .`: the shell would be left in a removed folder
    return real.parent.is_dir() and os.access(real.parent, os.W_OK | os.X_OK)


def swap_in(target: Path, fill: Callable[[Path], T], replaced: Collection[str]) -> T:
    """Build the new content of folder ``target`` with ``fill(staging)`` and swap it in.

    Entries of the old folder whose names are not in ``replaced`` are hard-linked into the new
    folder first (subfolders recreated), so files a user keeps there survive. Returns what
    ``fill`` returned.

    Raises:
        OutputError: when a step fails; ``target`` then still holds the old content, and the
            staging folder is removed.
    """
    real = target.resolve()
    try:
        staging = Path(tempfile.mkdtemp(prefix=f"{real.name}.tmp-", dir=real.parent))
    except OSError as exc:
        raise OutputError(f"{target}: cannot write here ({exc.strerror or exc})") from exc
    try:
        if real.is_dir():
            _carry_over(real, staging, replaced)
        result = fill(staging)
        had_old = real.is_dir()
        if had_old:
            shutil.copymode(real, staging)
        else:
            os.chmod(staging, 0o755)  # mkdtemp's 0o700 would hide the review from the group
        old = real.parent / staging.name.replace(".tmp-", ".old-", 1)
        if had_old:
            _rename(real, old)
        try:
            _rename(staging, real)
        except OSError:
            if had_old:
                _rename(old, real)
            raise
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise OutputError(
            f"{target}: the new folder could not be swapped in ({exc.strerror or exc}); "
            "the earlier content is unchanged"
        ) from exc
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _sync_folder(real.parent)
    if had_old:
        shutil.rmtree(old, ignore_errors=True)
    return result


def _sync_folder(folder: Path) -> None:
    """Flush the renames in ``folder`` to disk, where the system allows it (best effort: the
    swap has happened, a power cut now may only bring the old folder back)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _carry_over(old: Path, staging: Path, replaced: Collection[str]) -> None:
    """Hard-link every entry of ``old`` but the ``replaced`` names into ``staging``."""
    for entry in old.iterdir():
        if entry.name in replaced:
            continue
        dest = staging / entry.name
        if entry.is_symlink():
            os.symlink(os.readlink(entry), dest)
        elif entry.is_dir():
            shutil.copytree(entry, dest, symlinks=True, copy_function=_link_or_copy)
        else:
            _link_or_copy(entry, dest)


def _link_or_copy(src: str | Path, dest: str | Path) -> None:
    """Hard-link ``src`` to ``dest`` (the same file, no bytes copied); copy it where the file
    system has no hard links."""
    try:
        _link(src, dest)
    except OSError:
        shutil.copy2(src, dest)
