"""Date folders outside the window are not read, on S3 (moto, every GET counted) and locally;
the JSON names each folder skipped with its files and bytes, and the files read plus the files
skipped are the files listed. A bare prefix lists the objects under it.

Layouts: hive ``dt=YYYY-MM-DD/`` (Spark, Firehose), ``year=/month=/day=``, and LiteLLM's S3
logger's ``<s3_path>/<YYYY-MM-DD>/time-<HH-MM-SS-ffffff>_<id>.json`` (BerriAI/litellm
``litellm/integrations/s3.py`` ``get_s3_object_key``; the objects of
tests/assets/scope/litellm-1.106.12 were written by it).
"""

from __future__ import annotations

import gzip
import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from assess.kernel.errors import InputError
from assess.scope.api import scope_run
from assess.scope.logs.listing import expand_remote
from assess.scope.logs.partitions import folder_days, listed_part, outside
from tests.scope.conftest import Traffic, put_object

pytest.importorskip("moto")

FIRST = date(2026, 7, 20)  # 61 days: 2026-07-20 .. 2026-09-18; the advisory's window is
DAYS = 61  # 2026-08-27 .. 2026-09-09 (14 days), read with a day's margin: 16 folders


def _day_body(day: date, rows: int = 6) -> bytes:
    """Records at the day's start, noon and end: the edge ones fall in the window or out."""
    lines = []
    for i in range(rows):
        at = datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(hours=i * 23 / rows)
        lines.append(
            json.dumps(
                {
                    "timestamp": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "model": "glm-5.3" if i % 2 else "other-model",
                    "prompt_tokens": 700_000 + i,
                    "request_id": f"req-{day}-{i}",
                }
            )
        )
    return gzip.compress(("\n".join(lines) + "\n").encode())


def _layout(folder: str) -> dict[str, bytes]:
    days = [FIRST + timedelta(days=n) for n in range(DAYS)]
    if folder == "hive":
        return {f"hive/dt={d}/part-00000.json.gz": _day_body(d) for d in days}
    if folder == "ymd":
        return {
            f"ymd/year={d.year}/month={d.month:02d}/day={d.day:02d}/x.json.gz": _day_body(d)
            for d in days
        }
    return {
        f"litellm/{d}/time-12-00-00-000000_{d}.json": gzip.decompress(_day_body(d)) for d in days
    }


@pytest.mark.parametrize(
    ("layout", "pattern"),
    [("hive", "hive/**/*.json.gz"), ("ymd", "ymd/"), ("litellm", "litellm/**/*.json")],
)
def test_out_of_window_folders_get_no_get_and_are_listed(
    tmp_path: Path, s3_bucket: str, s3_traffic: Traffic, layout: str, pattern: str
) -> None:
    import os

    files = _layout(layout)
    for key, body in files.items():
        put_object(os.environ["AWS_ENDPOINT_URL"], s3_bucket, key, body)
        (tmp_path / key).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / key).write_bytes(body)
    s3_traffic.requests.clear()
    far = scope_run([f"s3://{s3_bucket}/{pattern}"], preset="canonical").result
    read = {k for k in files if s3_traffic.gets(s3_bucket, k)}
    window = {date(2026, 8, 26) + timedelta(days=n) for n in range(16)}
    assert {_key_day(k) for k in read} == window  # 14 days and one each side
    for key in set(files) - read:
        assert not s3_traffic.gets(s3_bucket, key)
    notes = far.inputs_not_read
    assert len(notes) == DAYS - 16
    assert all("outside the window" in n.reason and n.objects == 1 for n in notes)
    # conservation: every file listed is read or named as skipped, with its bytes
    assert len(far.inputs) + sum(n.objects or 0 for n in notes) == DAYS
    assert sum(i.bytes for i in far.inputs) + sum(n.bytes or 0 for n in notes) == sum(
        len(b) for b in files.values()
    )
    # the answer of every file read, folders not pruned (each named in full)
    everything = scope_run([str(tmp_path / k) for k in sorted(files)], preset="canonical").result
    assert far.affected.request_ids == everything.affected.request_ids
    assert far.counts.in_window == everything.counts.in_window > 0
    assert far.counts.over_threshold == everything.counts.over_threshold
    assert far.counts.records_read < everything.counts.records_read
    local_glob = str(tmp_path / pattern) if "*" in pattern else None
    if local_glob:  # the same glob on local files skips the same folders
        near = scope_run([local_glob], preset="canonical").result
        assert near.counts == far.counts
        assert len(near.inputs_not_read) == len(notes)


def _key_day(key: str) -> date:
    found = folder_days(key)
    assert found is not None
    return found[0]


def test_a_bare_prefix_lists_its_objects_without_markers(
    s3_bucket: str, s3_traffic: Traffic
) -> None:
    import os

    endpoint = os.environ["AWS_ENDPOINT_URL"]
    body = _day_body(date(2026, 8, 28))
    put_object(endpoint, s3_bucket, "logs/a/part-0.json.gz", body)
    put_object(endpoint, s3_bucket, "logs/b/part-1.json.gz", _day_body(date(2026, 8, 29)))
    put_object(endpoint, s3_bucket, "logs/_SUCCESS", b"")
    put_object(endpoint, s3_bucket, "logs/a/.part-0.json.gz.crc", b"crc")
    put_object(endpoint, s3_bucket, "other/part-2.json.gz", body)
    for pattern in (f"s3://{s3_bucket}/logs/", f"s3://{s3_bucket}/logs"):
        assert [str(f) for f in expand_remote(pattern)] == [
            f"s3://{s3_bucket}/logs/a/part-0.json.gz",
            f"s3://{s3_bucket}/logs/b/part-1.json.gz",
        ]
    result = scope_run([f"s3://{s3_bucket}/logs/"], preset="canonical").result
    assert len(result.inputs) == 2 and result.counts.records_read == 12
    with pytest.raises(InputError, match="no such object"):
        expand_remote(f"s3://{s3_bucket}/log")
    with pytest.raises(InputError, match="the prefix holds no object"):
        expand_remote(f"s3://{s3_bucket}/empty/")


def test_every_folder_outside_the_window_is_an_input_error(
    s3_bucket: str, s3_traffic: Traffic
) -> None:
    import os

    put_object(os.environ["AWS_ENDPOINT_URL"], s3_bucket, "l/dt=2026-01-02/x.json.gz", b"x")
    with pytest.raises(InputError, match="every file is in a date folder outside the window"):
        scope_run([f"s3://{s3_bucket}/l/"], preset="canonical")
    assert not s3_traffic.gets(s3_bucket, "l/dt=2026-01-02/x.json.gz")


@pytest.mark.parametrize(
    ("relative", "days"),
    [
        ("dt=2026-08-01/part-0.gz", ("2026-08-01", "2026-08-01")),
        ("DATE=2026-08-01/h=03/part-0.gz", ("2026-08-01", "2026-08-01")),
        ("team/2026-08-01/time-x.json", ("2026-08-01", "2026-08-01")),
        ("year=2026/month=02/x.gz", ("2026-02-01", "2026-02-28")),
        ("year=2026/x.gz", ("2026-01-01", "2026-12-31")),
        ("year=2026/month=08/day=31/x.gz", ("2026-08-31", "2026-08-31")),
        ("year=2026/month=08/day=31/dt=2026-08-31/x.gz", ("2026-08-31", "2026-08-31")),
        ("2026-08-01/x/2026-08-02/x.gz", None),  # two days that disagree: read
        ("year=2026/month=13/x.gz", None),  # no such month: read
        ("incident-2026-08-01/x.gz", None),  # not a folder named by a day
        ("2026-08-01.json.gz", None),  # a file's name is not a folder
        ("month=08/day=01/x.gz", None),  # no year
    ],
)
def test_folder_days(relative: str, days: tuple[str, str] | None) -> None:
    found = folder_days(relative)
    if days is None:
        assert found is None
    else:
        assert found is not None and (str(found[0]), str(found[1])) == days


def test_margin_reads_the_neighbour_days_only() -> None:
    since = datetime(2026, 8, 27, tzinfo=UTC)
    until = datetime(2026, 9, 9, 23, 59, 59, tzinfo=UTC)
    day = date.fromisoformat
    assert not outside(day("2026-08-26"), day("2026-08-26"), since, until)
    assert outside(day("2026-08-25"), day("2026-08-25"), since, until)
    assert not outside(day("2026-09-10"), day("2026-09-10"), since, until)
    assert outside(day("2026-09-11"), day("2026-09-11"), since, until)


@pytest.mark.parametrize(
    ("pattern", "name", "part"),
    [
        ("s3://b/logs/**/*.gz", "s3://b/logs/dt=2026-08-01/x.gz", "dt=2026-08-01/x.gz"),
        ("s3://b/logs/", "s3://b/logs/dt=2026-08-01/x.gz", "dt=2026-08-01/x.gz"),
        ("s3://b/logs", "s3://b/logs/dt=2026-08-01/x.gz", "dt=2026-08-01/x.gz"),
        ("s3://b/dt=2026-08-01/x.gz", "s3://b/dt=2026-08-01/x.gz", ""),  # named in full
        ("/data/dt=2026-08-*/x.gz", "/data/dt=2026-08-01/x.gz", "dt=2026-08-01/x.gz"),
        ("/data/dt=2026-08-01/*.gz", "/data/dt=2026-08-01/x.gz", "x.gz"),  # fixed: read
    ],
)
def test_only_what_a_glob_or_prefix_reached_is_pruned(pattern: str, name: str, part: Any) -> None:
    assert listed_part(pattern, name) == part
