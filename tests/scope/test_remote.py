"""Logs in object storage and on web servers read as local files are: same document, same ids.

The S3 server is moto's and the GCS one gcp-storage-emulator, both on 127.0.0.1
(tests/scope/conftest.py); https:// is a local http.server.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zstandard

from assess.kernel.errors import InputError
from assess.scope.api import scope_run
from assess.scope.logs import remote
from assess.scope.logs.listing import expand_remote, glob_regex
from assess.scope.logs.remote import ReadAhead, RemoteFile, display_url
from tests.scope.conftest import FAKE_AWS, GCS_BUCKET, put_gcs, put_object
from tests.scope.traplogs import trap_ndjson

pytest.importorskip("moto")


def _files() -> dict[str, bytes]:
    """Three generated logs with traps, in the three compressions, one a level deeper."""
    return {
        "day1/part-0.json.gz": gzip.compress(trap_ndjson(1, 900)),
        "day1/deep/part-1.json.gz": gzip.compress(trap_ndjson(2, 700)),
        "day2/part-2.json.zst": zstandard.ZstdCompressor().compress(trap_ndjson(3, 600)),
        "day2/readme.txt": b"not a log: not matched by the glob",
    }


def _comparable(doc: dict[str, Any]) -> dict[str, Any]:
    """The document with each file named by its key (local path vs URL is the only change)."""
    doc = json.loads(json.dumps(doc))
    for item in doc["inputs"]:
        item["path"] = _key(item["path"])
    for item in [*doc["skipped"], *doc.get("reading", [])]:
        item["file"] = _key(item["file"])
    return doc


def _key(name: str) -> str:
    """The part of a file's name after the folder or prefix the logs were put under (a bucket
    may itself be named ``logs``, so the prefix is cut first)."""
    return name.split("/prefix/", 1)[-1].split("/logs/", 1)[-1]


def _local(tmp_path: Path, files: dict[str, bytes]) -> Path:
    root = tmp_path / "logs"
    for key, body in files.items():
        (root / key).parent.mkdir(parents=True, exist_ok=True)
        (root / key).write_bytes(body)
    return root


def test_s3_glob_gives_the_local_document_counts_and_ids(
    tmp_path: Path, s3_endpoint: str, s3_bucket: str
) -> None:
    files = _files()
    for key, body in files.items():
        put_object(s3_endpoint, s3_bucket, f"prefix/{key}", body)
    root = _local(tmp_path, files)
    local = scope_run([str(root / "**" / "*.json.*")], preset="canonical")
    far = scope_run([f"s3://{s3_bucket}/prefix/**/*.json.*"], preset="canonical")
    assert [str(f) for f in far.files] == [
        f"s3://{s3_bucket}/prefix/{k}" for k in sorted(files) if ".json." in k
    ]
    near_doc, far_doc = local.result.model_dump(mode="json"), far.result.model_dump(mode="json")
    assert far_doc["counts"]["records_skipped"] > 0 and far_doc["counts"]["unknown_tokens"] > 0
    assert far_doc["affected"]["request_ids"] == near_doc["affected"]["request_ids"]
    assert _comparable(far_doc) == _comparable(near_doc)
    assert list(far.affected_rows()) == list(local.affected_rows())
    both = scope_run([f"s3://{s3_bucket}/prefix/**/*.json.*"], preset="canonical", jobs=2)
    assert both.result.model_dump(mode="json") == far_doc  # workers read s3:// as well


def test_gs_glob_gives_the_local_document_counts_and_ids(tmp_path: Path, gcs_endpoint: str) -> None:
    files = _files()
    for key, body in files.items():
        put_gcs(gcs_endpoint, GCS_BUCKET, f"prefix/{key}", body)
    root = _local(tmp_path, files)
    local = scope_run([str(root / "**" / "*.json.*")], preset="canonical")
    far = scope_run([f"gs://{GCS_BUCKET}/prefix/**/*.json.*"], preset="canonical")
    assert [str(f) for f in far.files] == [
        f"gs://{GCS_BUCKET}/prefix/{k}" for k in sorted(files) if ".json." in k
    ]
    near_doc, far_doc = local.result.model_dump(mode="json"), far.result.model_dump(mode="json")
    counts, requests = far_doc["counts"], far_doc["breakdown"]["requests"]
    assert counts["records_skipped"] > 0 and counts["unknown_tokens"] > 0
    assert counts["over_threshold"] > 0 and counts["model_matched"] < requests
    assert counts["records_read"] == (
        requests + counts["non_request_records"] + counts["records_skipped"]
    )
    assert far_doc["counts"] == near_doc["counts"]
    assert far_doc["affected"]["request_ids"] == near_doc["affected"]["request_ids"]
    assert far_doc["affected"]["request_ids"]
    assert _comparable(far_doc) == _comparable(near_doc)
    assert list(far.affected_rows()) == list(local.affected_rows())
    both = scope_run([f"gs://{GCS_BUCKET}/prefix/**/*.json.*"], preset="canonical", jobs=2)
    assert both.result.model_dump(mode="json") == far_doc  # workers read gs:// as well


def test_gs_missing_object_or_bucket_is_an_input_error(gcs_endpoint: str) -> None:
    with pytest.raises(InputError, match="no such object"):
        expand_remote(f"gs://{GCS_BUCKET}/nothing/here.json.gz")
    with pytest.raises(InputError, match="no such object"):
        expand_remote("gs://no-such-bucket/x.json.gz")
    with pytest.raises(InputError, match="matches no object"):
        expand_remote(f"gs://{GCS_BUCKET}/nothing/**/*.json.gz")


def test_gs_missing_object_exits_2_without_a_traceback(gcs_endpoint: str, run_cli: Any) -> None:
    result = run_cli("scope", f"gs://{GCS_BUCKET}/gone.json.gz")
    assert result.exit_code == 2
    out = result.stdout + result.stderr
    assert "no such object" in out and f"gs://{GCS_BUCKET}/gone.json.gz" in out
    assert "Traceback" not in out


def test_s3_auto_preset_and_cli_never_print_the_secret(
    tmp_path: Path, s3_endpoint: str, s3_bucket: str, run_cli: Any
) -> None:
    put_object(s3_endpoint, s3_bucket, "a/x.ndjson.gz", gzip.compress(trap_ndjson(5, 400)))
    out = tmp_path / "scope.json"
    result = run_cli("scope", f"s3://{s3_bucket}/a/*.gz", "--json", str(out))
    assert result.exit_code == 1, result.stdout  # affected requests found
    doc = json.loads(out.read_text())
    assert doc["preset"] == "canonical"
    assert doc["inputs"][0]["path"] == f"s3://{s3_bucket}/a/x.ndjson.gz"
    assert FAKE_AWS["AWS_SECRET_ACCESS_KEY"] not in result.stdout + out.read_text()


def test_damaged_gzip_in_s3_is_reported_as_locally(
    tmp_path: Path, s3_endpoint: str, s3_bucket: str
) -> None:
    body = gzip.compress(trap_ndjson(7, 2000))
    cut = body[: len(body) * 2 // 3]
    put_object(s3_endpoint, s3_bucket, "cut/x.json.gz", cut)
    (tmp_path / "x.json.gz").write_bytes(cut)
    near = scope_run([str(tmp_path / "x.json.gz")], preset="canonical").result
    far = scope_run([f"s3://{s3_bucket}/cut/x.json.gz"], preset="canonical").result
    assert far.counts == near.counts
    assert far.skipped[-1].reason == near.skipped[-1].reason
    assert "truncated" in far.skipped[-1].reason


def test_missing_object_and_empty_glob_are_input_errors(s3_endpoint: str, s3_bucket: str) -> None:
    with pytest.raises(InputError, match="no such object"):
        expand_remote(f"s3://{s3_bucket}/nothing.json.gz")
    with pytest.raises(InputError, match="matches no object"):
        expand_remote(f"s3://{s3_bucket}/**/*.json.gz")


def test_missing_object_exits_2_without_a_traceback(
    s3_endpoint: str, s3_bucket: str, run_cli: Any
) -> None:
    result = run_cli("scope", f"s3://{s3_bucket}/gone.json.gz")
    assert result.exit_code == 2
    assert "no such object" in result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def test_https_gives_the_local_document(tmp_path: Path, http_root: tuple[str, Path]) -> None:
    base, folder = http_root
    body = gzip.compress(trap_ndjson(11, 800))
    (folder / "x.json.gz").write_bytes(body)
    (tmp_path / "x.json.gz").write_bytes(body)
    near = scope_run([str(tmp_path / "x.json.gz")], preset="canonical").result
    far = scope_run([f"{base}/x.json.gz?X-Amz-Signature=s3cr3t"], preset="canonical").result
    assert far.counts == near.counts
    assert far.affected.request_ids == near.affected.request_ids
    assert far.inputs[0].sha256 == near.inputs[0].sha256
    assert far.inputs[0].path == f"{base}/x.json.gz"  # the signature is not shown


def test_https_refuses_a_wildcard_and_names_a_missing_file(http_root: tuple[str, Path]) -> None:
    base, _ = http_root
    with pytest.raises(InputError, match="cannot hold a wildcard"):
        expand_remote(f"{base}/*.json.gz")
    with pytest.raises(InputError, match="HTTP 404"):
        expand_remote(f"{base}/missing.json.gz")


@pytest.mark.parametrize(
    ("pattern", "key", "hit"),
    [
        ("p/**/*.json.gz", "p/a.json.gz", True),
        ("p/**/*.json.gz", "p/x/y/a.json.gz", True),
        ("p/*.json.gz", "p/x/a.json.gz", False),
        ("p/?.gz", "p/a.gz", True),
        ("p/[ab].gz", "p/c.gz", False),
        ("p/[!ab].gz", "p/c.gz", True),
        ("p/a+b.gz", "p/a+b.gz", True),
    ],
)
def test_glob_over_keys(pattern: str, key: str, hit: bool) -> None:
    assert bool(glob_regex(pattern).match(key)) is hit


def test_display_drops_user_password_and_query() -> None:
    url = "https://user:pw@logs.example:8443/a/b.gz?X-Amz-Credential=AKIA&X-Amz-Signature=ff"
    assert display_url(url) == "https://logs.example:8443/a/b.gz"
    assert str(RemoteFile(url)) == "https://logs.example:8443/a/b.gz"


def test_read_ahead_is_bounded_and_sniffing_fetches_one_small_piece() -> None:
    pulled: list[int] = []

    def pieces(first: int) -> Iterator[bytes]:
        pulled.append(first)
        yield b"x" * first
        for _ in range(50):
            pulled.append(remote.CHUNK)
            yield b"y" * 1000

    stream = ReadAhead(pieces)
    assert stream.read(4) == b"xxxx"
    stream.close()
    assert pulled == [4]  # no read-ahead for a sniff
    pulled.clear()
    stream = ReadAhead(pieces)
    got = stream.read(remote.HEAD)
    got += stream.read(10)
    assert len(got) == remote.HEAD + 10
    stream.close()
    assert 2 <= len(pulled) <= remote.AHEAD + 3  # bounded, not the whole object


def test_parquet_in_s3_is_read_by_random_access(
    tmp_path: Path, s3_endpoint: str, s3_bucket: str
) -> None:
    from tests.scope.helpers import write
    from tests.scope.traplogs import trap_lines

    records = []
    for line in trap_lines(13, 600):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and not isinstance(value.get("prompt_tokens"), (str, bool)):
            if not isinstance(value.get("timestamp"), int):  # one type per Parquet column
                records.append(value)
    path = write(tmp_path / "x.parquet", records, "parquet")
    put_object(s3_endpoint, s3_bucket, "pq/x.parquet", path.read_bytes())
    near = scope_run([str(path)], preset="canonical").result
    far = scope_run([f"s3://{s3_bucket}/pq/x.parquet"], preset="canonical").result
    assert far.counts == near.counts and near.counts.over_threshold
    assert far.affected.request_ids == near.affected.request_ids
    assert far.inputs[0].sha256 == near.inputs[0].sha256


def test_report_names_s3_logs_by_url_with_the_hash_taken_while_reading(
    s3_endpoint: str, s3_bucket: str
) -> None:
    from assess import build_report
    from tests.conftest import REPO

    body = gzip.compress(trap_ndjson(17, 300))
    put_object(s3_endpoint, s3_bucket, "r/x.json.gz", body)
    report = build_report(
        REPO / "samples" / "vendors" / "incident-like.yaml",
        logs=[f"s3://{s3_bucket}/r/x.json.gz"],
        incident="glm-5.3-kv-leak",
        preset="canonical",
    )
    (logs,) = [i for i in report.inputs if i.role == "logs"]
    assert logs.path == f"s3://{s3_bucket}/r/x.json.gz"
    assert logs.sha256 == hashlib.sha256(body).hexdigest()


def test_a_connection_cut_mid_object_is_one_skipped_record(
    tmp_path: Path, http_root: tuple[str, Path]
) -> None:
    """A server that promises more bytes than it sends: the lines received are kept, the cut is
    reported as a broken stream at the last good line, and the run does not crash."""
    from tests.scope.helpers import serving

    body = gzip.compress(trap_ndjson(19, 3000))
    sent = len(body) // 2
    with serving(body, sent) as (url, _):
        result = scope_run([url], preset="canonical").result
    (tmp_path / "half.json.gz").write_bytes(body[:sent])
    local = scope_run([str(tmp_path / "half.json.gz")], preset="canonical").result
    assert result.counts.records_read > 100
    assert "compressed stream is corrupt or truncated" in result.skipped[-1].reason
    assert result.counts.model_dump() == local.counts.model_dump()
