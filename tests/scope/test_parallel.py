"""One process per file gives the serial document exactly (counts, skipped list, ids, order)."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import pytest

from assess.kernel.errors import InputError
from assess.scope import parallel
from assess.scope.api import scope_run
from assess.scope.logs.engine import LogReader
from assess.scope.logs.presets import get_preset
from assess.scope.models import LogBatch
from tests.scope.helpers import ndjson
from tests.scope.traplogs import trap_ndjson


def _logs(folder: Path) -> list[str]:
    paths = []
    for seed in range(4):
        path = folder / f"part-{seed}.json.gz"
        path.write_bytes(gzip.compress(trap_ndjson(seed, 600 + 150 * seed, litellm=seed % 2 == 1)))
        paths.append(str(path))
    return paths


def test_parallel_document_equals_serial(tmp_path: Path) -> None:
    logs = [str(p) for p in _logs(tmp_path)[::2]] + [str(tmp_path / "x.ndjson")]
    (tmp_path / "x.ndjson").write_bytes(trap_ndjson(9, 500))
    serial = scope_run(logs, preset="canonical", jobs=1)
    both = scope_run(logs, preset="canonical", jobs=2)
    assert both.result.counts.records_skipped > 0
    assert both.result.model_dump(mode="json") == serial.result.model_dump(mode="json")
    assert list(both.affected_rows()) == list(serial.affected_rows())


def test_parallel_keeps_the_first_skipped_records_in_file_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("assess.scope.accumulator.SKIPPED_LISTED", 5)
    logs = _logs(tmp_path)[::2]
    serial = scope_run(logs, preset="canonical", jobs=1).result
    both = scope_run(logs, preset="canonical", jobs=2).result
    assert both.skipped == serial.skipped
    assert both.skipped_listed == 5 < both.counts.records_skipped


def test_a_worker_error_reaches_the_caller_with_its_advice(tmp_path: Path) -> None:
    logs = _logs(tmp_path)[:2]
    Path(logs[1]).write_bytes(b"")
    Path(logs[0]).write_bytes(b"")
    with pytest.raises(InputError, match="no record at all") as caught:
        scope_run(logs, preset="canonical", jobs=2)
    assert caught.value.advice


def test_small_or_joined_runs_stay_serial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = [Path(p) for p in _logs(tmp_path)]
    canonical = get_preset("canonical")
    assert parallel.workers(files, None, canonical) == 1  # a few KB: not worth a process
    monkeypatch.setattr(parallel, "MIN_BYTES", 0)
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda _: set(range(8)), raising=False)
    assert parallel.workers(files, None, canonical) == 4  # one per core, at most one per file
    assert parallel.workers(files, 0, canonical) == 4  # one per core, at most one per file
    assert parallel.workers(files, 2, canonical) == 2
    assert parallel.workers(files[:1], 0, canonical) == 1
    assert parallel.workers(files, 3, get_preset("azure-apim")) == 1  # side table: serial


def _request(i: int, tokens: int) -> dict[str, object]:
    return {
        "timestamp": "2026-09-01T10:00:00Z",
        "model": "glm-5.3",
        "prompt_tokens": tokens,
        "request_id": f"req-{i}",
    }


@pytest.mark.parametrize(
    ("later", "counted"),
    [
        ([(3, 700_003), (200, 5), (4, 1), (4, 700_004)], (2, 1)),  # a repeat and a conflict
        ([(200, 5), (4, 1), (4, 700_004)], (1, 1)),  # other content, then the first file's
    ],
)
def test_a_request_counted_in_two_workers_rereads_only_the_later_file(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    later: list[tuple[int, int]],
    counted: tuple[int, int],
) -> None:
    """Workers do not see each other's request ids. Before, one id counted in two workers made
    the run read every file again in one process (and an id logged with other content, then
    with the earlier file's, was two conflicts where the serial run counts one conflict and one
    duplicate). Now only the file whose ids an earlier file counted is read again, after them."""
    pages = {
        "a": [_request(i, 700_000 + i) for i in range(10)],
        "b": [_request(i, 700_000 + i) for i in range(100, 110)],
        "c": [_request(i, tokens) for i, tokens in later],
        "d": [_request(i, 700_000 + i) for i in range(300, 310)],
    }
    logs = []
    for name, records in pages.items():
        (tmp_path / f"{name}.ndjson").write_bytes(ndjson(records))
        logs.append(str(tmp_path / f"{name}.ndjson"))
    serial = scope_run(logs, preset="canonical", jobs=1).result
    again: list[str] = []
    batches = LogReader.file_batches

    def read(self: LogReader, path: Path) -> Iterator[LogBatch]:
        again.append(Path(path).name)  # the parent process's reads only (workers: forkserver)
        return batches(self, path)

    monkeypatch.setattr(LogReader, "file_batches", read)
    both = scope_run(logs, preset="canonical", jobs=2).result
    assert (serial.duplicates.requests, serial.duplicates.conflicts) == counted
    assert both.model_dump(mode="json") == serial.model_dump(mode="json")
    assert again == ["c.ndjson"]
