"""Issue 36, item 15: PDF rendering was quadratic in unbroken text (20k characters: 45 s).

The timing lives in benchmarks/pdf_long_text.py (no timed unit test); here: the PDF's HTML gets
break opportunities in every long run and no text over the cap, tags and entities untouched,
and the stylesheet that turns per-character breaking off is handed to WeasyPrint.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from assess.report import pdf
from assess.report.breaks import (
    LONG,
    MAX_PDF_TEXT,
    PDF_BREAK_CSS,
    PIECE,
    ZWSP,
    break_long_runs,
)


def test_a_long_run_gets_break_opportunities() -> None:
    run = "Qx7" * 10_000
    html = f'<html><head><style>.a{{}}</style></head><body><td title="{run}">{run[:2000]}</td>'
    out = break_long_runs(html + "</body></html>")
    assert f'title="{run}"' in out  # attributes untouched
    text = out.split("</td>")[0].rsplit(">", 1)[1]
    assert ZWSP in text
    assert max(len(piece) for piece in text.split(ZWSP)) <= PIECE


def test_a_huge_text_is_cut_in_the_pdf_saying_where_the_rest_is() -> None:
    out = break_long_runs("<body><td>" + "a&amp;" * 2000 + "</td></body>")
    shown = out.split("<td>")[1].split("</td>")[0]
    assert "more characters: see the attached report.json]" in shown
    assert len(shown.replace(ZWSP, "")) < MAX_PDF_TEXT + 100
    kept = shown.split(" [...")[0]
    assert kept.endswith(("a", "&amp;"))  # never cut inside an entity


def test_short_runs_and_hashes_stay_as_written() -> None:
    sha = "a" * 64
    html = f"<body><p>{sha} and words</p><p>{'b' * LONG}</p></body>"
    assert break_long_runs(html) == html


@given(st.text(alphabet=st.characters(blacklist_characters="<>&"), max_size=3000))
def test_breaks_only_add_zero_width_spaces(text: str) -> None:
    out = break_long_runs(f"<body><p>{text}</p></body>")
    assert out.replace(ZWSP, "") == f"<body><p>{text}</p></body>".replace(ZWSP, "")


def test_render_pdf_uses_the_break_stylesheet() -> None:
    source = open(pdf.__file__, encoding="utf-8").read()
    assert "break_long_runs(render_html(" in source and "CSS(string=PDF_BREAK_CSS)" in source
    assert "overflow-wrap: break-word" in PDF_BREAK_CSS
