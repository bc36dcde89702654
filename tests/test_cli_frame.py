"""The CLI frame: help, version, and how user errors come out."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from assess import __version__

SAMPLE = str(Path(__file__).resolve().parents[1] / "samples" / "logs" / "litellm.ndjson")


def _assess(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "assess", *args], capture_output=True, text=True, check=False
    )


def test_version() -> None:
    proc = _assess("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"assess {__version__}"


def test_help_lists_the_three_questions() -> None:
    proc = _assess("--help")
    assert proc.returncode == 0
    assert "Were we exposed?" in proc.stdout
    assert "advisories" in proc.stdout


def test_unknown_advisory_is_a_clean_exit_2() -> None:
    proc = _assess("advisories", "show", "no-such-incident")
    assert proc.returncode == 2
    assert "no advisory with id 'no-such-incident'" in proc.stderr
    assert "glm-5.3-kv-leak" in proc.stderr  # the advice names what exists
    assert "Traceback" not in proc.stderr


def test_debug_shows_the_traceback() -> None:
    proc = _assess("--debug", "advisories", "show", "no-such-incident")
    assert proc.returncode == 2
    assert "Traceback" in proc.stderr


def test_bad_option_is_exit_2() -> None:
    proc = _assess("advisories", "list", "--no-such-option")
    assert proc.returncode == 2
    assert "no-such-option" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_advisory_ids_are_never_cut_in_a_narrow_terminal() -> None:
    """At 80 columns the id used to come out as 'glm-5.3-kv-le…': not something to copy."""
    env = {**os.environ, "COLUMNS": "80"}
    proc = subprocess.run(
        [sys.executable, "-m", "assess", "advisories", "list"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert max(len(line) for line in proc.stdout.splitlines()) <= 80
    # too wide for a table at 80 columns, it prints each advisory as lines: the id still whole
    listed = json.loads(_assess("advisories", "list", "--json").stdout)["advisories"]
    for advisory in listed:
        assert re.search(rf"(│ |id: ){re.escape(advisory['id'])}( │|\s)", proc.stdout), advisory


def test_every_command_has_help_with_an_example() -> None:
    import typer.main

    from assess.cli import app

    def leaves(command: Any, path: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
        if hasattr(command, "commands"):  # a group
            for name, sub in command.commands.items():
                yield from leaves(sub, (*path, name))
        else:
            yield path

    root = typer.main.get_command(app)
    paths = list(leaves(root, ()))
    assert len(paths) >= 15
    for path in paths:
        proc = _assess(*path, "--help")
        assert proc.returncode == 0, (path, proc.stderr)
        assert "Example: assess " in proc.stdout, path


def test_output_is_complete_when_the_run_skips_interpreter_teardown(tmp_path: Any) -> None:
    """main() leaves with os._exit: what a command printed must be flushed first, and its
    exit code kept (1: the sample log holds affected requests)."""
    proc = _assess("scope", SAMPLE, "--json", "-")
    assert proc.returncode == 1, proc.stderr
    document = json.loads(proc.stdout)
    assert document["kind"] == "assess.scope"
    assert document["exit_code"] == 1


def test_a_reader_that_left_gets_no_traceback() -> None:
    """`assess ... | head` where the reader is gone before anything is written: the run ends
    quietly, with rich's exit code for a broken pipe (1), and no traceback."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "assess", "scope", SAMPLE],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    finally:
        os.close(write_end)
    assert proc.returncode == 1
    assert proc.stderr == ""


def test_leave_flushes_and_maps_exit_codes(monkeypatch: Any, capsys: Any) -> None:
    """leave maps a SystemExit code as sys.exit does and flushes before os._exit."""
    import io

    from assess.cli import _runtime

    codes: list[int] = []
    monkeypatch.setattr(_runtime.os, "_exit", codes.append)
    raw = io.BytesIO()
    buffered = io.TextIOWrapper(io.BufferedWriter(raw, buffer_size=1 << 16))  # type: ignore[arg-type]
    monkeypatch.setattr(sys, "stdout", buffered)
    buffered.write("kept")
    _runtime.leave(None)
    assert raw.getvalue() == b"kept"
    _runtime.leave(2)
    monkeypatch.setattr(sys, "stdout", sys.__stdout__)
    _runtime.leave("why it stopped")
    assert codes == [0, 2, 1]
    assert "why it stopped" in capsys.readouterr().err


def test_scope_runs_without_importing_pandas() -> None:
    """pyarrow would import pandas (0.2 s) on its first pa.array; the scope command stops that."""
    proc = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "assess",
            "scope",
            SAMPLE,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr[-2000:]
    imported = [line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()]
    assert "pyarrow.lib" in imported
    assert not [name for name in imported if name.startswith("pandas.")]


def test_pandas_still_imports_after_pyarrow_was_told_it_is_missing() -> None:
    code = (
        "import sys\n"
        "from assess.cli._runtime import pyarrow_without_pandas\n"
        "pyarrow_without_pandas()\n"
        "import pyarrow as pa\n"
        "pa.table({'a': pa.array([1])})\n"
        "assert 'pandas' not in sys.modules\n"
        "import pandas\n"
        "print(pandas.DataFrame({'a': [1]}).shape)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "(1, 1)"


def test_advisory_json_is_versioned_like_every_other_document() -> None:
    """`advisories list|show --json` carry schema_version and kind; show keeps every field of
    the advisory at the top level beside them."""
    listed = json.loads(_assess("advisories", "list", "--json").stdout)
    assert (listed["schema_version"], listed["kind"]) == (1, "assess.advisories")
    assert "glm-5.3-kv-leak" in [a["id"] for a in listed["advisories"]]
    proc = _assess("advisories", "show", "glm-5.3-kv-leak", "--json")
    assert proc.returncode == 0, proc.stderr
    shown = json.loads(proc.stdout)
    assert (shown["schema_version"], shown["kind"]) == (1, "assess.advisory")
    assert shown["id"] == "glm-5.3-kv-leak"
    assert shown["models"]["names"] == ["glm-5.3"]
    assert shown["leaked_responses"] == 155


def test_log_commands_ask_glibc_to_reuse_freed_blocks(monkeypatch: Any) -> None:
    """scope and report set the allocator options (glibc only); other commands, and the help
    of any command (it reads no logs), leave it be."""
    import ctypes

    from assess import cli
    from assess.cli import _runtime

    calls: list[tuple[int, int]] = []

    class FakeLibc:
        def mallopt(self, option: int, value: int) -> int:
            calls.append((option, value))
            return 1

    monkeypatch.setattr(_runtime.os, "confstr", lambda name: "glibc 2.36", raising=False)
    monkeypatch.setattr(ctypes, "CDLL", lambda name: FakeLibc())
    assert _runtime.reuse_freed_blocks() is True
    assert calls == [(-3, 64 << 20), (-1, 1 << 30)]  # mmap threshold, trim threshold
    monkeypatch.setattr(_runtime.os, "confstr", lambda name: "musl", raising=False)
    assert _runtime.reuse_freed_blocks() is False
    assert len(calls) == 2

    used: list[str] = []
    monkeypatch.setattr(_runtime, "reuse_freed_blocks", lambda: used.append("set") or True)
    monkeypatch.setattr(_runtime, "pyarrow_without_pandas", lambda: None)
    monkeypatch.setattr(_runtime, "leave", lambda code: (_ for _ in ()).throw(SystemExit(code)))
    runs = ((["advisories", "list"], []), (["scope"], ["set"]), (["scope", "--help"], []))
    for argv, expected in runs:
        used.clear()
        monkeypatch.setattr(sys, "argv", ["assess", *argv])
        try:
            cli.main()
        except SystemExit:
            pass
        assert used == expected


def test_main_collects_no_garbage_while_importing_and_turns_collection_back_on(
    monkeypatch: Any,
) -> None:
    """The imports of a command run with the collector off; the command itself runs with it on,
    the objects the imports made frozen out of every collection."""
    import gc

    from assess import cli
    from assess.cli import _runtime

    seen: dict[str, bool] = {}
    real_build = cli.build_app

    def build(only: str | None = None) -> Any:
        seen["importing"] = gc.isenabled()
        return real_build(only)

    monkeypatch.setattr(cli, "build_app", build)
    monkeypatch.setattr(_runtime, "leave", lambda code: (_ for _ in ()).throw(SystemExit(code)))
    monkeypatch.setattr(sys, "argv", ["assess", "advisories", "list"])
    assert gc.isenabled()
    try:
        cli.main()
    except SystemExit as exc:
        assert exc.code in (0, None)
    finally:
        frozen = gc.get_freeze_count()
        gc.unfreeze()
    assert seen == {"importing": False}
    assert gc.isenabled() and frozen > 0


def test_process_tuning_lives_in_one_module() -> None:
    """Allocator settings, collector switches, import blockers and the teardown skip are in
    assess/cli/_runtime.py only, where each is measured (docs/PERFORMANCE.md)."""
    from pathlib import Path

    package = Path(__file__).resolve().parent.parent / "assess"
    tricks = ("mallopt", "gc.freeze", "gc.disable", "os._exit", "sys.meta_path", "OPENBLAS_")
    found = {
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if any(trick in path.read_text(encoding="utf-8") for trick in tricks)
    }
    assert found <= {"cli/_runtime.py"}


def test_openblas_gets_one_thread_unless_the_user_chose(monkeypatch: Any) -> None:
    """numpy's OpenBLAS threads spin on a small machine and assess does no linear algebra: the
    default is one thread, and a user's own OPENBLAS_NUM_THREADS is kept."""
    from assess.cli import _runtime

    monkeypatch.setattr(_runtime.gc, "disable", lambda: None)  # leave this process's gc alone
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    _runtime.before_imports("version")
    assert _runtime.os.environ["OPENBLAS_NUM_THREADS"] == "1"
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    _runtime.before_imports("version")
    assert _runtime.os.environ["OPENBLAS_NUM_THREADS"] == "4"
