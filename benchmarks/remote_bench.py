"""Time `assess scope` over many files (serial vs parallel) and over S3 (loopback) vs local.

Generates FILES seeded canonical NDJSON.gz logs of ROWS rows each (scope_bench.generate), then
runs `assess scope` in fresh processes: one file alone; all files with --jobs 1; all files with
--jobs 0 (one process per core); all files from s3:// on a moto server on 127.0.0.1, --jobs 1.
Checks that every run gives the same document (the file names aside) and prints seconds, the
ratio of each to one file's time, and the machine.

    python benchmarks/remote_bench.py --files 4 --rows 1000000 [--keep DIR]
    python benchmarks/remote_bench.py --libraries [--mb 60]

--libraries times reading one object from moto with what assess uses (pyarrow's S3 filesystem,
8 MB pieces read ahead), a pyarrow stream read in 1 MB steps, and s3fs when it is installed.
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


def main() -> None:
    """Generate the logs, time the runs, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--libraries", action="store_true", help="time the S3 libraries only")
    parser.add_argument("--mb", type=int, default=60, help="--libraries: object size in MB")
    args = parser.parse_args()
    if args.libraries:
        libraries(args.mb)
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
