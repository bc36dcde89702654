"""One identity per input: the same file named twice (a path, a glob through a symlink loop) or
two files of identical content (the same export given twice) are read once, and said so; a glob's
dangling or looping symlinks are named, not dropped.

The content check costs a hash only where two local files have the same size (identical content
has the same size), before anything is read; the hash of every file read is still the one taken
while it is read (``sources.HashingReader``).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assess.kernel.common import hash_file
from assess.scope.models import InputNote


def _shortest_first(matches: Sequence[str]) -> list[str]:
    """``matches`` with the fewest folders first: a path through a looping folder link comes
    after the file's own path, which a plain sort may put behind ``a/loop/a/loop/.../b/x``."""
    return sorted(matches, key=lambda m: (len(Path(m).parts), m))


def symlink_notes(matches: Sequence[str]) -> list[InputNote]:
    """Return a note for each glob match that is a dangling or looping symlink (once each, when
    a glob reaches one by several paths through a looping folder link: named by its shortest
    path, and judged at its real place, where a looped path alone would take more links than
    the system resolves)."""
    notes: dict[str, InputNote] = {}
    seen: set[str] = set()
    for match in _shortest_first(matches):
        path = Path(match)
        if not path.is_symlink():
            continue
        where = os.path.join(os.path.realpath(path.parent), path.name)
        if where in seen:
            continue
        seen.add(where)
        try:
            os.stat(where)
        except OSError as exc:
            why = "a symlink loop" if exc.errno == errno.ELOOP else "a dangling symlink"
            notes[match] = InputNote(path=match, reason=f"{why}: not read")
    return [notes[m] for m in matches if m in notes]


def fold_loops(matches: Sequence[str]) -> tuple[list[str], list[InputNote]]:
    """Return a glob's ``matches`` without the paths that reach a file matched already through
    a folder symlink looping back to a folder above it, and one note per such link (not one per
    path: a ``**`` glob goes round a loop some 40 times). Each file keeps its shortest path."""
    kept: set[str] = set()
    seen: set[str] = set()
    through: dict[tuple[str, str], int] = {}  # (link, its target) -> paths folded
    for match in _shortest_first(matches):
        real = os.path.realpath(match)
        link = _looping_link(match) if real in seen else None
        if link is not None:
            through[link] = through.get(link, 0) + 1
            continue
        seen.add(real)
        kept.add(match)
    notes = [
        InputNote(
            path=link,
            reason=f"a folder symlink looping back to {target}: the glob reached {count:,} "
            "files already matched through it; each read once",
        )
        for (link, target), count in through.items()
    ]
    return [m for m in matches if m in kept], notes


def _looping_link(match: str) -> tuple[str, str] | None:
    """Return the first folder of ``match`` that is a symlink to itself or a folder above it
    (with its target), or None."""
    path = Path(match)
    for part in reversed(path.parents):
        if part.is_symlink():
            target = os.path.realpath(part)
            above = os.path.realpath(part.parent)
            if above == target or above.startswith(target.rstrip(os.sep) + os.sep):
                return str(part), target
    return None


def dedupe(files: Sequence[Any]) -> tuple[list[Any], list[InputNote]]:
    """Return ``files`` without the ones that are another's file or content, and the notes.

    Local paths by their real path, then content; remote objects by their URL, as given.
    """
    kept: list[Any] = []
    notes: list[InputNote] = []
    real: dict[Any, Any] = {}
    for file in files:
        key = os.path.realpath(file) if isinstance(file, Path) else file
        first = real.setdefault(key, file)
        if first is file:
            kept.append(file)
            continue
        reason = "named more than once; read once"
        if str(first) != str(file):
            reason = f"the same file as {first} (another path to it, a link or a glob); read once"
        notes.append(InputNote(path=str(file), reason=reason, same_as=str(first)))
    return _same_content(kept, notes)


def _same_content(files: list[Any], notes: list[InputNote]) -> tuple[list[Any], list[InputNote]]:
    sizes: dict[int, list[Path]] = {}
    for file in files:
        if isinstance(file, Path):
            sizes.setdefault(file.stat().st_size, []).append(file)
    twins = {f for group in sizes.values() if len(group) > 1 for f in group}
    if not twins:
        return files, notes
    first: dict[str, Path] = {}
    kept = []
    for file in files:
        if file in twins:
            digest = hash_file(file).sha256
            if digest in first:
                notes.append(
                    InputNote(
                        path=str(file),
                        reason=f"identical content to {first[digest]} (SHA-256 {digest[:16]}...); "
                        "read once",
                        same_as=str(first[digest]),
                    )
                )
                continue
            first[digest] = file
        kept.append(file)
    return kept, notes


class Contents:
    """The content identities of the inputs counted so far (the SHA-256 of each one's bytes
    once decompressed, taken while it was read): an export and its ``.gz``, zstd, xz or bzip2
    twin are one input, counted once."""

    def __init__(self) -> None:
        self._first: dict[str, str] = {}

    def twin(self, path: str, content: str | None) -> InputNote | None:
        """Return the note of ``path`` when an input counted before had its content (else
        remember it and return None)."""
        if content is None:
            return None
        first = self._first.setdefault(content, path)
        if first == path:
            return None
        return InputNote(
            path=path,
            reason=f"identical content to {first} once decompressed (SHA-256 {content[:16]}...): "
            "read, counted once",
            same_as=first,
        )


def file_state(path: Any) -> tuple[int, int, int] | None:
    """Return (size, mtime ns, inode) of a local file, None for a remote object (fixed)."""
    if not isinstance(path, Path):
        return None
    stat = path.stat()
    return stat.st_size, stat.st_mtime_ns, stat.st_ino


def check_unchanged(path: Any, before: tuple[int, int, int] | None, hashed: int) -> None:
    """Refuse a file read by path (Parquet) that changed while it was read: its size, time or
    inode now differ from ``before``, or its hash (taken after the read) covers ``hashed``
    bytes, not the size it had.

    Raises:
        InputError: naming the file (exit 2).
    """
    from assess.kernel.errors import InputError

    if before is None:
        return
    now = file_state(path)
    if now == before and hashed == before[0]:
        return
    raise InputError(
        f"{path}: changed while it was read ({before[0]:,} bytes when opened, {hashed:,} hashed, "
        f"{now[0] if now else 0:,} now, or rewritten in place): its hash and counts would not "
        "describe one file",
        "Scope a copy that is no longer being written.",
    )
