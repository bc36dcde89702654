"""`lab serve` holds 2,000 requests at concurrency 64 without a reset.

Measured before the change: the listen backlog was socketserver's default of 5, and connections
were reset at concurrency 32.
"""

from __future__ import annotations

import http.client
import threading
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

from assess.lab.engine import LabConfig
from assess.lab.server import LabHTTPServer, run_lab_server

REQUESTS = 2000
CONCURRENCY = 64


def _get_models(host: str, port: int, start: threading.Barrier) -> int:
    start.wait()  # the first 64 connections arrive at once, as a load tool's do
    connection = http.client.HTTPConnection(host, port, timeout=60)
    try:
        connection.request("GET", "/v1/models", headers={"Authorization": "Bearer lab-key-a"})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def test_the_listen_backlog_is_raised() -> None:
    assert LabHTTPServer.request_queue_size >= 1024


def test_two_thousand_requests_at_concurrency_64_all_succeed() -> None:
    with run_lab_server(LabConfig()) as base:
        parts = urlsplit(base)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        barrier = threading.Barrier(CONCURRENCY)
        first = [barrier] * CONCURRENCY
        rest = [threading.Barrier(1)] * (REQUESTS - CONCURRENCY)
        with ThreadPoolExecutor(max_workers=CONCURRENCY) as pool:
            statuses = list(pool.map(lambda b: _get_models(host, port, b), first + rest))
    assert statuses.count(200) == REQUESTS
