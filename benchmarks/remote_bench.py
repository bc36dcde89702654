"""Time `assess scope` over many files (serial vs parallel) and over S3 (loopback) vs local.

Generates FILES seeded canonical NDJSON.gz logs of ROWS rows each (scope_bench.generate), then
runs `assess scope` in fresh processes: one file alone; all files with --jobs 1; all files with
--jobs 0 (one process per core); all files from s3:// on a moto server on 127.0.0.1, --jobs 1.
Checks that every run gives the same document (the file names aside) and prints seconds, the
ratio of each to one file's time, and the machine.

    python benchmarks/remote_bench.py --files 4 --rows 1000000 [--keep DIR]
    python benchmarks/remote_bench.py --libraries [--mb 60]
    python benchmarks/remote_bench.py --partitioned [--rows 20000] [--format ndjson.gz|parquet]

--libraries times reading one object from moto with what assess uses (pyarrow's S3 filesystem,
8 MB pieces read ahead), a pyarrow stream read in 1 MB steps, and s3fs when it is installed.

--partitioned writes 61 daily hive partitions (dt=2026-07-20/ .. dt=2026-09-18/, ROWS rows a
day) and scopes them with the advisory's 14-day window, from s3:// (moto, which counts every GET
and the bytes it sent) and from a local copy: it prints the partitions and bytes fetched, bytes
fetched / bytes of the objects read (target 1.00: each object fetched once), the GETs of the
partitions outside the window (target 0), and the two times.
Needs the test extra (moto[server], boto3).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scope_bench import generate  # noqa: E402

FAKE = {
    "AWS_ACCESS_KEY_ID": "bench",
    "AWS_SECRET_ACCESS_KEY": "bench",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def _scope(logs: list[str], out: Path, env: dict[str, str], *options: str) -> float:
    """Run `assess scope` on ``logs``; return wall seconds (the exit code 1 means affected)."""
    cmd = [sys.executable, "-m", "assess", "scope", *logs, "--preset", "canonical"]
    start = time.perf_counter()
    proc = subprocess.run(
        [*cmd, *options, "--json", str(out)], capture_output=True, text=True, env=env, check=False
    )
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd[:6])} failed:\n{proc.stderr[-3000:]}")
    return seconds


def _same(doc: dict[str, Any]) -> dict[str, Any]:
    """The document without file names (local path vs URL)."""
    doc = dict(doc)
    doc["inputs"] = [{k: v for k, v in i.items() if k != "path"} for i in doc["inputs"]]
    doc["skipped"] = [{k: v for k, v in s.items() if k != "file"} for s in doc["skipped"]]
    doc["reading"] = [{k: v for k, v in r.items() if k != "file"} for r in doc.get("reading", [])]
    return doc


def _moto(logs: list[Path]) -> tuple[Any, dict[str, str]]:
    """Start moto on a free loopback port, upload ``logs``; return (server, environment)."""
    import logging

    import boto3
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    env = {**os.environ, **FAKE, "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}"}
    client = boto3.client(
        "s3",
        endpoint_url=env["AWS_ENDPOINT_URL"],
        **{k.lower(): v for k, v in FAKE.items() if "KEY" in k},
    )
    client.create_bucket(Bucket="bench")
    for log in logs:
        client.upload_file(str(log), "bench", f"logs/{log.name}")
    return server, env


def _drain(handle: Any, step: int = 1 << 20) -> int:
    total = 0
    while block := handle.read(step):
        total += len(block)
    return total


def libraries(megabytes: int) -> None:
    """Time reading one ``megabytes`` object from moto with each library."""
    from pyarrow import fs

    blob = Path(tempfile.mkdtemp()) / "blob.bin"
    blob.write_bytes(os.urandom(1 << 20) * megabytes)
    server, env = _moto([blob])
    os.environ.update({k: v for k, v in env.items() if k.startswith("AWS_")})
    endpoint = env["AWS_ENDPOINT_URL"]
    try:
        from assess.scope.logs.remote import RemoteFile

        ways: dict[str, Any] = {
            "assess (pyarrow, 8 MB read-ahead)": lambda: RemoteFile(
                "s3://bench/logs/blob.bin"
            ).open(),
            "pyarrow stream, 1 MB reads": lambda: fs.S3FileSystem(
                endpoint_override=endpoint.split("://")[1], scheme="http"
            ).open_input_stream("bench/logs/blob.bin", compression=None),
        }
        try:
            import s3fs

            ways["s3fs, 8 MB blocks"] = lambda: s3fs.S3FileSystem(endpoint_url=endpoint).open(
                "bench/logs/blob.bin", "rb", block_size=8 << 20
            )
        except ImportError:
            print("s3fs not installed: not timed")
        for name, opener in ways.items():
            start = time.perf_counter()
            with opener() as handle:
                size = _drain(handle)
            print(f"{name:<36} {time.perf_counter() - start:6.2f} s for {size / 1e6:,.0f} MB")
    finally:
        server.stop()
        blob.unlink()


def _counted(server: Any) -> list[tuple[str, str, int]]:
    """Count the (method, path, body bytes) of every request the moto ``server`` answers."""
    log: list[tuple[str, str, int]] = []
    inner = server._server  # werkzeug's server hands each request to its ``app``
    app = inner.app

    def counted(environ: dict[str, Any], start: Any) -> Any:
        sent = 0
        try:
            for part in app(environ, start):
                sent += len(part)
                yield part
        finally:
            log.append((environ["REQUEST_METHOD"], environ["PATH_INFO"], sent))

    inner.app = counted
    return log


def _day_log(path: Path, day: Any, rows: int, fmt: str, seed: int) -> None:
    """Write ``rows`` seeded canonical records of ``day`` to ``path`` (gzip NDJSON or Parquet)."""
    import datetime as dt
    import gzip
    import random

    rng = random.Random(seed)
    start = dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp()
    records = [
        {
            "timestamp": dt.datetime.fromtimestamp(start + rng.randrange(86_400), dt.UTC)
            .isoformat()
            .replace("+00:00", "Z"),
            "model": rng.choice(["glm-5.3", "glm-5.3", "other-model"]),
            "prompt_tokens": rng.randrange(900_000),
            "request_id": f"req-{day}-{i:07d}",
            "account_id": f"acct-{rng.randrange(5000)}",
            "status": rng.choice([200, 200, 429]),
        }
        for i in range(rows)
    ]
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(records), path)
    else:
        path.write_bytes(gzip.compress(b"".join(json.dumps(r).encode() + b"\n" for r in records)))


def partitioned(rows: int, fmt: str, keep: Path) -> None:
    """Scope 61 daily partitions with a 14-day window from s3:// and locally; print the cost."""
    import datetime as dt
    import logging

    import boto3
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    root = keep / f"remote-bench-partitioned-{rows}-{fmt.replace('.', '-')}"
    days = [dt.date(2026, 7, 20) + dt.timedelta(days=n) for n in range(61)]
    keys = {}
    for n, day in enumerate(days):
        path = root / f"dt={day}" / f"part-00000.{fmt.replace('ndjson.gz', 'json.gz')}"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            _day_log(path, day, rows, fmt, seed=n)
        keys[f"logs/dt={day}/{path.name}"] = path
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    log = _counted(server)
    env = {**os.environ, **FAKE, "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}"}
    client = boto3.client(
        "s3",
        endpoint_url=env["AWS_ENDPOINT_URL"],
        **{k.lower(): v for k, v in FAKE.items() if "KEY" in k},
    )
    client.create_bucket(Bucket="bench")
    for key, path in keys.items():
        client.upload_file(str(path), "bench", key)
    log.clear()
    out_s3, out_local = root.with_suffix(".s3.json"), root.with_suffix(".local.json")
    try:
        far = _scope(["s3://bench/logs/"], out_s3, env)
    finally:
        server.stop()
    near = _scope([str(root / "**" / "*.*")], out_local, dict(os.environ))
    fetched = dict.fromkeys(keys, 0)
    for method, path, sent in log:
        if method == "GET" and path.startswith("/bench/") and path[7:] in keys:
            fetched[path[7:]] += sent
    read = [k for k, n in fetched.items() if n]
    size = {k: p.stat().st_size for k, p in keys.items()}
    pruned = [k for k in keys if k not in read]
    far_doc, near_doc = json.loads(out_s3.read_text()), json.loads(out_local.read_text())
    assert _same(far_doc)["counts"] == _same(near_doc)["counts"], "s3 and local disagree"
    total = sum(size.values())
    print(f"61 daily partitions x {rows:,} rows ({fmt}), {total / 1e6:,.1f} MB; window 14 days")
    print(
        f"partitions read {len(read)} (the window and a day each side), skipped {len(pruned)} "
        f"(GETs to them: {sum(1 for k in pruned if fetched[k])})"
    )
    got, of_read = sum(fetched.values()), sum(size[k] for k in read)
    print(f"bytes fetched {got:,} / bytes of the objects read {of_read:,} = {got / of_read:.2f}")
    print(f"bytes fetched / all objects' bytes = {got / total:.2f}")
    print(f"s3:// {far:.1f} s, local {near:.1f} s ({far / near:.2f}x); same counts: yes")


def main() -> None:
    """Generate the logs, time the runs, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--libraries", action="store_true", help="time the S3 libraries only")
    parser.add_argument("--mb", type=int, default=60, help="--libraries: object size in MB")
    parser.add_argument("--partitioned", action="store_true", help="61 days, a 14-day window")
    parser.add_argument("--format", default="ndjson.gz", choices=["ndjson.gz", "parquet"])
    args = parser.parse_args()
    if args.libraries:
        libraries(args.mb)
        return
    if args.partitioned:
        partitioned(20_000 if args.rows == 1_000_000 else args.rows, args.format, args.keep)
        return
    logs = []
    for seed in range(args.files):
        log = args.keep / f"remote-bench-{args.rows}-{seed}.ndjson.gz"
        if not log.exists():
            print(f"generating {args.rows:,} rows -> {log}", flush=True)
            generate(log, args.rows, seed=seed + 1)
        logs.append(log)
    size = sum(log.stat().st_size for log in logs) / 1e6
    print(
        f"{args.files} x {args.rows:,} rows, {size:,.0f} MB; {platform.machine()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}",
        flush=True,
    )
    env = dict(os.environ)
    out = {name: args.keep / f"remote-bench-{name}.json" for name in ("one", "serial", "par", "s3")}
    times = {"one file": _scope([str(logs[0])], out["one"], env, "--jobs", "1")}
    local = [str(log) for log in logs]
    times["all, --jobs 1"] = _scope(local, out["serial"], env, "--jobs", "1")
    times["all, --jobs 0"] = _scope(local, out["par"], env, "--jobs", "0")
    server, s3_env = _moto(logs)
    try:
        times["all from s3://, --jobs 1"] = _scope(
            ["s3://bench/logs/*.ndjson.gz"], out["s3"], s3_env, "--jobs", "1"
        )
    finally:
        server.stop()
    docs = {
        name: _same(json.loads(path.read_text())) for name, path in out.items() if name != "one"
    }
    assert docs["serial"] == docs["par"] == docs["s3"], "the runs disagree"
    one = times["one file"]
    print(f"{'run':<28} {'seconds':>8} {'x one file':>11}")
    for name, seconds in times.items():
        print(f"{name:<28} {seconds:8.1f} {seconds / one:11.2f}")
    print("same document from all runs: yes")


if __name__ == "__main__":
    main()
