"""Issue 36, item 19: CJK and emoji in a vendor name rendered as empty boxes, without a word.

assess bundles no font; the review names every character no installed font covers (stderr of
`assess report`), so a PDF of boxes never goes out unnoticed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assess.report import glyphs
from tests.conftest import REPO

NAME = "北京云算 AI"


def test_the_warning_names_each_uncovered_character(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(glyphs, "covered", lambda: frozenset(range(0x3000)))
    warning = glyphs.glyph_warning(f"<p title='漢'>Vendor {NAME}</p>")
    assert warning is not None
    for ch in "北京云算":
        assert f"{ch} (U+{ord(ch):04X})" in warning
    assert "漢" not in warning  # attributes are not shown text
    assert "fonts-noto-cjk" in warning


def test_no_warning_when_every_character_is_covered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(glyphs, "covered", lambda: frozenset(range(0x110000)))
    assert glyphs.glyph_warning(f"<p>{NAME} 😀</p>") is None


def test_the_installed_fonts_are_read() -> None:
    have = glyphs.covered()
    if have is None:
        pytest.skip("fontconfig's fc-list is not installed")
    assert ord("A") in have  # WeasyPrint needs at least one font to render at all


def test_report_warns_on_stderr(run_cli: Any, tmp_path: Path) -> None:
    have = glyphs.covered()
    if have is None or all(ord(ch) in have for ch in NAME if ch.strip()):
        pytest.skip("this machine has fonts covering the name")
    answers = tmp_path / "answers.yaml"
    text = (REPO / "samples" / "vendors" / "incident-like.yaml").read_text(encoding="utf-8")
    answers.write_text(text.replace("Example Edge AI", NAME), "utf-8")
    result = run_cli("report", "-q", str(answers), "--format", "pdf", "--out", str(tmp_path / "r"))
    assert result.exit_code == 0, result.output
    assert "warning: report.pdf: no installed font covers" in result.stderr
    assert "北 (U+5317)" in result.stderr
