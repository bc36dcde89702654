"""What `assess verify` may read of a review folder, and the hash checks of its files.

A review folder comes from someone else: its manifest may name ``../../etc/shadow`` or
``/etc/shadow``, and a file in it may be a symlink to one. Nothing outside the bundle is read:
a manifest path that is absolute or has a ``..`` part, and a symlink in the folder, are refused
and named, never followed. Inputs are read under the auditor's ``--inputs`` folder (or the
shipped samples), and an input path that would leave it is refused the same way. A file in the
folder the manifest does not list is named: the folder holds one review, the one it lists.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path, PurePosixPath, PureWindowsPath

from assess.kernel.errors import CatalogueError
from assess.report.files import MANIFEST_JSON, SIGNED_STATEMENT
from assess.report.models import Manifest, ManifestEntry
from assess.report.verify_model import Check


def unsafe_reason(rel: str) -> str | None:
    """Return why the manifest path ``rel`` may not be read (it would leave its folder), or
    None when it stays inside."""
    if not rel:
        return "an empty path"
    if PurePosixPath(rel).is_absolute() or PureWindowsPath(rel).is_absolute() or rel[1:2] == ":":
        return "an absolute path"
    if ".." in PurePosixPath(rel.replace("\\", "/")).parts:
        return "a path with '..'"
    return None


def bundle_file(folder: Path, rel: str) -> tuple[Path | None, str | None]:
    """Return the file ``rel`` names in ``folder``, or None and why it is refused (a path that
    leaves the folder, or a symlink anywhere on the way)."""
    reason = unsafe_reason(rel)
    if reason is not None:
        return None, reason
    path = folder
    for part in PurePosixPath(rel).parts:
        path = path / part
        if path.is_symlink():
            return None, f"a symlink ({path.relative_to(folder).as_posix()})"
    return path, None


def folder_files(folder: Path) -> tuple[dict[str, Path], list[str]]:
    """Return the regular files under ``folder`` by relative POSIX name, and the names of
    entries that are symlinks or neither files nor folders (never followed)."""
    files: dict[str, Path] = {}
    odd: list[str] = []
    for root, dirs, names in os.walk(folder, followlinks=False):
        base = Path(root)
        for name in [*names, *(d for d in dirs if (base / d).is_symlink())]:
            path = base / name
            rel = path.relative_to(folder).as_posix()
            if path.is_symlink() or not path.is_file():
                odd.append(rel)
            else:
                files[rel] = path
    return files, sorted(odd)


def compare(what: str, entry: ManifestEntry, path: Path | None) -> Check:
    """Return whether the file at ``path`` has the size and SHA-256 ``entry`` lists."""
    if path is None or not path.is_file():
        return Check(what=what, status="differs", detail=f"{entry.path}: no such file")
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != entry.sha256 or len(data) != entry.bytes:
        return Check(
            what=what,
            status="differs",
            detail=f"sha256 {digest[:16]}... ({len(data):,} bytes), the manifest says "
            f"{entry.sha256[:16]}... ({entry.bytes:,} bytes)",
        )
    return Check(what=what, status="ok", detail=f"sha256 {digest[:16]}... as listed")


def _refused(what: str, reason: str) -> Check:
    return Check(what=what, status="differs", detail=f"refused: {reason}, not read")


def output_checks(folder: Path, manifest: Manifest) -> list[Check]:
    """Return one check per output the manifest lists, then one per file of the folder it does
    not list (the signed statement and the manifest excepted)."""
    checks = []
    for entry in manifest.outputs:
        path, reason = bundle_file(folder, entry.path)
        what = f"output {entry.path}"
        checks.append(_refused(what, reason) if reason else compare(what, entry, path))
    files, odd = folder_files(folder)
    listed = {PurePosixPath(e.path).as_posix() for e in manifest.outputs}
    unlisted = sorted(set(files) - listed - {MANIFEST_JSON, SIGNED_STATEMENT})
    checks += [
        Check(
            what=f"file {n}", status="differs", detail="in the folder, not listed by manifest.json"
        )  # fmt: skip
        for n in unlisted
    ]
    odd = [n for n in odd if n not in listed and n != SIGNED_STATEMENT]
    return checks + [_refused(f"file {n}", "a symlink or special file") for n in odd]


def resolve_input(path: str, base: Path) -> Path | None:
    """Return where a manifest input is: ``base/path``, or a shipped sample ('samples/...');
    None when it is not there, or when the path would leave ``base`` (absolute, '..')."""
    if path == "-" or unsafe_reason(path) is not None:
        return None
    candidates = [base / path]
    if path.startswith("samples/"):
        try:
            from assess.kernel.resources import data_dir

            candidates.append(data_dir("samples") / path.removeprefix("samples/"))
        except CatalogueError:
            pass
    return next((c for c in candidates if c.is_file()), None)


def input_checks(manifest: Manifest, base: Path, check_inputs: bool) -> list[Check]:
    """Return one check per input the manifest lists, looked for under ``base``."""
    checks = []
    for entry in manifest.inputs:
        what = f"input {entry.path}" + (f" ({entry.role})" if entry.role else "")
        reason = unsafe_reason(entry.path)
        if reason is not None:
            checks.append(_refused(what, f"{reason}, outside the inputs folder"))
        elif not check_inputs:
            checks.append(Check(what=what, status="not-checked", detail="--no-inputs"))
        else:
            found = resolve_input(entry.path, base)
            if found is None:  # not at hand is not a difference: nothing can be said
                checks.append(Check(what=what, status="not-checked", detail="cannot check: not "
                                    f"present under {base} (give --inputs FOLDER)"))  # fmt: skip
            else:
                checks.append(compare(what, entry, found))
    return checks
