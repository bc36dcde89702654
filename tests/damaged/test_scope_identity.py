"""One identity per input (issue 36, items 7, 9 and 11).

Measured before the change: the same export given twice (same SHA-256), and a ``**`` glob through
a symlink loop (one file read 41 times) were all counted again, without a word; a glob dropped
dangling and looping symlinks silently; a log appended or truncated while it was read got a hash
and a byte count of other bytes than were counted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assess.kernel.errors import InputError
from assess.scope.logs.sources import HashingReader
from tests.scope.helpers import conserved, in_scope, scope, write

N = 5


def _records() -> list[dict[str, Any]]:
    return in_scope(N)


def _json(run_cli: Callable[..., Any], *args: str) -> dict[str, Any]:
    result = run_cli("scope", *args, "--json", "-")
    assert "Traceback" not in result.stdout + result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_the_same_file_twice_and_its_copy_are_read_once(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    log = write(tmp_path / "export.ndjson", _records(), "ndjson")
    copy = tmp_path / "export-copy.ndjson"
    copy.write_bytes(log.read_bytes())
    other = write(tmp_path / "other.ndjson", _records()[:2], "ndjson")
    doc = _json(run_cli, str(log), str(copy), str(log), str(other))
    assert doc["counts"]["records_read"] == N + 2
    assert [i["path"] for i in doc["inputs"]] == [str(log), str(other)]
    again, note = doc["inputs_not_read"]
    assert again == {
        "path": str(log),
        "reason": "named more than once; read once",
        "same_as": str(log),
        "objects": None,
        "bytes": None,
    }
    assert note["path"] == str(copy) and note["same_as"] == str(log)
    assert "identical content" in note["reason"]
    text = run_cli("scope", str(log), str(copy)).output
    assert f"input not read: {copy}: identical content to {log}" in text


def test_the_same_path_named_again_is_read_once_and_said(
    tmp_path: Path, run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """acc36 m1: ``x``, ``./x`` and its absolute path were read once but silently."""
    write(tmp_path / "export.ndjson", _records(), "ndjson")
    monkeypatch.chdir(tmp_path)
    absolute = str(tmp_path / "export.ndjson")
    doc = _json(run_cli, "export.ndjson", "export.ndjson", "./export.ndjson", absolute)
    assert doc["counts"]["records_read"] == N
    assert [i["path"] for i in doc["inputs"]] == ["export.ndjson"]
    notes = doc["inputs_not_read"]
    assert [(n["path"], n["same_as"]) for n in notes] == [
        ("export.ndjson", "export.ndjson"),
        ("export.ndjson", "export.ndjson"),
        (absolute, "export.ndjson"),
    ]
    assert notes[0]["reason"] == "named more than once; read once"
    assert notes[2]["reason"].startswith("the same file as export.ndjson (another path")
    text = run_cli("scope", "export.ndjson", "./export.ndjson", absolute).output
    assert "input not read: export.ndjson: named more than once; read once" in text
    assert f"input not read: {absolute}: the same file as export.ndjson" in text


def test_a_glob_through_a_symlink_loop_reads_each_file_once(tmp_path: Path) -> None:
    root = tmp_path / "logs"
    (root / "sub").mkdir(parents=True)
    write(root / "sub" / "a.ndjson", _records(), "ndjson")
    (root / "sub" / "loop").symlink_to(root)
    (root / "dangling.ndjson").symlink_to(tmp_path / "gone.ndjson")
    (root / "self.ndjson").symlink_to(root / "self.ndjson")
    notes: list[Any] = []
    from assess.scope.logs.remote import expand_logs

    files = expand_logs([f"{root}/**/*.ndjson"], notes)
    assert files == [root / "sub" / "a.ndjson"]
    reasons = {Path(n.path).name: n.reason for n in notes}
    assert len(notes) == 3  # once each, not once per path through the loop (acc36 m5)
    assert reasons["dangling.ndjson"] == "a dangling symlink: not read"
    assert reasons["self.ndjson"] == "a symlink loop: not read"
    (loop,) = [n for n in notes if n.path == str(root / "sub" / "loop")]
    assert loop.reason.startswith(f"a folder symlink looping back to {root}: the glob reached ")
    assert loop.reason.endswith("files already matched through it; each read once")
    assert loop.same_as is None
    result = scope([f"{root}/**/*.ndjson"])
    conserved(result)
    assert result.counts.records_read == N


@pytest.mark.parametrize("change", ["append", "truncate"])
def test_a_file_changed_while_read_is_an_error(tmp_path: Path, change: str) -> None:
    log = write(tmp_path / "live.ndjson", _records(), "ndjson")
    raw = HashingReader(log)
    raw.read(10)
    if change == "append":
        with log.open("ab") as handle:
            handle.write(b'{"timestamp": "2026-09-01T10:00:00Z"}\n')
    else:
        os.truncate(log, 20)
    with pytest.raises(InputError, match="changed while it was read"):
        raw.finish()


def test_an_unchanged_file_keeps_its_evidence(tmp_path: Path) -> None:
    log = write(tmp_path / "log.ndjson", _records(), "ndjson")
    raw = HashingReader(log)
    evidence = raw.finish()
    assert evidence.bytes == log.stat().st_size


def test_a_glob_through_a_loop_names_each_file_by_its_shortest_path(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    """acc36b m7 (its ``tree/``): the glob sorts ``a/loop/a/loop/.../b/fp8.ndjson`` before
    ``b/fp8.ndjson``, so the file was named by a path 40 loops long (the real one listed as "the
    same file as" it), and ``b/dangling.ndjson`` was reported only under a looped path, as "a
    symlink loop" (resolving that path takes more links than the system allows)."""
    root = tmp_path / "tree"
    (root / "a").mkdir(parents=True)
    (root / "b").mkdir()
    write(root / "a" / "good.ndjson", _records(), "ndjson")
    write(root / "b" / "fp8.ndjson", in_scope(N + 1, "fp8-{i}"), "ndjson")
    (root / "a" / "loop").symlink_to("..")
    (root / "b" / "dangling.ndjson").symlink_to("../../nowhere")
    doc = _json(run_cli, f"{root}/**/*.ndjson")
    assert [i["path"] for i in doc["inputs"]] == [
        str(root / "a" / "good.ndjson"),
        str(root / "b" / "fp8.ndjson"),
    ]
    notes = {n["path"]: n["reason"] for n in doc["inputs_not_read"]}
    assert notes[str(root / "b" / "dangling.ndjson")] == "a dangling symlink: not read"
    assert len(notes) == 2, notes  # the dangling link and the looping folder link, once each
    assert notes[str(root / "a" / "loop")].startswith("a folder symlink looping back to")
    assert doc["counts"]["records_read"] == 2 * N + 1
