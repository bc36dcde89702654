"""`report` swaps a staged folder in: a crash leaves the old review or the new one, never a mix.

Measured before the change: the files were renamed into the folder one by one, the manifest
last, so a crash before the manifest left new files beside the old manifest.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from assess.kernel import atomic_dir
from assess.report import files
from tests.conftest import REPO

OLD = REPO / "samples" / "vendors" / "well-run.yaml"
NEW = REPO / "samples" / "vendors" / "incident-like.yaml"
REVIEW_FILES = {
    "report.json",
    "report.html",
    "report.pdf",
    "affected-requests.csv",
    "manifest.json",
}


class Crash(BaseException):
    """A process killed mid-write: nothing after it runs, no clean-up of the folder."""


def _review(run_cli, out: Path, answers: Path) -> object:  # type: ignore[no-untyped-def]
    return run_cli(
        "report", "-q", str(answers), "--format", "json,html", "--out", str(out), "--force"
    )


def _vendor_if_whole(folder: Path) -> str:
    """Return the vendor of the review in ``folder``, asserting its files are the manifest's."""
    manifest = json.loads((folder / "manifest.json").read_text())
    listed = {entry["path"]: entry["sha256"] for entry in manifest["outputs"]}
    present = {p.name for p in folder.iterdir() if p.name in REVIEW_FILES}
    assert present == set(listed) | {"manifest.json"}
    for name, digest in listed.items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name
    return str(json.loads((folder / "report.json").read_text())["vendor"]["name"])


@pytest.fixture
def old_review(run_cli, tmp_path: Path) -> tuple[Path, str]:  # type: ignore[no-untyped-def]
    out = tmp_path / "review"
    assert _review(run_cli, out, OLD).exit_code == 0
    (out / "notes.txt").write_text("mine")
    (out / "sub").mkdir()
    (out / "sub" / "kept.txt").write_text("also mine")
    return out, _vendor_if_whole(out)


def _others_kept(folder: Path) -> None:
    assert (folder / "notes.txt").read_text() == "mine"
    assert (folder / "sub" / "kept.txt").read_text() == "also mine"


def test_a_crash_before_the_manifest_leaves_the_old_review(
    run_cli, old_review: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    out, old_vendor = old_review
    real_write = files.write_bytes

    def write(path: Path, data: bytes) -> Path:
        if Path(path).name == "manifest.json":
            raise Crash
        return real_write(path, data)

    monkeypatch.setattr(files, "write_bytes", write)
    with pytest.raises(Crash):
        _review(run_cli, out, NEW)
    assert _vendor_if_whole(out) == old_vendor
    _others_kept(out)


@pytest.mark.parametrize("failing_call", [1, 2])
def test_a_crash_at_either_rename_leaves_one_whole_review(
    run_cli, old_review: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, failing_call: int
) -> None:  # type: ignore[no-untyped-def]
    out, old_vendor = old_review
    calls = []

    def rename(src: Path, dst: Path) -> None:
        calls.append(src)
        if len(calls) == failing_call:
            raise Crash
        os.rename(src, dst)

    monkeypatch.setattr(atomic_dir, "_rename", rename)
    with pytest.raises(Crash):
        _review(run_cli, out, NEW)
    if out.exists():
        assert _vendor_if_whole(out) == old_vendor
        _others_kept(out)
    else:  # killed between the renames: the old review is whole beside it
        (old,) = out.parent.glob("review.old-*")
        assert _vendor_if_whole(old) == old_vendor
        _others_kept(old)


def test_a_failed_swap_restores_the_old_review_and_exits_2(
    run_cli, old_review: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    out, old_vendor = old_review
    calls = []

    def rename(src: Path, dst: Path) -> None:
        calls.append(src)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        os.rename(src, dst)

    monkeypatch.setattr(atomic_dir, "_rename", rename)
    result = _review(run_cli, out, NEW)
    assert result.exit_code == 2
    assert "earlier content is unchanged" in result.output
    assert _vendor_if_whole(out) == old_vendor
    _others_kept(out)
    assert sorted(p.name for p in out.parent.iterdir()) == ["review"]


def test_a_new_review_replaces_the_old_and_keeps_other_files(
    run_cli, old_review: tuple[Path, str]
) -> None:  # type: ignore[no-untyped-def]
    out, old_vendor = old_review
    assert _review(run_cli, out, NEW).exit_code == 0
    assert _vendor_if_whole(out) != old_vendor
    _others_kept(out)
    assert sorted(p.name for p in out.parent.iterdir()) == ["review"]


def test_the_working_folder_is_written_in_place_not_swapped(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    here = tmp_path / "work"
    here.mkdir()
    monkeypatch.chdir(here)
    inode = here.stat().st_ino
    assert _review(run_cli, Path("."), OLD).exit_code == 0
    assert (
        here.stat().st_ino == inode
    )  # the same folder: a shell in it is not left in a removed one
    assert _vendor_if_whole(here) != ""


def test_other_files_are_copied_where_hard_links_fail(
    run_cli, old_review: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    out, old_vendor = old_review

    def no_links(src: Path, dst: Path) -> None:
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(atomic_dir, "_link", no_links)
    assert _review(run_cli, out, NEW).exit_code == 0
    assert _vendor_if_whole(out) != old_vendor
    _others_kept(out)
