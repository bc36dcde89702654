"""Each remote object is fetched once: sniffing, ``--preset auto``'s sample, the reading report,
the read and the hash share one download (counted on the moto server: every GET and the bytes it
sent, tests/scope/conftest.py ``Traffic``).

Before: an NDJSON object was downloaded twice and a Parquet object three times (issue 39).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from assess.scope.api import scope_run
from assess.scope.logs import remote, spool
from tests.scope.conftest import Traffic, put_object
from tests.scope.helpers import ndjson
from tests.scope.traplogs import trap_ndjson

pytest.importorskip("moto")


def _once(traffic: Traffic, bucket: str, key: str, size: int) -> None:
    """Assert the GETs of the object cover its bytes exactly once (sorted by first byte: the
    server logs a GET when its body is sent, so two may be logged out of order)."""
    gets = sorted(traffic.gets(bucket, key))
    assert gets, f"{key} was never fetched"
    at = 0
    for first, sent in gets:
        assert first == at, f"{key}: bytes from {first} fetched again (GETs {gets})"
        at += sent
    assert at == size, f"{key}: {at} bytes fetched for {size} (GETs {gets})"


def _parquet(tmp_path: Path) -> Path:
    from tests.scope.helpers import write

    records = [
        {
            "timestamp": f"2026-08-27T{i % 24:02d}:00:00Z",
            "model": "glm-5.3" if i % 3 else "other",
            "prompt_tokens": 700_000 + i,
            "request_id": f"req-{i}",
        }
        for i in range(30_000)
    ]
    return write(tmp_path / "x.parquet", records, "parquet")


@pytest.mark.parametrize("preset", ["auto", "canonical"])
def test_ndjson_object_is_fetched_once_in_pieces(
    tmp_path: Path, s3_bucket: str, s3_traffic: Traffic, monkeypatch: Any, preset: str
) -> None:
    monkeypatch.setattr(remote, "CHUNK", 4 << 10)  # many pieces from a small object
    monkeypatch.setattr(remote, "HEAD", 4 << 10)
    body = gzip.compress(trap_ndjson(3, 2500))
    assert len(body) > 4 * remote.CHUNK + remote.HEAD
    put_object(s3_traffic_endpoint(), s3_bucket, "a/x.json.gz", body)
    (tmp_path / "x.json.gz").write_bytes(body)
    s3_traffic.requests.clear()
    far = scope_run([f"s3://{s3_bucket}/a/x.json.gz"], preset=preset).result
    _once(s3_traffic, s3_bucket, "a/x.json.gz", len(body))
    near = scope_run([str(tmp_path / "x.json.gz")], preset=preset).result
    assert far.counts == near.counts and far.counts.over_threshold
    assert far.affected.request_ids == near.affected.request_ids
    assert far.inputs[0].sha256 == hashlib.sha256(body).hexdigest()


def test_parquet_object_is_fetched_once_footer_row_groups_and_hash(
    tmp_path: Path, s3_bucket: str, s3_traffic: Traffic
) -> None:
    path = _parquet(tmp_path)
    body = path.read_bytes()
    put_object(s3_traffic_endpoint(), s3_bucket, "p/x.parquet", body)
    s3_traffic.requests.clear()
    far = scope_run([f"s3://{s3_bucket}/p/x.parquet"]).result  # auto: sampled, then read
    _once(s3_traffic, s3_bucket, "p/x.parquet", len(body))
    near = scope_run([str(path)]).result
    assert far.counts == near.counts and far.counts.over_threshold == 20_000
    assert far.affected.request_ids == near.affected.request_ids
    assert far.inputs[0].sha256 == hashlib.sha256(body).hexdigest()


def test_a_text_object_beyond_the_kept_prefix_is_streamed_and_hashed_whole(
    tmp_path: Path, s3_bucket: str, s3_traffic: Traffic, monkeypatch: Any
) -> None:
    """Only the first KEEP bytes stay on disk; the read streams the rest (bytes passed through,
    hashed by the reader): same answer and hash as the local file."""
    monkeypatch.setattr(remote, "CHUNK", 4 << 10)
    monkeypatch.setattr(remote, "HEAD", 4 << 10)
    monkeypatch.setattr(spool, "KEEP", 8 << 10)
    body = gzip.compress(trap_ndjson(5, 3000))
    assert len(body) > 3 * spool.KEEP
    put_object(s3_traffic_endpoint(), s3_bucket, "k/x.json.gz", body)
    (tmp_path / "x.json.gz").write_bytes(body)
    far = scope_run([f"s3://{s3_bucket}/k/x.json.gz"], preset="canonical").result
    near = scope_run([str(tmp_path / "x.json.gz")], preset="canonical").result
    assert far.model_dump(mode="json")["counts"] == near.model_dump(mode="json")["counts"]
    assert far.inputs[0].sha256 == near.inputs[0].sha256 == hashlib.sha256(body).hexdigest()
    assert far.inputs[0].bytes == len(body)


def test_the_run_deletes_its_local_copies(s3_bucket: str, s3_traffic: Traffic) -> None:
    body = gzip.compress(trap_ndjson(7, 300))
    put_object(s3_traffic_endpoint(), s3_bucket, "r/x.json.gz", body)
    run = scope_run([f"s3://{s3_bucket}/r/x.json.gz"], preset="canonical")
    (file,) = run.files
    assert isinstance(file, remote.RemoteFile) and file._spool is None
    again = scope_run([f"s3://{s3_bucket}/r/x.json.gz"], preset="canonical")
    assert json.dumps(again.result.model_dump(mode="json")) == json.dumps(
        run.result.model_dump(mode="json")
    )
    assert sum(sent for _, sent in s3_traffic.gets(s3_bucket, "r/x.json.gz")) == 2 * len(body)


def s3_traffic_endpoint() -> str:
    """The session's S3 endpoint (the environment holds it while the server runs)."""
    import os

    return os.environ["AWS_ENDPOINT_URL"]


@pytest.mark.parametrize("key", ["f/x.json.gz", "f/x.parquet"])
def test_a_full_temporary_disk_is_a_clear_error_naming_tmpdir(
    tmp_path: Path, s3_bucket: str, s3_traffic: Traffic, monkeypatch: Any, key: str
) -> None:
    """The spool's disk fills (ENOSPC on a write): exit 2 naming the object and $TMPDIR's
    folder, not an OSError traceback."""
    import errno
    import tempfile

    from assess.kernel.errors import InputError

    body = (
        _parquet(tmp_path).read_bytes()
        if key.endswith("parquet")
        else gzip.compress(trap_ndjson(9, 300))
    )
    put_object(s3_traffic_endpoint(), s3_bucket, key, body)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    def full(fd: int, data: bytes, offset: int) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(spool.os, "pwrite", full)
    with pytest.raises(InputError) as caught:
        scope_run([f"s3://{s3_bucket}/{key}"], preset="canonical")
    said = caught.value.message
    assert key in said and str(tmp_path) in said and "$TMPDIR" in said, said
    assert "No space left on device" in said and "TMPDIR=" in caught.value.advice


@pytest.mark.parametrize("preset", ["auto", "canonical"])
def test_an_https_object_is_one_get(tmp_path: Path, monkeypatch: Any, preset: str) -> None:
    """https:// went through no spool: sniffing and the read were two GETs (three with --preset
    auto's sample). A loopback server counts the GETs and the bytes it sent."""
    from tests.scope.helpers import serving

    monkeypatch.setattr(remote, "CHUNK", 4 << 10)
    monkeypatch.setattr(remote, "HEAD", 4 << 10)
    body = gzip.compress(trap_ndjson(13, 2500))
    assert len(body) > 4 * remote.CHUNK + remote.HEAD
    with serving(body) as (url, gets):
        far = scope_run([url], preset=preset).result
    assert gets == [len(body)]
    (tmp_path / "x.json.gz").write_bytes(body)
    near = scope_run([str(tmp_path / "x.json.gz")], preset=preset).result
    assert far.counts == near.counts and far.counts.over_threshold
    assert far.affected.request_ids == near.affected.request_ids
    assert far.inputs[0].sha256 == hashlib.sha256(body).hexdigest()


@pytest.mark.parametrize("preset", ["auto", "canonical"])
def test_jobs_workers_do_not_fetch_again_what_the_parent_sampled(
    tmp_path: Path, s3_bucket: str, s3_traffic: Traffic, monkeypatch: Any, preset: str
) -> None:
    """--jobs: a worker process fetched each object from byte 0 again, though the parent had
    sniffed (and for auto, sampled) its head; then it copied the bytes the parent held when the
    job was sent, but the reading report's sample, fetched by the parent while workers ran, was
    fetched twice, and with --preset auto a head not yet fetched was fetched by both. Now the
    report is made before the jobs are sent: the GETs of each object cover its bytes once."""
    monkeypatch.setattr(remote, "CHUNK", 4 << 10)
    monkeypatch.setattr(remote, "HEAD", 4 << 10)
    bodies = {f"j/{n}.json.gz": gzip.compress(trap_ndjson(20 + n, 2500)) for n in range(3)}
    for key, body in bodies.items():
        put_object(s3_traffic_endpoint(), s3_bucket, key, body)
        (tmp_path / key.replace("/", "-")).write_bytes(body)
    s3_traffic.requests.clear()
    far = scope_run([f"s3://{s3_bucket}/j/*.json.gz"], preset=preset, jobs=2).result
    for key, body in bodies.items():
        gets = sorted(s3_traffic.gets(s3_bucket, key))
        covered = 0
        for start, sent in gets:  # pieces in order, none overlapping: each byte fetched once
            assert start == covered, (key, gets)
            covered += sent
        assert covered == len(body), (key, gets)
    near = scope_run([str(tmp_path / "j-*.json.gz")], preset=preset).result
    assert far.counts == near.counts and far.counts.over_threshold
    assert sorted(far.affected.request_ids) == sorted(near.affected.request_ids)
    assert [i.sha256 for i in far.inputs] == [i.sha256 for i in near.inputs]


def test_jobs_read_again_only_the_object_whose_requests_an_earlier_one_counted(
    tmp_path: Path, s3_bucket: str, s3_traffic: Traffic, monkeypatch: Any
) -> None:
    """--jobs: when two workers counted the same request id, every object was read again in one
    process, fetching each a second time. Then only the later object was read again, fetched a
    second time (1.73x its bytes). Now it is read again from its worker's copy: every object's
    GETs cover its bytes once, and the run's temporary files are gone."""
    bodies = _repeating(tmp_path, s3_bucket, monkeypatch)
    s3_traffic.requests.clear()
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    far = scope_run([f"s3://{s3_bucket}/d/*.json.gz"], preset="canonical", jobs=2).result
    for key, body in bodies.items():
        _once(s3_traffic, s3_bucket, key, len(body))
    assert far.fetched_again == [] and list((tmp_path / "tmp").iterdir()) == []
    near = scope_run([str(tmp_path / "d-*.json.gz")], preset="canonical", jobs=1).result
    assert far.duplicates.requests == 3
    assert (far.counts, far.duplicates) == (near.counts, near.duplicates)
    assert far.affected.request_ids == near.affected.request_ids
    assert far.possibly_affected.request_ids == near.possibly_affected.request_ids
    assert [i.sha256 for i in far.inputs] == [i.sha256 for i in near.inputs]


def _repeating(tmp_path: Path, bucket: str, monkeypatch: Any) -> dict[str, bytes]:
    """Put three gzip NDJSON objects under ``d/`` (copies in ``tmp_path``), the third repeating
    three requests of the first (so it is read again under --jobs); small fetch pieces."""
    monkeypatch.setattr(remote, "CHUNK", 4 << 10)
    monkeypatch.setattr(remote, "HEAD", 4 << 10)
    repeated = ndjson(
        [
            {
                "timestamp": "2026-09-01T10:00:00Z",
                "model": "glm-5.3",
                "prompt_tokens": 700_000,
                "request_id": f"again-{i}",
            }
            for i in range(3)
        ]
    )
    texts = [trap_ndjson(30, 20_000) + repeated, trap_ndjson(31, 20_000), trap_ndjson(32, 20_000)]
    texts[2] += repeated
    bodies = {f"d/{n}.json.gz": gzip.compress(text) for n, text in enumerate(texts)}
    for key, body in bodies.items():
        put_object(s3_traffic_endpoint(), bucket, key, body)
        (tmp_path / key.replace("/", "-")).write_bytes(body)
    return bodies


def test_jobs_past_the_kept_bytes_an_object_read_again_is_fetched_again_and_said(
    tmp_path: Path, s3_bucket: str, s3_traffic: Traffic, monkeypatch: Any
) -> None:
    """A worker keeps only the first KEEP bytes of a text object: read again, the rest is
    fetched again, and ``fetched_again`` names the object and those bytes (never silent)."""
    bodies = _repeating(tmp_path, s3_bucket, monkeypatch)
    monkeypatch.setattr(spool, "KEEP", 64 << 10)
    assert all(len(body) > 3 * spool.KEEP for body in bodies.values())
    far = scope_run([f"s3://{s3_bucket}/d/*.json.gz"], preset="canonical", jobs=2).result
    (note,) = far.fetched_again
    size = len(bodies["d/2.json.gz"])
    assert note.path == f"s3://{s3_bucket}/d/2.json.gz" and note.bytes == size - spool.KEEP
    got = sum(sent for _, sent in s3_traffic.gets(s3_bucket, "d/2.json.gz"))
    assert got >= size + note.bytes
    near = scope_run([str(tmp_path / "d-*.json.gz")], preset="canonical", jobs=1).result
    assert (far.counts, far.duplicates) == (near.counts, near.duplicates)
    assert [i.sha256 for i in far.inputs] == [i.sha256 for i in near.inputs]


@pytest.mark.parametrize("stop", ["worker error", "ctrl-c"])
def test_jobs_copies_are_deleted_on_an_error_and_on_ctrl_c(
    tmp_path: Path, s3_bucket: str, s3_traffic: Traffic, monkeypatch: Any, stop: str
) -> None:
    """The workers' copies wait on disk for the merge: a worker's error (the third object gone
    once listed) or Ctrl-C while an object is read again leaves no temporary file behind."""
    import boto3

    from assess.kernel.errors import InputError
    from assess.scope import parallel, read_inputs

    _repeating(tmp_path, s3_bucket, monkeypatch)
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    held: list[list[str]] = []
    if stop == "ctrl-c":

        def interrupt(*args: Any) -> Any:
            held.append(sorted(p.name for p in (tmp_path / "tmp").rglob("*")))
            raise KeyboardInterrupt

        monkeypatch.setattr(read_inputs, "_read_again", interrupt)
    else:
        each = parallel.scope_each

        def gone(*args: Any) -> Any:
            s3 = boto3.client("s3", endpoint_url=s3_traffic_endpoint())
            s3.delete_object(Bucket=s3_bucket, Key="d/2.json.gz")
            for outcome in each(*args):
                held.append(sorted(p.name for p in (tmp_path / "tmp").rglob("*")))
                yield outcome

        monkeypatch.setattr(parallel, "scope_each", gone)
    with pytest.raises(KeyboardInterrupt if stop == "ctrl-c" else InputError):
        scope_run([f"s3://{s3_bucket}/d/*.json.gz"], preset="canonical", jobs=2)
    assert held and any(n.startswith("kept-") for n in held[0]), held  # copies were held
    assert list((tmp_path / "tmp").iterdir()) == []
