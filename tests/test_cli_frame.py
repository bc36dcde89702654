"""The CLI frame: help, version, and how user errors come out."""

from __future__ import annotations

import subprocess
import sys

from assess import __version__


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
