"""`assess samples --out DIR` writes the shipped samples in the repository's layout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import REPO


def test_writes_every_sample_in_the_repository_layout(run_cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "samples"
    result = run_cli("samples", "--out", str(out))
    assert result.exit_code == 0, result.output
    source = REPO / "samples"
    shipped = {p.relative_to(source) for p in source.rglob("*") if p.is_file()}
    written = {p.relative_to(out) for p in out.rglob("*") if p.is_file()}
    assert written == shipped
    assert (out / "vendors" / "well-run.yaml").read_bytes() == (
        REPO / "samples" / "vendors" / "well-run.yaml"
    ).read_bytes()
    assert f"Wrote {len(shipped)} sample files" in result.output
    # the examples then run from the folder holding samples/
    again = run_cli("score", str(out / "vendors" / "well-run.yaml"))
    assert again.exit_code == 0 and "Careful Compute GmbH" in again.output


def test_a_second_run_keeps_identical_files_and_refuses_to_overwrite_others(
    run_cli: Any, tmp_path: Path
) -> None:
    out = tmp_path / "s"
    assert run_cli("samples", "--out", str(out)).exit_code == 0
    again = run_cli("samples", "--out", str(out))
    assert again.exit_code == 0 and "Wrote 0 sample files" in again.output
    edited = out / "vendors" / "evasive.yaml"
    edited.write_text("my own answers\n")
    refused = run_cli("samples", "--out", str(out))
    assert refused.exit_code == 2
    assert "differ from the shipped samples" in refused.stderr and "--force" in refused.stderr
    assert edited.read_text() == "my own answers\n"
    forced = run_cli("samples", "--out", str(out), "--force")
    assert forced.exit_code == 0 and "Wrote 1 sample files" in forced.output
    assert edited.read_bytes() == (REPO / "samples" / "vendors" / "evasive.yaml").read_bytes()
