"""Render the review to PDF/A with WeasyPrint, ``report.json`` attached inside.

WeasyPrint fetches every URL a document names (images, stylesheets, fonts). Report values come
from vendors and logs, so the fetcher we hand it serves only our own packaged report assets and
refuses everything else: ``http(s)://``, ``data:``, and ``file://`` anywhere outside the templates.
"""

from __future__ import annotations

import mimetypes
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit
from urllib.request import url2pathname

from assess.kernel.errors import OutputError
from assess.report.breaks import PDF_BREAK_CSS, break_long_runs
from assess.report.html import render_html, template_dir
from assess.report.models import Report

if TYPE_CHECKING:
    from weasyprint.urls import URLFetcherResponse

#: PDF/A-3 allows embedded files of any type (report.json), PDF/A-2 does not. Conformance level
#: B (visual appearance) is what is claimed; the PDF is tagged as well (``pdf_tags``: structure
#: tree, reading order, table headers for screen readers) but level A is not claimed, since no
#: validator that checks it (veraPDF is Java, not on the registries we install from) runs here.
DEFAULT_PDF_VARIANT = "pdf/a-3b"
#: What a packaged asset may be: stylesheets, images, fonts.
ASSET_SUFFIXES = frozenset({".css", ".svg", ".png", ".jpg", ".jpeg", ".woff", ".woff2", ".ttf"})


class AssetRefusedError(ValueError):
    """The PDF renderer was asked for a URL that is not a packaged report asset."""


def _fetcher_class() -> type[Any]:
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    class PackagedAssetFetcher(URLFetcher):  # type: ignore[misc]
        """Serve files under the templates folder; refuse and record every other URL."""

        def __init__(self, root: Path) -> None:
            super().__init__(allowed_protocols=("file",), allow_redirects=False)
            self.root = root.resolve()
            self.refused: list[str] = []

        def fetch(self, url: str, headers: Any = None) -> URLFetcherResponse:
            path = asset_path(url, self.root)
            if path is None:
                self.refused.append(url)
                raise AssetRefusedError(f"refused {url!r}: not a packaged report asset")
            content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            return URLFetcherResponse(
                url, body=path.read_bytes(), headers={"Content-Type": content_type}
            )

    return PackagedAssetFetcher


def asset_path(url: str, root: Path) -> Path | None:
    """Return the file ``url`` names when it is a packaged asset under ``root``, else None."""
    parts = urlsplit(url)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost") or parts.query:
        return None
    try:
        path = Path(url2pathname(parts.path)).resolve()
    except (OSError, ValueError):
        return None
    if not path.is_relative_to(root) or path.suffix.lower() not in ASSET_SUFFIXES:
        return None
    return path if path.is_file() else None


def make_fetcher() -> Any:
    """Return a WeasyPrint URL fetcher restricted to the packaged report templates."""
    return _fetcher_class()(Path(template_dir()))


def render_pdf(
    report: Report,
    report_json: bytes,
    pdf_variant: str | None = DEFAULT_PDF_VARIANT,
    fetcher: Any = None,
) -> bytes:
    """Return the review as tagged PDF bytes (PDF/A-3b unless ``pdf_variant`` says otherwise).

    ``report_json`` is attached as ``report.json`` (relationship ``Data``). Title, author and the
    creation/modification dates come from the HTML metadata, dated ``report.generated_at`` so the
    same report renders to the same bytes.

    Raises:
        OutputError: if WeasyPrint cannot render (e.g. the Pango libraries are missing).
    """
    try:
        from weasyprint import CSS, HTML, Attachment
    except OSError as exc:  # WeasyPrint raises OSError when Pango cannot be loaded
        raise OutputError(
            f"report.pdf: WeasyPrint cannot start ({exc})",
            "Install the Pango libraries (apt-get install libpango-1.0-0 libpangoft2-1.0-0) "
            "or leave pdf out of --format.",
        ) from exc
    fetcher = fetcher if fetcher is not None else make_fetcher()
    when = datetime.fromisoformat(report.generated_at.replace("Z", "+00:00"))
    base_url = Path(template_dir()).resolve().as_uri() + "/"
    attachment = Attachment(
        string=report_json,
        base_url=base_url,
        url_fetcher=fetcher,
        name="report.json",
        description="Machine-readable twin of this review (assess.report)",
        created=when,
        modified=when,
        relationship="Data",
    )
    html = break_long_runs(render_html(report, pdf=True))
    document = HTML(string=html, base_url=base_url, url_fetcher=fetcher)
    with _font_timestamps(int(when.timestamp())):
        pdf: bytes = document.write_pdf(
            stylesheets=[CSS(string=PDF_BREAK_CSS)],
            pdf_variant=pdf_variant,
            pdf_tags=True,
            attachments=[attachment],
            uncompressed_pdf=False,
        )
    return pdf


@contextmanager
def _font_timestamps(epoch: int) -> Iterator[None]:
    """Date the embedded font subsets ``epoch`` (fontTools stamps ``head.modified`` with the time
    unless SOURCE_DATE_EPOCH is set), so the same report always renders to the same bytes."""
    saved = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = str(epoch)
    try:
        yield
    finally:
        if saved is None:
            del os.environ["SOURCE_DATE_EPOCH"]
        else:
            os.environ["SOURCE_DATE_EPOCH"] = saved
