"""One download per remote object: the bytes fetched are kept, so every later read is local.

A scope run opens an object several times: sniffing its compression (8 bytes), sampling records
for ``--preset auto`` and for the reading report, then the read itself; a Parquet object is
opened for its footer, its row groups, then hashed. Each open used to fetch again (an NDJSON
object was downloaded twice, a Parquet object three times). A :class:`Spool` fetches every byte
of the object once, in order from offset 0, keeps it in a temporary file and serves any later
read of those bytes from there; the SHA-256 is taken from the same bytes as they arrive.

Disk, not memory: a text object keeps its first :data:`KEEP` bytes (what sampling reads; beyond,
the one stream reading on passes the bytes through, hashed by the reader); a Parquet object is
kept whole (random access), until the run releases it (:meth:`Spool.close`).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import tempfile
import threading
from collections.abc import Callable
from typing import IO

from assess.kernel.errors import InputError

#: The prefix of a text object kept on disk: more than sampling a file reads ahead (64 KB, then
#: two 8 MB pieces fetched ahead of a 16 MB block), so no sample is fetched twice.
KEEP = 64 << 20


class Spool:
    """The prefix of one object fetched so far, in a temporary file, and its SHA-256.

    ``fetch(offset, size)`` returns up to ``size`` bytes at ``offset`` (empty at the end); it is
    called under a lock, so two streams (the reading report's sample in its thread, the read)
    never fetch the same bytes.
    """

    def __init__(
        self,
        fetch: Callable[[int, int], bytes],
        keep: int | None = None,
        display: str = "",
        folder: str | None = None,
    ) -> None:
        """``folder``: where the temporary file goes (default: $TMPDIR)."""
        self._fetch = fetch
        self.keep = KEEP if keep is None else keep
        self.display = display  # the object, in messages
        self._lock = threading.Lock()
        self._adopted: str | None = None  # a file this spool took over (deleted on close)
        try:
            made = tempfile.NamedTemporaryFile(prefix="assess-spool-", dir=folder)  # noqa: SIM115
            self._file: IO[bytes] = made
        except OSError as exc:
            self._refuse_disk(exc, 0)
            raise
        self.stored = 0
        self._digest = hashlib.sha256()
        self.complete = False  # the whole object is stored

    @property
    def name(self) -> str:
        """The temporary file's path (a Parquet reader opens it for random access)."""
        return str(self._file.name)

    def piece(self, offset: int, size: int) -> bytes:
        """Return up to ``size`` bytes at ``offset``: stored ones, or fetched (and stored while
        they continue the stored prefix, up to ``keep`` bytes); empty at the end of the object."""
        with self._lock:
            if offset < self.stored:
                return os.pread(self._file.fileno(), min(size, self.stored - offset), offset)
            if self.complete:
                return b""
            data = self._fetch(offset, size)
            if offset == self.stored and not data:
                self.complete = True
            elif offset == self.stored and self.stored < self.keep:
                kept = data[: self.keep - offset]  # at most ``keep`` bytes stored
                try:
                    os.pwrite(self._file.fileno(), kept, offset)
                except OSError as exc:
                    self._refuse_disk(exc, offset + len(kept))
                    raise
                self.stored += len(kept)
                self._digest.update(kept)
            return data

    def _refuse_disk(self, exc: OSError, needed: int) -> None:
        """Refuse the run when the temporary folder cannot hold the object's bytes (disk full,
        quota, not writable); return for another OSError.

        Raises:
            InputError: naming the folder ($TMPDIR) and what to do.
        """
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EROFS):
            return
        folder = tempfile.gettempdir()
        raise InputError(
            f"{self.display or 'a remote object'}: its bytes cannot be kept in {folder} "
            f"(the temporary folder, $TMPDIR) while it is read: {os.strerror(exc.errno)} "
            f"after {needed:,} bytes",
            "Point TMPDIR at a folder with room for the largest Parquet object (kept whole) "
            f"or {KEEP >> 20} MiB per text object (TMPDIR=/big/disk assess scope ...), or copy "
            "the objects to a local disk first.",
        ) from exc

    def head(self) -> tuple[str, int, bool] | None:
        """Return (file, bytes stored, whether that is the whole object) for a worker's
        :meth:`seed`, or None when nothing is stored."""
        with self._lock:
            return (self.name, self.stored, self.complete) if self.stored else None

    def hand_back(self, folder: str) -> tuple[str, int, bool] | None:
        """Keep the bytes stored as a file in ``folder`` that outlives this spool (a ``--jobs``
        worker hands it to the parent, which may read the object again); return (file, bytes
        stored, whether that is the whole object), or None when nothing is stored."""
        head = self.head()
        if head is None:
            return None
        kept = os.path.join(folder, f"kept-{os.getpid()}-{os.path.basename(head[0])}")
        os.link(head[0], kept)  # the same folder: one file system
        return kept, head[1], head[2]

    def adopt(self, name: str, stored: int, complete: bool) -> None:
        """Take over another process's kept file ``name`` (see :meth:`hand_back`) in place of
        a fresh spool's file, hashing its ``stored`` bytes as if fetched; it is deleted on
        :meth:`close`."""
        with self._lock:
            handle = open(name, "r+b")  # noqa: SIM115 (closed by close())
            self._file.close()
            self._file, self._adopted = handle, name
            self._digest, self.stored = hashlib.sha256(), 0
            while self.stored < stored:
                data = os.pread(handle.fileno(), min(8 << 20, stored - self.stored), self.stored)
                if not data:
                    break
                self._digest.update(data)
                self.stored += len(data)
            self.complete = complete and self.stored == stored

    def seed(self, name: str, stored: int, complete: bool) -> None:
        """Take the first ``stored`` bytes from another process's spool file ``name`` (a
        ``--jobs`` worker: the parent sampled them), hashing them as if fetched; nothing when
        that file is gone."""
        try:
            with open(name, "rb") as source:
                while self.stored < stored:
                    data = source.read(min(8 << 20, stored - self.stored))
                    if not data:
                        break
                    os.pwrite(self._file.fileno(), data, self.stored)
                    self.stored += len(data)
                    self._digest.update(data)
        except FileNotFoundError:
            return
        except OSError as exc:
            self._refuse_disk(exc, self.stored)
            raise
        self.complete = complete and self.stored == stored

    def fill(self) -> None:
        """Fetch and store the whole object (Parquet: footer and row groups are then read from
        the stored copy)."""
        self.keep = max(self.keep, 1 << 62)
        while self.piece(self.stored, 8 << 20):
            pass
        self.piece(self.stored, 1)  # the end: marks the spool complete

    def evidence(self) -> tuple[int, str] | None:
        """Return (bytes, SHA-256) of the whole object when it is stored, else None."""
        with self._lock:
            return (self.stored, self._digest.hexdigest()) if self.complete else None

    def close(self) -> None:
        """Delete the stored bytes (and end the fetcher's open response, if it keeps one)."""
        self._file.close()
        if self._adopted is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._adopted)
        ends = getattr(self._fetch, "close", None)
        if ends is not None:
            ends()
