"""portfolio.html fits a 1280 px window: WeasyPrint lays the page out (screen media) on a page
1280 px wide, and the table's right edge must be inside it. The per-section points are one
wrapping cell (they were ten columns, 1,569 px wide with the samples), and long paths break."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assess.cli import app
from tests.conftest import CLI_ENV, REPO

VENDORS = REPO / "samples" / "vendors"


def _boxes(box: Any) -> Any:
    yield box
    for child in getattr(box, "children", None) or []:
        yield from _boxes(child)


def table_right_edge(html: Path, width: int) -> float:
    """Return the right edge (px) of the page's table laid out on a page ``width`` px wide."""
    from weasyprint import CSS, HTML

    page_css = CSS(string=f"@page {{ size: {width}px 6000px; margin: 0 }}")
    document = HTML(filename=str(html), media_type="screen").render(stylesheets=[page_css])
    tables = [b for b in _boxes(document.pages[0]._page_box) if type(b).__name__ == "TableBox"]
    assert len(tables) == 1
    return float(tables[0].position_x + tables[0].margin_width())


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("portfolio")
    previous = where / "assessments-of-hosted-llm-vendors-2026" / "third-quarter-committee-round"
    previous.mkdir(parents=True)
    runner = CliRunner(env=CLI_ENV)
    scored = runner.invoke(
        app,
        ["score", str(VENDORS / "incident-like.yaml"), "--json", str(previous / "edge.json")],
    )
    assert scored.exit_code in (0, 1), scored.output
    answers = sorted(VENDORS.glob("*.yaml")) + sorted((VENDORS / "public-docs").glob("*.yaml"))
    for index, path in enumerate(answers):  # long file names, as real ones are
        shutil.copy(path, where / f"vendor-answers-{index}-received-from-procurement-{path.name}")
    args = ["portfolio", *map(str, sorted(where.glob("vendor-answers-*.yaml")))]
    result = runner.invoke(app, [*args, "--previous", str(previous), "--out", str(where / "out")])
    assert result.exit_code == 0, result.output
    return where / "out" / "portfolio.html"


def test_the_portfolio_page_fits_1280_px(page: Path) -> None:
    assert table_right_edge(page, 1280) <= 1280


def test_the_measure_sees_a_page_that_does_not_fit(page: Path) -> None:
    """Positive control: the same page does not fit 640 px, and the measure says so."""
    assert table_right_edge(page, 640) > 640
