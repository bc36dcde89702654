"""Bounds on what one response may cost: its size and the wall-clock time to read it.

httpx's timeout bounds each read, not the whole body, so a server that trickles an endless
answer kept a probe running (and its memory growing by 140 MB/s) whatever ``--timeout`` said.
Both transports build their HTTP client with :func:`limited_client_kwargs`: a response hook wraps
every body stream (also through proxies, redirects refused anyway) in one that counts the bytes
and checks the deadline at every chunk, and raises :class:`ResponseLimit` past either bound.
The deadline is per thread: concurrent probes share one client per account.
"""

from __future__ import annotations

import threading
import time
import zlib
from collections.abc import Callable, Iterator
from typing import Any, Literal

from assess.probe.transport.interface import TransportError

#: Largest response body read (a chat answer of a few hundred tokens is a few KB; 4 MB is about
#: a million tokens of text): past it the endpoint is sending something that is not an answer.
MAX_RESPONSE_BYTES = 4 << 20

LimitKind = Literal["too_large", "deadline", "encoding"]
#: Compressed input handed to a brotli or zstd decoder at once (neither bounds its output, so a
#: small slice bounds what one call can inflate to).
_SLICE = 64


class ResponseLimit(Exception):
    """A response body went past :data:`MAX_RESPONSE_BYTES` or its wall-clock deadline."""

    def __init__(self, kind: LimitKind, detail: str) -> None:
        super().__init__(detail)
        self.kind: LimitKind = kind
        self.detail = detail


class Limits:
    """The bounds of the response being read by the current thread."""

    def __init__(self, max_bytes: int = MAX_RESPONSE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._local = threading.local()

    def arm(self, seconds: float) -> None:
        """Give the next responses read by this thread ``seconds`` of wall-clock time, from now."""
        self._local.deadline = time.monotonic() + seconds
        self._local.seconds = seconds

    def check(self, total: int) -> None:
        """Raise :class:`ResponseLimit` when ``total`` bytes or the clock are past the bounds."""
        if total > self.max_bytes:
            raise ResponseLimit(
                "too_large", f"the response went past {self.max_bytes:,} bytes and was cut off"
            )
        deadline = getattr(self._local, "deadline", None)
        if deadline is not None and time.monotonic() > deadline:
            raise ResponseLimit(
                "deadline",
                f"the response was still arriving after {self._local.seconds:g} s and was cut off",
            )

    def wrap(self, chunks: Any) -> Iterator[bytes]:
        """Yield the chunks of a body stream, checking the bounds after each one."""
        total = 0
        for chunk in chunks:
            total += len(chunk)
            self.check(total)
            yield chunk


def _inflater(encoding: str) -> Callable[[bytes], Iterator[bytes]] | None:
    """Return a function inflating one compressed chunk in bounded pieces, None for identity.

    Raises:
        ResponseLimit: ``encoding`` for a Content-Encoding this bound cannot count.
    """
    name = encoding.strip().lower()
    if name in ("", "identity"):
        return None
    if name in ("gzip", "x-gzip", "deflate"):
        # deflate is zlib-wrapped by the RFC, raw by some servers: 47 takes gzip and zlib
        inflater = zlib.decompressobj(47 if name != "deflate" else zlib.MAX_WBITS)

        def pieces(chunk: bytes) -> Iterator[bytes]:
            while chunk and not inflater.eof:
                yield inflater.decompress(chunk, 1 << 16)
                chunk = inflater.unconsumed_tail

        return pieces
    if name in ("br", "zstd"):
        decode = _decoder(name)

        def sliced(chunk: bytes) -> Iterator[bytes]:
            for start in range(0, len(chunk), _SLICE):
                yield decode(chunk[start : start + _SLICE])

        return sliced
    raise ResponseLimit("encoding", f"the response's Content-Encoding '{encoding}' is not read")


def _decoder(name: str) -> Callable[[bytes], bytes]:
    """Return the decode step of a brotli or zstd stream (ResponseLimit if it cannot be read)."""
    try:
        if name == "zstd":
            import zstandard

            return zstandard.ZstdDecompressor().decompressobj().decompress
        import brotli  # type: ignore[import-untyped]  # what httpx itself decodes br with

        return brotli.Decompressor().process  # type: ignore[no-any-return]
    except ImportError:
        raise ResponseLimit(
            "encoding", f"the response is '{name}'-compressed and no decoder is installed"
        ) from None


def _limited_stream(module: Any, limits: Limits, inner: Any, encoding: str = "") -> Any:
    """Return a ``module.SyncByteStream`` (httpx or httpx2) over ``inner`` that checks bounds.

    A compressed body is inflated here, piece by piece, and the bound counts inflated bytes
    (a 3.5 MB gzip body was 7 GB once inflated); the caller drops Content-Encoding so the
    client does not inflate it again.
    """
    inflate = _inflater(encoding)

    def body() -> Iterator[bytes]:
        total = 0
        for chunk in inner:
            for piece in inflate(chunk) if inflate else (chunk,):
                total += len(piece)
                limits.check(total)
                if piece:
                    yield piece

    class _Stream(module.SyncByteStream):  # type: ignore[misc]
        def __iter__(self) -> Iterator[bytes]:
            return body()

        def close(self) -> None:
            inner.close()

    return _Stream()


def limited_client_kwargs(module: Any, limits: Limits) -> dict[str, Any]:
    """Return the ``event_hooks`` argument of a ``module.Client`` whose bodies obey ``limits``.

    ``module`` is ``httpx`` (our transport) or ``httpx2`` (the one the openai SDK uses); both
    call response hooks before the body is read, so swapping the stream there bounds the read.
    """

    def bound(response: Any) -> None:
        encoding = response.headers.get("content-encoding", "")
        response.stream = _limited_stream(module, limits, response.stream, encoding)
        if encoding:
            del response.headers["content-encoding"]  # inflated above, counted there

    return {"event_hooks": {"response": [bound]}}


def limit_error(url: str, exc: ResponseLimit) -> TransportError:
    """Return the TransportError for a response cut off by ``exc``.

    An oversized body is fatal ``garbage`` (no chat answer is megabytes long); a body still
    arriving at its deadline is a ``timeout`` like a stalled read.
    """
    if exc.kind in ("too_large", "encoding"):
        return TransportError("garbage", f"{url}: {exc.detail}", fatal=True)
    return TransportError("timeout", f"{url}: {exc.detail}")
