"""Servers the scope tests read logs from: an S3-compatible one (moto), a GCS emulator and a plain
web server, all on 127.0.0.1 on a port the system picks when the server binds (port 0: never a
port chosen first and bound later, which another pytest-xdist worker's server could take in
between); the object stores are started once per test session (per xdist worker) and stopped
after it."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import http.server
import logging
import os
import re
import socket
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server_process import answers, running

#: Fake credentials: moto accepts any; the standard chain finds them in the environment.
FAKE_AWS = {
    "AWS_ACCESS_KEY_ID": "testing-key-id",
    "AWS_SECRET_ACCESS_KEY": "testing-secret-never-printed",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@contextlib.contextmanager
def refused_port() -> Iterator[int]:
    """A loopback port held bound but not listening while the block runs: a connection to it is
    refused, and no other server (another xdist worker's, say) can take it meanwhile."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        port: int = held.getsockname()[1]
        yield port


class Traffic:
    """The requests the S3 server answered: (method, key path, Range header, body bytes sent).

    A WSGI layer around moto's application counts the bytes of each response body as it is
    sent, so a test can say how often and how much of each object was fetched.
    """

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, str | None, int]] = []

    def wrap(self, app: Any) -> Any:
        def counted(environ: dict[str, Any], start: Any) -> Iterator[bytes]:
            sent = 0
            try:
                for part in app(environ, start):
                    sent += len(part)
                    yield part
            finally:
                query = environ.get("QUERY_STRING") or ""
                path = environ["PATH_INFO"] + (f"?{query}" if query else "")
                self.requests.append(
                    (environ["REQUEST_METHOD"], path, environ.get("HTTP_RANGE"), sent)
                )

        return counted

    def gets(self, bucket: str, key: str) -> list[tuple[int, int]]:
        """Return the (first byte, bytes sent) of every GET of ``s3://bucket/key``, in the order
        their bodies were sent."""
        out = []
        for method, path, ranged, sent in self.requests:
            if method == "GET" and path == f"/{bucket}/{key}":
                first = int(ranged.split("=")[1].split("-")[0]) if ranged else 0
                out.append((first, sent))
        return out


#: What the session's S3 server answered (reset by the ``s3_traffic`` fixture).
S3_TRAFFIC = Traffic()


@pytest.fixture
def s3_traffic(s3_endpoint: str) -> Traffic:
    """The S3 server's requests from now on."""
    S3_TRAFFIC.requests.clear()
    return S3_TRAFFIC


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """Start moto's S3 server (its requests counted in :data:`S3_TRAFFIC`); the environment
    points the standard chain at it."""
    moto_server = pytest.importorskip("moto.server")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    inner = server._server  # werkzeug's server: each request is handed to its ``app``
    inner.app = S3_TRAFFIC.wrap(inner.app)
    endpoint = f"http://127.0.0.1:{server.get_host_and_port()[1]}"
    saved = {name: os.environ.get(name) for name in (*FAKE_AWS, "AWS_ENDPOINT_URL")}
    os.environ.update(FAKE_AWS, AWS_ENDPOINT_URL=endpoint)
    try:
        yield endpoint
    finally:
        server.stop()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture
def s3_bucket(s3_endpoint: str, request: pytest.FixtureRequest) -> str:
    """Return a new, empty bucket's name on the session's S3 server: one per test, its
    parametrized cases included (a name cut from the test's name alone gave the cases of one
    test one bucket, each finding the objects of the cases before it on its worker)."""
    import boto3

    digest = hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:12]
    name = "logs-" + "".join(c for c in request.node.name.lower() if c.isalnum())[:32]
    name += f"-{digest}"
    boto3.client("s3", endpoint_url=s3_endpoint).create_bucket(Bucket=name)
    return name


def put_object(endpoint: str, bucket: str, key: str, body: bytes) -> None:
    """Upload ``body`` as ``s3://bucket/key``."""
    import boto3

    boto3.client("s3", endpoint_url=endpoint).put_object(Bucket=bucket, Key=key, Body=body)


#: The bucket the GCS emulator creates when it starts.
GCS_BUCKET = "logs"
#: gcp-storage-emulator in memory on a port the system picks, saying the one bound (its own
#: `start --port` takes a number only and says nothing of it; server.py create_server, APIThread).
_GCS_ON_PORT_0 = f"""
import threading
from gcp_storage_emulator.server import create_server
server = create_server("127.0.0.1", 0, in_memory=True, default_bucket="{GCS_BUCKET}")
server.start()
print("GCS_EMULATOR=http://127.0.0.1:%d" % server._api._httpd.server_address[1], flush=True)
threading.Event().wait()
"""


@pytest.fixture(scope="session")
def gcs_endpoint() -> Iterator[str]:
    """Start gcp-storage-emulator (in memory, bucket ``logs``); STORAGE_EMULATOR_HOST points
    pyarrow's GCS filesystem at it for the session."""
    pytest.importorskip(
        "gcp_storage_emulator", reason="gcp-storage-emulator is not installed (make test does)"
    )
    from assess.scope.logs import remote

    command = [sys.executable, "-c", _GCS_ON_PORT_0]
    saved = os.environ.get("STORAGE_EMULATOR_HOST")

    def ready(log: str) -> str | None:
        bound = re.search(r"GCS_EMULATOR=(http://127\.0\.0\.1:\d+)", log)
        return bound.group(1) if bound and answers(f"{bound.group(1)}/storage/v1/b") else None

    try:
        with running(command, ready, 30, "the GCS emulator") as emulator:
            endpoint = emulator.url
            os.environ["STORAGE_EMULATOR_HOST"] = endpoint
            remote._filesystem.cache_clear()
            yield endpoint
    finally:
        if saved is None:
            os.environ.pop("STORAGE_EMULATOR_HOST", None)
        else:
            os.environ["STORAGE_EMULATOR_HOST"] = saved
        remote._filesystem.cache_clear()


def put_gcs(endpoint: str, bucket: str, name: str, data: bytes) -> None:
    """Upload ``data`` as ``gs://bucket/name`` to the emulator at ``endpoint``."""
    query = urllib.parse.urlencode({"uploadType": "media", "name": name})
    request = urllib.request.Request(
        f"{endpoint}/upload/storage/v1/b/{bucket}/o?{query}",
        data=data,
        method="POST",
        headers={"Content-Type": "application/octet-stream"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200, response.read()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return None


@pytest.fixture
def http_root(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """Serve a temporary folder over HTTP on 127.0.0.1; return (base URL, folder)."""
    folder = tmp_path / "www"
    folder.mkdir()
    from tests.scope.helpers import loopback

    with loopback(functools.partial(_Quiet, directory=str(folder))) as base:
        yield base, folder


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    """One local Spark (``local[2]``) for the test session; skipped when there is no JVM."""
    import shutil

    pytest.importorskip("pyspark")
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        pytest.skip("no Java runtime: install a JDK 17+ (apt-get install openjdk-17-jre-headless)")
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("assess-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        # a short-lived JVM: C1 compiles only (measured: 120 s -> 63 s for the first two
        # queries on two busy cores; most of it is warming the JVM, not running the query)
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        # small data: interpreting the plan beats compiling it (first query 14 s -> 10 s)
        .config("spark.sql.codegen.wholeStage", "false")
        # not UTC on purpose: the query must not depend on the session's time zone
        .config("spark.sql.session.timeZone", "America/New_York")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()
