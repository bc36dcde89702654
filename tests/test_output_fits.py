"""At 60 and 80 columns and piped (no COLUMNS: rich's 80), what the tables exist to show comes
out whole: every finding id, field path, changed value, vendor name, date and node name the
command's own --json holds appears in its text output as a whole word (none folded across
lines, none cropped with an ellipsis). The identifiers are read from the --json output of the
same run, not written here. assess/kernel/tables.py is what switches a table that would cut a
word to the vertical layout."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.table import Table

from assess.kernel.output import TrimmedLines
from assess.kernel.tables import fits, pair_lines, print_table, row_lines
from assess.vendor.render import show_value
from tests.conftest import REPO

SAMPLES = REPO / "samples"
WIDTHS = ["60", "80", "piped"]
_SEPARATORS = re.compile(r"[\s│┃┆┇┊┋║╎╏|]+")


def run(args: list[str], width: str, cwd: Path) -> str:
    """Return what `assess ARGS` prints (stdout and stderr) at ``width`` columns, piped."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("COLUMNS", None)
    if width != "piped":
        env["COLUMNS"] = width
    done = subprocess.run(
        [sys.executable, "-m", "assess", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return done.stdout + done.stderr


def json_of(args: list[str], cwd: Path) -> Any:
    out = cwd / "out.json"
    run([*args, "--json", str(out)], "80", cwd)
    return json.loads(out.read_text())


def words(values: Iterable[str]) -> set[str]:
    return {word for value in values for word in str(value).split()}


def assert_whole(output: str, expected: set[str]) -> None:
    tokens = set(_SEPARATORS.split(output))
    # a word followed by punctuation in running text ("path," "(affected)") is still whole
    shown = tokens | {t.rstrip(",;:.") for t in tokens} | {t.strip("()") for t in tokens}
    cut = sorted(expected - shown)
    assert not cut, f"cut or missing in the output: {cut[:10]}\n{output[:3000]}"


def _score(data: Any) -> set[str]:
    return words([f["id"] for f in data["findings"]] + [f["ref"] for f in data["findings"]])


def _diff(data: Any) -> set[str]:
    found = [c["id"] for c in data["changes"]]
    for change in data["changes"]:
        found += [show_value(change["old"]["value"]), show_value(change["new"]["value"])]
    return words(found)


def _scope(data: Any) -> set[str]:
    paths = []
    for reading in data["reading"]:
        for field in reading["fields"]:
            paths += [field["field"], *field["by_path"], *field["other_paths_seen"]]
    return words(paths) | {"(affected)"}


def _portfolio(data: Any) -> set[str]:
    return words(v["vendor"] for v in data["vendors"]) | words(
        v["last_assessed"] for v in data["vendors"]
    )


def _deploy(data: Any) -> set[str]:
    found = [n["name"] for n in data["nodes"]] + [n["version"] or "?" for n in data["nodes"]]
    found += [f"{n['pool_tokens']:,}" for n in data["nodes"] if n["pool_tokens"] is not None]
    return words(found)


CASES: dict[str, tuple[list[str], Callable[[Any], set[str]]]] = {
    "score": (["score", "samples/vendors/incident-like.yaml"], _score),
    "questionnaire diff": (
        [
            "questionnaire",
            "diff",
            "samples/vendors/incident-like.yaml",
            "samples/vendors/incident-like-after-fix.yaml",
        ],
        _diff,
    ),
    "scope --explain": (["scope", "samples/logs/litellm.ndjson", "--explain"], _scope),
    "portfolio": (
        [
            "portfolio",
            "samples/vendors/incident-like.yaml",
            "samples/vendors/well-run.yaml",
            "samples/vendors/evasive.yaml",
        ],
        _portfolio,
    ),
    "deploy-check": (
        [
            "deploy-check",
            "samples/serverlogs/sglang-prefill.log",
            "samples/serverlogs/sglang-decode.log",
            "--advertised-context",
            "1048576",
        ],
        _deploy,
    ),
}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("fits")
    (where / "samples").symlink_to(SAMPLES)
    return where


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_no_identifier_is_cut(case: str, width: str, workdir: Path) -> None:
    args, expected_of = CASES[case]
    expected = expected_of(json_of(args, workdir))
    assert len(expected) >= 3  # the identifiers were read
    output = run(args, width, workdir)
    assert_whole(output, expected)
    # piped, rich padded cells, centred titles and broke lines after a space: none stays
    trailing = [line for line in output.splitlines() if line != line.rstrip()]
    assert not trailing, trailing[:5]
    if width != "piped":
        limit = int(width)
        long_words = {w for w in expected if len(w) > limit}
        too_wide = [
            line
            for line in output.splitlines()
            if len(line.rstrip()) > limit and not any(w in line for w in long_words)
        ]
        assert not too_wide, too_wide[:5]


def _table(width_of_id: int) -> Table:
    table = Table("ref", "severity", "evidence", "pts", "finding (id)", title="Findings")
    table.add_row("F-01", "critical", "attested", "40", "x" * width_of_id + "\n[dim]a.b[/]")
    return table


def test_fits_sees_a_word_folded_or_cropped() -> None:
    """Positive control: a word too long for its column at this width is seen as cut."""
    assert fits(_table(10), 80)
    assert not fits(_table(70), 80)  # rich would fold the 70-character word
    cropped = Table("count", "records")
    cropped.add_row("received (affected)", "0")
    assert fits(cropped, 40)
    assert not fits(cropped, 12)


def test_the_vertical_layout_keeps_words_whole(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    with path.open("w") as stream:
        print_table(Console(file=stream, width=60, color_system=None), _table(70))
    text = path.read_text()
    assert "x" * 70 in text.split()
    assert text.startswith("Findings\nref: F-01  severity: critical  evidence: attested  pts: 40\n")


def test_trimmed_lines_drop_only_the_spaces_before_a_line_break() -> None:
    """A line may come in several writes: spaces at the end of one are held, not lost inside."""
    stream = io.StringIO()
    trimmed = TrimmedLines(stream)
    for piece in ["│ a  │ b   ", "  \n  indented  ", "", "x  \n", "tail  "]:
        trimmed.write(piece)
    assert stream.getvalue() == "│ a  │ b\n  indented  x\ntail"
    table = Table("id", "value", box=None, title="Centred")
    table.add_row("a", "1")
    table.add_row("a much longer id", "22")
    padded = io.StringIO()
    Console(file=padded, width=60, color_system=None).print(table)
    trimmed_out = io.StringIO()
    Console(file=TrimmedLines(trimmed_out), width=60, color_system=None).print(table)  # type: ignore[arg-type]
    assert padded.getvalue() != trimmed_out.getvalue()  # rich pads: the control
    assert trimmed_out.getvalue().splitlines() == [
        line.rstrip() for line in padded.getvalue().splitlines()
    ]


def test_row_lines_pack_short_cells_and_skip_empty_ones() -> None:
    lines = row_lines(["a", "b", "c"], ["1", "", "a long value " * 3], 30)
    assert lines[0] == "a: 1"
    assert all(len(line) <= 30 for line in lines)
    assert not any(line.startswith("b:") for line in lines)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("advisory", ["chatgpt-redis-py-2023", "vllm-prefix-cache-timing"])
def test_advisories_show_reads_as_one_record_at_every_width(
    advisory: str, width: str, workdir: Path
) -> None:
    """acc41 m1: a source URL longer than the value column switched the whole record to blank-line
    separated blocks at 80 columns. Now: labels in a column beside their values (a value column of
    40 or more), else ``label: value`` lines; never a blank line; every URL whole."""
    data = json.loads(run(["advisories", "show", advisory, "--json"], "80", workdir))
    urls = {source["url"] for source in data["sources"]}
    output = run(["advisories", "show", advisory], width, workdir)
    assert_whole(output, urls | {data["id"], data["behaviour"]})
    assert "" not in output.rstrip("\n").splitlines()
    limit = 80 if width == "piped" else int(width)
    too_wide = [line for line in output.splitlines() if len(line) > limit and " " in line.strip()]
    assert not too_wide, too_wide[:5]
    aligned = re.search(rf"^class {{2,}}{data['behaviour']}$", output, re.MULTILINE)
    stacked = f"\nclass: {data['behaviour']}\n" in output
    assert bool(aligned) if limit >= 80 else bool(aligned) != stacked, output[:600]


def test_pair_lines_align_values_and_give_a_long_word_its_own_line() -> None:
    url = "https://example.org/" + "x" * 50  # 70: wider than the value column (67)
    lines = pair_lines([("class", "stale-kv-read"), ("source (pr)", f"The fix: {url}")], 80)
    assert lines == [
        "class        stale-kv-read",
        "source (pr)  The fix:",
        f"    {url}",
    ]
    assert pair_lines([("source (pr)", f"The fix: {url}")], 50)[0] == "source (pr): The fix:"
