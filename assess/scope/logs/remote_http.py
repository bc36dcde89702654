"""https:// logs: one streamed GET per file (httpx), and the size a HEAD request reports."""

from __future__ import annotations

from collections.abc import Iterator

from assess.kernel.errors import InputError
from assess.scope.logs.remote import CHUNK, display_url


def http_pieces(url: str, display: str, first: int) -> Iterator[bytes]:
    """Yield the body of one streamed GET: ``first`` bytes, then pieces of :data:`CHUNK`; a
    connection that fails mid-body yields what it received, then raises OSError."""
    import httpx

    with httpx.stream("GET", url, follow_redirects=True, timeout=60) as response:
        if response.status_code >= 400:
            raise InputError(
                f"{display}: cannot be read (HTTP {response.status_code})",
                "Check the URL; a presigned URL may have expired.",
            )
        parts: list[bytes] = []
        got, goal = 0, first
        received = response.iter_raw()
        while True:
            try:
                part = next(received, None)
            except httpx.HTTPError as exc:
                if parts:
                    yield b"".join(parts)
                raise OSError(f"{display}: {type(exc).__name__} after {got:,} bytes") from exc
            if part is None:
                break
            parts.append(part)
            got += len(part)
            if got >= goal:
                yield b"".join(parts)
                parts, got, goal = [], 0, CHUNK
        if parts:
            yield b"".join(parts)


def http_size(url: str) -> int | None:
    """Return the Content-Length of ``url`` (None when the server does not say).

    Raises:
        InputError: when the server answers that there is no such resource.
    """
    import httpx

    try:
        response = httpx.head(url, follow_redirects=True, timeout=30)
    except httpx.HTTPError as exc:
        raise InputError(
            f"{display_url(url)}: cannot be reached ({type(exc).__name__})", "Check the URL."
        ) from exc
    if response.status_code in (401, 403, 404, 410):
        raise InputError(
            f"{display_url(url)}: cannot be read (HTTP {response.status_code})",
            "Check the URL; a presigned URL may have expired.",
        )
    length = response.headers.get("content-length")
    return int(length) if length and length.isdigit() else None
