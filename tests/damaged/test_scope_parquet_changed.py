"""A Parquet input that changes while it is read (issue 36, item 9, the Parquet part left open).

Measured before the change: Parquet files are hashed after their read, by path; a file rewritten
or appended to while it was read got the hash of other bytes than were counted, without a word
(streamed files were already refused: ``sources.HashingReader.finish``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assess.kernel.errors import InputError
from assess.scope.logs.readers import registry
from tests.scope.helpers import scope, write


def _records() -> list[dict[str, Any]]:
    return [
        {
            "timestamp": "2026-09-01T10:00:00Z",
            "model": "glm-5.3",
            "prompt_tokens": 700_001 + i,
            "request_id": f"req-{i}",
        }
        for i in range(5)
    ]


class _Changing:
    """The Parquet reader, with the file changed under it after its batches were read."""

    def __init__(self, inner: Any, change: Any) -> None:
        self.inner, self.change = inner, change

    def batches(self, source: Any, ctx: Any) -> Iterator[Any]:
        yield from self.inner.batches(source, ctx)
        self.change(Path(source.name))

    def records(self, source: Any, ctx: Any) -> Iterator[Any]:
        return self.inner.records(source, ctx)  # type: ignore[no-any-return]


def _append(path: Path) -> None:
    with path.open("ab") as handle:
        handle.write(b"\0" * 10)


def _rewrite(path: Path) -> None:
    data = path.read_bytes()
    stat = path.stat()
    path.write_bytes(data[:-8] + b"XXXXPAR1")  # same size, other bytes
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))


@pytest.mark.parametrize("change", [_append, _rewrite])
def test_a_parquet_file_changed_while_read_is_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: Any
) -> None:
    log = write(tmp_path / "log.parquet", _records(), "parquet")
    readers = dict(registry.READERS)
    readers["parquet"] = _Changing(readers["parquet"], change)
    monkeypatch.setattr("assess.scope.logs.engine.READERS", readers)
    with pytest.raises(InputError, match="changed while it was read") as caught:
        scope([log])
    assert str(log) in str(caught.value)


def test_an_unchanged_parquet_file_reads(tmp_path: Path) -> None:
    log = write(tmp_path / "log.parquet", _records(), "parquet")
    result = scope([log])
    assert result.counts.records_read == 5
    assert result.inputs[0].bytes == log.stat().st_size
