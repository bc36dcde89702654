"""The RE2 prefilter never hides a response the foreign-data patterns would flag."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from assess.scope.accumulator import _foreign_column
from assess.scope.text import MAYBE_FOREIGN, foreign_kinds

PIECES = st.sampled_from(
    [
        "a@b.io",
        "x@y",
        "https://h.example/p",
        "http://",
        "sk-" + "A" * 20,
        "AKIA" + "B" * 16,
        "ghp_" + "c" * 36,
        "xoxb-" + "1" * 12,
        "AIza" + "d" * 35,
        "123e4567-e89b-12d3-a456-426614174000",
        "deadbeef" * 4,
        "10.0.0.1",
        "١٢.٣.٤.٥",  # Arabic-Indic digits: Python's \d matches them
        "255.255.255.255",
        " ",
        "ok",
        ".",
        "-",
        "é",
    ]
)


@settings(max_examples=400, deadline=None)  # the first call compiles the RE2 pattern
@given(st.lists(st.one_of(PIECES, st.text(max_size=12)), max_size=8).map("".join))
def test_prefilter_is_a_superset_of_the_patterns(text: str) -> None:
    maybe = pc.match_substring_regex(pa.array([text]), MAYBE_FOREIGN)[0].as_py()
    if foreign_kinds(text, None):
        assert maybe


def test_foreign_column_matches_foreign_kinds_row_by_row() -> None:
    responses = [
        "ok",
        None,
        "mail a@b.io",
        "see https://x.example",
        "key sk-" + "Z" * 20,
        "1.2.3.4",
    ]
    prompts = ["", "p", "a@b.io was mine", None, "", "no ip"]
    got = _foreign_column(pa.array(responses, pa.large_string()), pa.array(prompts)).to_pylist()
    want = [
        None if r is None else ",".join(sorted(foreign_kinds(r, p)))
        for r, p in zip(responses, prompts, strict=True)
    ]
    assert got == want
    assert got == ["", None, "", "url", "api_key", "ipv4"]
