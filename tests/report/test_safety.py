"""Hostile values render as text, and the PDF renderer fetches nothing from anywhere."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assess.report.html import template_dir
from assess.report.pdf import AssetRefusedError, asset_path, make_fetcher
from tests.report.conftest import copy_assets, full_args, invoke


@pytest.fixture(scope="module")
def listener() -> Iterator[socket.socket]:
    """A real TCP listener on 127.0.0.1: anything that connects is queued for accept()."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.setblocking(False)
    yield sock
    sock.close()


def assert_no_connection(sock: socket.socket) -> None:
    with pytest.raises(BlockingIOError):
        conn, _ = sock.accept()
        conn.close()


def payloads(port: int) -> list[str]:
    return [
        "<script>alert('x')</script>",
        f'<img src="http://127.0.0.1:{port}/x">',
        "<style>body { background: url(file:///etc/passwd) }</style>",
        "url(file:///etc/passwd)",
    ]


def hostile(port: int) -> str:
    return " ".join(payloads(port))


@pytest.fixture(scope="module")
def review(module_tmp: Path, listener: socket.socket) -> Path:
    bad = hostile(listener.getsockname()[1])

    def edit(name: str, doc: dict[str, Any]) -> None:
        if name == "score.json":
            doc["answers"]["engine.version"]["note"] = bad
            doc["findings"][0]["detail"] = bad
            doc["vendor"]["service"] = bad
        elif name == "scope.json":
            doc["skipped"][0]["reason"] = bad
            doc["affected"]["accounts"][0]["account_id"] = bad
        elif name == "probe.json":
            doc["hits"][0]["text"] = bad
        elif name == "deploy.json":
            doc["nodes"][0]["settings"]["transfer_backend"] = bad

    src = copy_assets(module_tmp / "in", edit)
    out = module_tmp / "out"
    result = invoke(*full_args(src, out, "--include-prompts"))
    assert result.exit_code == 0, result.output
    return out


def test_pdf_rendering_makes_no_request(review: Path, listener: socket.socket) -> None:
    assert (review / "report.pdf").stat().st_size > 10_000
    assert_no_connection(listener)


def test_hostile_values_are_escaped_text_in_the_html(review: Path, listener: socket.socket) -> None:
    html = (review / "report.html").read_text()
    port = listener.getsockname()[1]
    assert "<script" not in html
    assert "<img" not in html
    assert "file:///etc/passwd" in html  # as text, inside escaped markup
    assert f"&lt;img src=&#34;http://127.0.0.1:{port}/x&#34;&gt;" in html
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html
    assert html.count("<style>") == 1  # ours only


def test_hostile_values_appear_in_the_pdf_as_text(review: Path) -> None:
    import pypdf

    text = "".join(
        "".join(page.extract_text().split())
        for page in pypdf.PdfReader(review / "report.pdf").pages
    )
    assert "<script>alert('x')</script>" in text
    assert "url(file:///etc/passwd)" in text


def test_fetcher_refuses_everything_but_packaged_assets(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    root = Path(template_dir()).resolve()
    assert asset_path((root / "report.css").as_uri(), root) == root / "report.css"
    for url in (
        f"http://127.0.0.1:{port}/x",
        f"https://127.0.0.1:{port}/x",
        "file:///etc/passwd",
        (root / ".." / ".." / "pyproject.toml").as_uri(),
        (root / "base.html.j2").as_uri(),  # not an asset type
        "data:text/css,body{}",
        "ftp://127.0.0.1/x",
    ):
        assert asset_path(url, root) is None, url
    fetcher = make_fetcher()
    with pytest.raises(AssetRefusedError):
        fetcher.fetch(f"http://127.0.0.1:{port}/x")
    assert_no_connection(listener)


def test_weasyprint_with_our_fetcher_loads_nothing_even_from_raw_markup(
    listener: socket.socket,
) -> None:
    """Belt and braces: were escaping ever bypassed, the fetcher still refuses every URL."""
    from weasyprint import HTML

    port = listener.getsockname()[1]
    raw = (
        "<!DOCTYPE html><html><head><title>t</title>"
        "<style>body { background: url(file:///etc/passwd) }</style>"
        f'<link rel="stylesheet" href="http://127.0.0.1:{port}/s.css"></head>'
        f'<body><img src="http://127.0.0.1:{port}/x"><p>text</p></body></html>'
    )
    fetcher = make_fetcher()
    HTML(string=raw, base_url=Path(template_dir()).as_uri() + "/", url_fetcher=fetcher).write_pdf()
    assert f"http://127.0.0.1:{port}/x" in fetcher.refused
    assert f"http://127.0.0.1:{port}/s.css" in fetcher.refused
    assert "file:///etc/passwd" in fetcher.refused
    assert_no_connection(listener)


def test_report_json_keeps_hostile_text_verbatim(review: Path, listener: socket.socket) -> None:
    doc = json.loads((review / "report.json").read_text())
    assert doc["vendor"]["service"] == hostile(listener.getsockname()[1])
