"""https:// logs: one streamed GET per file (httpx), and the size a HEAD request reports."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from assess.kernel.errors import InputError
from assess.scope.logs.remote import display_url


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


class HttpFetcher:
    """``fetch(offset, size)`` over one streamed GET: the spool asks for the object's bytes in
    order, and each call continues the same response (sniffing, the samples and the read are
    one GET). A call at another offset opens a ranged GET from there (a server that ignores
    ``Range`` sends the body from 0: the bytes before the offset are passed over). A connection
    that fails mid-body returns what it received, then raises OSError on the next call."""

    def __init__(self, url: str, display: str) -> None:
        self._url, self._display = url, display
        self._body: Generator[bytes, None, None] | None = None
        self._at = 0  # the offset of the next byte the open response gives
        self._held: list[bytes] = []  # received, not yet asked for
        self._failed: OSError | None = None

    def __call__(self, offset: int, size: int) -> bytes:
        if self._failed is not None and offset == self._at:
            raise self._failed
        if self._body is None or offset != self._at:
            self._open(offset)
        assert self._body is not None
        have = sum(map(len, self._held))
        try:
            while have < size:
                part = next(self._body, b"")
                if not part:
                    break
                self._held.append(part)
                have += len(part)
        except OSError as exc:
            if not self._held:
                raise
            self._failed = exc
        joined = b"".join(self._held)
        data, rest = joined[:size], joined[size:]
        self._held = [rest] if rest else []
        self._at += len(data)
        return data

    def _open(self, offset: int) -> None:
        self.close()
        headers = {"Range": f"bytes={offset}-"} if offset else {}
        body = _body(self._url, self._display, headers)
        skip = int(next(body))  # the bytes before ``offset`` the server sends (Range ignored)
        self._body, self._at, self._held, self._failed = body, offset, [], None
        while skip > 0:
            part = next(body, b"")
            if not part:
                break
            if len(part) > skip:
                self._held = [part[skip:]]
            skip -= len(part)

    def close(self) -> None:
        """End the open response, if any."""
        if self._body is not None:
            self._body.close()
        self._body = None


def _body(url: str, display: str, headers: dict[str, str]) -> Generator[Any, None, None]:
    """Yield how many bytes to pass over first (0, or the range's start when the server sent
    the whole body), then the body's pieces of one streamed GET.

    Raises:
        InputError: an HTTP error status; OSError: the connection failed mid-body.
    """
    import httpx

    with httpx.stream("GET", url, headers=headers, follow_redirects=True, timeout=60) as response:
        if response.status_code >= 400:
            raise InputError(
                f"{display}: cannot be read (HTTP {response.status_code})",
                "Check the URL; a presigned URL may have expired.",
            )
        start = int(headers.get("Range", "bytes=0-")[6:-1])
        yield start if response.status_code != 206 else 0
        got = 0
        received = response.iter_raw()
        while True:
            try:
                part = next(received, None)
            except httpx.HTTPError as exc:
                raise OSError(f"{display}: {type(exc).__name__} after {got:,} bytes") from exc
            if part is None:
                return
            got += len(part)
            yield part
