"""The shipped samples, written out in the repository's layout (`assess samples --out DIR`).

Every example in the docs reads ``samples/vendors/...``, ``samples/logs/...``: after a pip or
pipx install the samples are inside the package (``assess/_data/samples``), so
``assess samples --out samples`` puts them where the examples look.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from assess.kernel.atomic import write_bytes
from assess.kernel.errors import UsageError
from assess.kernel.resources import data_dir


@dataclass(frozen=True)
class WrittenSamples:
    """What :func:`write_samples` did: files written, files already there with the same bytes."""

    written: tuple[Path, ...]
    unchanged: tuple[Path, ...]
    folders: dict[str, int]  # top-level folder -> number of sample files in it


def sample_files() -> dict[Path, Path]:
    """Return every shipped sample file: its path relative to the samples folder -> where it is."""
    root = data_dir("samples")
    return {
        path.relative_to(root): path
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def write_samples(out: Path, *, force: bool = False) -> WrittenSamples:
    """Copy the shipped samples into ``out`` (``out/vendors/``, ``out/logs/``, ...).

    A file already there with the same bytes is left as is; one with other bytes is only
    replaced with ``force``.

    Raises:
        UsageError: files in ``out`` differ from the samples and ``force`` is not given.
        OutputError: ``out`` cannot be written.
    """
    files = sample_files()
    same: list[Path] = []
    different: list[Path] = []
    for relative, source in files.items():
        target = out / relative
        if target.is_file():
            (same if target.read_bytes() == source.read_bytes() else different).append(target)
        elif target.exists():
            different.append(target)
    if different and not force:
        raise UsageError(
            f"{out}: {len(different)} file(s) there differ from the shipped samples "
            f"(first: {different[0]})",
            "Give another --out, or --force to replace them with the samples.",
        )
    written = [
        write_bytes(out / relative, source.read_bytes())
        for relative, source in files.items()
        if out / relative not in same
    ]
    folders: dict[str, int] = {}
    for relative in files:
        folders[relative.parts[0]] = folders.get(relative.parts[0], 0) + 1
    return WrittenSamples(written=tuple(written), unchanged=tuple(same), folders=folders)
