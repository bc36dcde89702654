"""Safe writes and reads: `report --out` keeps an existing review unless --force; `verify` reads
nothing outside the bundle (issue 37: it hashed /etc/shadow when the manifest said so)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.report.conftest import invoke

ANSWERS = str(REPO / "samples" / "vendors" / "incident-like.yaml")


def report(out: Path, *extra: str) -> Any:
    return invoke("report", "-a", ANSWERS, "--format", "html,json", "--out", str(out), *extra)


def test_an_existing_review_is_not_replaced_without_force(tmp_path: Path) -> None:
    out = tmp_path / "review"
    assert report(out).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    (out / "report.html").write_text("the committee's annotated copy")
    again = report(out)
    assert again.exit_code == 2
    assert f"--out {out}: holds a review already (report.json, report.html, manifest.json)" in (
        again.output
    )
    assert "--force" in again.output
    assert (out / "report.html").read_text() == "the committee's annotated copy"
    forced = report(out, "--force")
    assert forced.exit_code == 0, forced.output
    assert (out / "report.html").read_bytes() == before["report.html"]


def test_a_folder_without_a_review_is_written(tmp_path: Path) -> None:
    out = tmp_path / "notes"
    out.mkdir()
    (out / "minutes.txt").write_text("kept")
    assert report(out).exit_code == 0
    assert (out / "minutes.txt").read_text() == "kept"


def test_demo_refuses_too(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    out.mkdir()
    (out / "manifest.json").write_text("{}")
    result = invoke("demo", "--out", str(out))
    assert result.exit_code == 2 and "holds a review already (manifest.json)" in result.output


@pytest.fixture
def review(tmp_path: Path) -> Path:
    out = tmp_path / "review"
    assert report(out).exit_code == 0
    return out


def _secret(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """A file outside the bundle and a manifest entry with its true size and hash: followed,
    it would verify 'ok'."""
    secret = tmp_path / "secret.txt"
    secret.write_text("root:$6$not-for-auditors\n")
    data = secret.read_bytes()
    return secret, {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def _edit_manifest(review: Path, key: str, entry: dict[str, Any]) -> None:
    path = review / "manifest.json"
    doc = json.loads(path.read_text())
    doc[key].append(entry)
    path.write_text(json.dumps(doc, indent=2))


def _verify(review: Path) -> Any:
    return invoke("verify", str(review), "--inputs", str(REPO))


@pytest.mark.parametrize("kind", ["dotdot", "absolute"])
def test_manifest_outputs_outside_the_bundle_are_refused(
    review: Path, tmp_path: Path, kind: str
) -> None:
    secret, entry = _secret(tmp_path)
    path = "../secret.txt" if kind == "dotdot" else str(secret)
    _edit_manifest(review, "outputs", {"path": path, **entry})
    result = _verify(review)
    assert result.exit_code == 1
    reason = "a path with '..'" if kind == "dotdot" else "an absolute path"
    assert f"DIFFERS output {path}: refused: {reason}, not read" in result.output


def test_manifest_inputs_outside_the_inputs_folder_are_refused(
    review: Path, tmp_path: Path
) -> None:
    secret, entry = _secret(tmp_path)
    _edit_manifest(review, "inputs", {"path": str(secret), "role": "probe", **entry})
    result = _verify(review)
    assert result.exit_code == 1
    assert (
        f"DIFFERS input {secret} (probe): refused: an absolute path, outside the inputs "
        "folder, not read"
    ) in result.output


def test_a_symlink_in_the_bundle_is_refused(review: Path, tmp_path: Path) -> None:
    secret, entry = _secret(tmp_path)
    (review / "report.html").unlink()
    os.symlink(secret, review / "report.html")
    path = review / "manifest.json"
    doc = json.loads(path.read_text())
    for e in doc["outputs"]:
        if e["path"] == "report.html":
            e.update(entry)
    path.write_text(json.dumps(doc, indent=2))
    result = _verify(review)
    assert result.exit_code == 1
    assert "DIFFERS output report.html: refused: a symlink (report.html), not read" in (
        result.output
    )


def test_a_symlinked_manifest_is_refused(review: Path, tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere.json"
    (review / "manifest.json").rename(moved)
    os.symlink(moved, review / "manifest.json")
    result = _verify(review)
    assert result.exit_code == 2
    assert "manifest.json: a symlink, refused" in result.output


def test_files_the_manifest_does_not_list_are_named(review: Path) -> None:
    fresh = _verify(review)
    assert fresh.exit_code == 2 and "DIFFERS" not in fresh.output  # unsigned: not proven
    (review / "approval.pdf").write_bytes(b"%PDF-1.7 approved")
    (review / "sub").mkdir()
    (review / "sub" / "notes.txt").write_text("x")
    result = _verify(review)
    assert result.exit_code == 1
    assert "DIFFERS file approval.pdf: in the folder, not listed by manifest.json" in result.output
    assert "DIFFERS file sub/notes.txt: in the folder, not listed by manifest.json" in (
        result.output
    )
