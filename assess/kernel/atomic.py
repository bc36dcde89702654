"""Atomic file output: write to a temporary file beside the target, then rename."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

from assess.kernel.errors import OutputError


def write_bytes(path: Path | str, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically and return the path.

    A reader never sees a half-written file: the data goes to a temporary file in the same folder,
    is flushed to disk, then renamed over the target.

    Raises:
        OutputError: if the folder does not exist or is not writable.
    """
    target = Path(path)
    if _is_special(target):
        # /dev/null, /dev/stdout, a named pipe: renaming over it would replace the device itself.
        try:
            with open(target, "wb") as handle:
                handle.write(data)
        except OSError as exc:
            raise OutputError(f"{target}: write failed ({exc.strerror or exc})") from exc
        return target
    folder = target.parent if str(target.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise OutputError(
            f"{target}: cannot write here ({exc.strerror or exc})",
            "Choose another output path or fix the folder's permissions.",
        ) from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"{target}: write failed ({exc.strerror or exc})") from exc
    return target


def _is_special(target: Path) -> bool:
    """True when ``target`` exists and is a device, pipe or socket rather than a regular file."""
    try:
        mode = target.stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def write_text(path: Path | str, text: str) -> Path:
    """Write ``text`` as UTF-8 to ``path`` atomically; see :func:`write_bytes`."""
    return write_bytes(path, text.encode("utf-8"))


def write_text_or_stdout(path: str, text: str) -> None:
    """Write ``text`` to ``path`` atomically, or to standard output when ``path`` is ``-``."""
    if path == "-":
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
    else:
        write_text(path, text if text.endswith("\n") else text + "\n")
