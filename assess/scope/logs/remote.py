"""Log files where they live: object storage (``s3://``, ``gs://``) and web servers (``https://``).

A :class:`RemoteFile` offers what the readers use of a local :class:`~pathlib.Path` (``name``,
``str()``, ``stat().st_size``, ``open("rb")``), so every format, preset, skipped-line report and
damage rule is the local one. Objects are read as streams in :data:`CHUNK` pieces, fetched one
:data:`AHEAD` pieces ahead in a background thread (network waits overlap inflating and parsing);
memory stays bounded by about ``(AHEAD + 2) * CHUNK`` per file, whatever the object's size.

S3 and GCS go through pyarrow's filesystems (already a dependency; measured in
``benchmarks/remote_bench.py``), whose credentials come from the providers' standard chains
(environment, profile files, instance metadata); nothing here reads, keeps or prints a secret.
``AWS_ENDPOINT_URL`` (or ``AWS_ENDPOINT_URL_S3``) points at an S3-compatible server,
``STORAGE_EMULATOR_HOST`` at a GCS emulator. ``https://`` is streamed by httpx (one GET).
Names shown (skipped lines, ``inputs``) drop a URL's user, password and query string, which is
where a presigned URL carries its signature.
"""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from assess.kernel.common import InputFile, hash_file
from assess.kernel.errors import InputError
from assess.scope.logs.spool import Spool
from assess.scope.models import InputNote

SCHEMES = ("s3", "gs", "gcs", "http", "https")
#: One fetch: large enough that per-request latency is a few percent of the transfer.
CHUNK = 8 << 20
#: Pieces fetched ahead of the reader.
AHEAD = 2
#: The first read of a file fetches at most this much (sniffing asks for a few bytes only).
HEAD = 64 << 10


def is_remote(pattern: str) -> bool:
    """Return True when ``pattern`` is a URL of a scheme read here (``s3://``, ``https://``...)."""
    scheme, sep, _ = pattern.partition("://")
    return bool(sep) and scheme.lower() in SCHEMES


def display_url(url: str) -> str:
    """Return ``url`` without user, password, query or fragment (a presigned URL's signature)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


@dataclass(frozen=True)
class RemoteStat:
    """The part of ``os.stat_result`` the readers use (for progress)."""

    st_size: int


class RemoteFile:
    """One object or web resource, read as a local path is (``open``, ``stat``, ``name``).

    Picklable (the URL and size only): a worker process opens its own connection.
    """

    def __init__(self, url: str, size: int | None = None) -> None:
        self.url = url
        self.size = size
        self.display = display_url(url)
        self.name = urlsplit(url).path.rsplit("/", 1)[-1]
        self._spool: Spool | None = None
        self._head: tuple[str, int, bool] | None = None  # the parent's spool (a worker's seed)
        #: Where this process's spool goes and how much of a text object it keeps (a ``--jobs``
        #: worker: the run's folder, whose files the parent deletes; None: $TMPDIR, ``KEEP``).
        self.folder: str | None = None
        self.keep: int | None = None

    def __getstate__(self) -> dict[str, Any]:
        """The URL and size, and where this process keeps the bytes fetched so far: a worker
        process copies those from that file and fetches only the rest."""
        head = self._spool.head() if self._spool is not None else None
        return {"url": self.url, "size": self.size, "head": head}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["url"], state["size"])  # type: ignore[misc]
        self._head = state.get("head")

    def __str__(self) -> str:
        return self.display

    def __repr__(self) -> str:
        return f"RemoteFile({self.display!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RemoteFile) and other.url == self.url

    def __hash__(self) -> int:
        return hash(self.url)

    def is_file(self) -> bool:
        """Return True (listings hold objects only)."""
        return True

    def stat(self) -> RemoteStat:
        """Return the size known from the listing (0 when the server did not say)."""
        return RemoteStat(self.size or 0)

    def open(self, mode: str = "rb") -> ReadAhead:
        """Return a raw binary stream of the object, fetched ahead in pieces.

        Raw, not buffered: a read returns what one piece holds, so when the connection breaks
        the bytes already received are handed out before the error (a buffered read that
        gathers several pieces would drop them).

        Raises:
            InputError: when the object cannot be opened (missing, denied, unreachable).
        """
        if mode != "rb":
            raise ValueError("remote logs are read only")
        return ReadAhead(self._pieces)

    def open_random(self) -> Any:
        """Return a random-access pyarrow file (Parquet footers are read first).

        Raises:
            InputError: for https:// (no random access here) or an object that cannot be opened.
        """
        scheme = split_url(self.url)[0]
        if scheme in ("http", "https"):
            raise InputError(
                f"{self.display}: Parquet over {scheme}:// is not read (it needs random access)",
                "Copy it to object storage (s3://, gs://) or to a local file first.",
            )
        spool = self.spool()
        spool.fill()
        from pyarrow import OSFile

        return OSFile(spool.name)

    def spool(self) -> Spool:
        """Return the object's spool (made on first use): every byte is fetched once."""
        if self._spool is None:
            self._spool = Spool(self._fetcher(), self.keep, self.display, self.folder)
            if self._head is not None:
                self._spool.seed(*self._head)
        return self._spool

    def adopt(self, kept: tuple[str, int, bool]) -> int:
        """Read the object from now on from ``kept``, a worker's copy (see
        :meth:`~assess.scope.logs.spool.Spool.hand_back`), in place of the bytes this process
        holds; return how many bytes of the object past it will be fetched again (0 when the
        copy is the whole object, or when it holds less than this process does: then dropped)."""
        held = self._spool.head() if self._spool is not None else None
        if held is not None and held[1] > kept[1]:
            os.unlink(kept[0])
            return 0 if held[2] else max((self.size or 0) - held[1], 0)
        self.release()
        self.spool().adopt(*kept)
        return 0 if kept[2] else max((self.size or 0) - kept[1], 0)

    def release(self) -> None:
        """Delete the bytes kept of the object (a later read fetches them again)."""
        if self._spool is not None:
            self._spool.close()
            self._spool = None

    def evidence(self) -> InputFile | None:
        """Return the size and SHA-256 of the object when its spool holds all of it."""
        known = self._spool.evidence() if self._spool is not None else None
        if known is None:
            return None
        return InputFile(path=self.display, bytes=known[0], sha256=known[1])

    def _fetcher(self) -> Callable[[int, int], bytes]:
        """Return ``fetch(offset, size)``: one ranged GET of the object (opened on first use);
        over https://, pieces of one streamed GET."""
        scheme, bucket, key = split_url(self.url)
        if scheme in ("http", "https"):
            from assess.scope.logs.remote_http import HttpFetcher

            return HttpFetcher(self.url, self.display)
        handles: list[Any] = []

        def fetch(offset: int, size: int) -> bytes:
            try:
                if not handles:
                    handles.append(filesystem(scheme, bucket).open_input_file(f"{bucket}/{key}"))
                data: bytes = handles[0].read_at(size, offset)
            except OSError as exc:
                raise _unreadable(self.display, exc) from exc
            return data

        return fetch

    def _pieces(self, first: int) -> Iterator[bytes]:
        """Yield the object's bytes from offset 0: ``first`` bytes, then CHUNK pieces (from the
        spool where an earlier read fetched them)."""
        spool = self.spool()
        offset, size = 0, max(first, HEAD)  # a sniff's 8 bytes: one request for the head
        while piece := spool.piece(offset, size):
            yield piece
            offset += len(piece)
            size = CHUNK


class ReadAhead(io.RawIOBase):
    """A raw stream over ``pieces(first)``: the first read fetches only what it asks for (up to
    :data:`HEAD`, so sniffing a file costs one small request); from the second on, a thread
    fetches :data:`AHEAD` pieces ahead."""

    def __init__(self, pieces: Callable[[int], Iterator[bytes]]) -> None:
        super().__init__()
        self._make = pieces
        self._source: Iterator[bytes] | None = None
        self._prefetch: Any = None
        self._pieces: Iterator[bytes] | None = None
        self._out = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        if self._source is None:
            self._source = self._make(min(max(len(buffer), 1), HEAD))
            self._out = memoryview(next(self._source, b""))
        while not self._out:
            if self._pieces is None:
                from assess.scope.logs.sources import Prefetch

                self._prefetch = Prefetch(self._source, AHEAD)
                self._pieces = iter(self._prefetch)
            piece = next(self._pieces, None)
            if piece is None:
                return 0
            self._out = memoryview(piece)
        count = min(len(buffer), len(self._out))
        buffer[:count] = self._out[:count]
        self._out = self._out[count:]
        return count

    def close(self) -> None:
        if self._prefetch is not None:
            self._prefetch.close()  # waits for the piece being fetched, then stops
        if self._source is not None and hasattr(self._source, "close"):
            try:
                self._source.close()  # the connection or object handle
            except OSError:
                pass  # abandoning a stream (after sniffing) is not a failure to read it
        super().close()


def split_url(url: str) -> tuple[str, str, str]:
    """Return (scheme, bucket or host, key or path) of ``url``; ``gcs`` is named ``gs``."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    scheme = "gs" if scheme == "gcs" else scheme
    return scheme, parts.netloc, parts.path.lstrip("/")


def filesystem(scheme: str, bucket: str) -> Any:
    """Return the pyarrow filesystem of ``scheme`` (``s3`` or ``gs``) for ``bucket``.

    Credentials and region come from the provider's standard chain; an S3 bucket's region is
    asked of S3 when neither an endpoint nor a region is configured.
    """
    names: tuple[str, ...] = ("STORAGE_EMULATOR_HOST",)
    if scheme == "s3":
        names = ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_REGION", "AWS_DEFAULT_REGION")
    return _filesystem(scheme, bucket, tuple(os.environ.get(n) or "" for n in names))


@lru_cache(maxsize=32)
def _filesystem(scheme: str, bucket: str, settings: tuple[str, ...]) -> Any:
    from pyarrow import fs

    if scheme == "gs":
        emulator = settings[0]
        if emulator:
            where = urlsplit(emulator if "://" in emulator else f"http://{emulator}")
            return fs.GcsFileSystem(
                anonymous=True, endpoint_override=where.netloc, scheme=where.scheme
            )
        return fs.GcsFileSystem()
    endpoint = settings[0] or settings[1]
    region = settings[2] or settings[3]
    options: dict[str, Any] = {}
    if endpoint:
        where = urlsplit(endpoint)
        options.update(endpoint_override=where.netloc or endpoint, scheme=where.scheme or "https")
    if region:
        options["region"] = region
    elif not endpoint:
        try:
            options["region"] = fs.resolve_s3_region(bucket)
        except OSError:
            pass  # the default region; reading then says what is wrong
    return fs.S3FileSystem(**options)


def _unreadable(display: str, exc: BaseException) -> InputError:
    text = str(exc)
    if isinstance(exc, FileNotFoundError) or "does not exist" in text or "NoSuchKey" in text:
        return InputError(f"{display}: no such object", "Check the bucket and key.")
    return InputError(
        f"{display}: cannot be read ({text.splitlines()[0] if text else type(exc).__name__})",
        "Check the URL, the credentials in the environment or profile, and the endpoint "
        "(AWS_ENDPOINT_URL for an S3-compatible server).",
    )


def expand_logs(
    patterns: Sequence[str],
    notes: list[InputNote] | None = None,
    window: tuple[datetime, datetime] | None = None,
) -> list[Path | RemoteFile]:
    """Return the files named by ``patterns``: local paths and globs, or URLs (see
    :func:`~assess.scope.logs.listing.expand_remote`), in order, each file and each content
    once (see :func:`~assess.scope.logs.identity.dedupe`); what is not read is added to
    ``notes``. With a ``window`` (since, until), the files a glob or prefix reached in date
    folders outside it are not read (:mod:`~assess.scope.logs.partitions`).

    Raises:
        InputError: as :func:`~assess.scope.logs.sources.expand_inputs` and
            :func:`~assess.scope.logs.listing.expand_remote`.
    """
    from assess.scope.logs.identity import dedupe
    from assess.scope.logs.listing import expand_remote
    from assess.scope.logs.partitions import prune, window_text
    from assess.scope.logs.sources import expand_inputs

    found: list[Path | RemoteFile] = []
    skipped: list[InputNote] = []
    for pattern in patterns:
        files: list[Path] | list[RemoteFile]
        files = expand_remote(pattern) if is_remote(pattern) else expand_inputs([pattern], notes)
        if window is not None:
            files, pruned = prune(pattern, files, *window)
            skipped.extend(pruned)
        found.extend(files)  # a file named again is dropped, and noted, by dedupe
    if skipped and not found and window is not None:
        raise InputError(
            f"{', '.join(patterns)}: every file is in a date folder outside the window "
            f"({window_text(*window)}); nothing to read",
            "Check --since/--until (the advisory's window by default) and the folders named.",
        )
    if notes is not None:
        notes.extend(skipped)
    kept, dropped = dedupe(found)
    if notes is not None:
        notes.extend(dropped)
    return kept


def parquet_source(path: Path | RemoteFile) -> Any:
    """Return what pyarrow opens a Parquet file from: the path, or a remote random-access file."""
    return path.open_random() if isinstance(path, RemoteFile) else path


def evidence(path: Path | RemoteFile) -> InputFile:
    """Return the size and SHA-256 of a file read by path (Parquet), local or remote.

    Raises:
        InputError: if the file cannot be read.
    """
    if not isinstance(path, RemoteFile):
        return hash_file(path)
    if (known := path.evidence()) is not None:
        return known
    digest, size = hashlib.sha256(), 0
    with path.open() as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
            size += len(block)
    return InputFile(path=path.display, bytes=size, sha256=digest.hexdigest())
