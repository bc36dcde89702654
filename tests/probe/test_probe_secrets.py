"""API keys never reach an output file, stdout or stderr, even when a server echoes them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread
from typing import Any

import pytest

from assess.lab.engine import LabConfig
from assess.lab.server import run_lab_server
from assess.probe.transport.interface import excerpt, redact_secret
from tests.probe.conftest import KEY_A, KEY_B, SMALL_LAB


@contextmanager
def _echoing_server() -> Iterator[str]:
    """A hostile endpoint that puts the caller's Authorization header in a non-JSON body."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return None

        def do_GET(self) -> None:  # noqa: N802
            data = f"<html>you sent {self.headers.get('Authorization')}</html>".encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def _run(base: str, tmp: Path, *extra: str) -> tuple[int, list[str]]:
    env = {**os.environ, "TEST_KEY_A": KEY_A, "TEST_KEY_B": KEY_B}
    out, junit = tmp / "p.json", tmp / "p.xml"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "assess",
            "probe",
            "--base-url",
            base,
            "--model",
            "lab-glm-5.3",
            "--api-key-env",
            "TEST_KEY_A",
            "--second-api-key-env",
            "TEST_KEY_B",
            "--rounds",
            "1",
            "--json",
            str(out),
            "--junit",
            str(junit),
            *extra,
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    texts = [proc.stdout, proc.stderr]
    texts += [p.read_text(encoding="utf-8") for p in (out, junit) if p.exists()]
    return proc.returncode, texts


CACHE = ("--mode", "cache", "--samples", "16", "--prompt-tokens", "64", "--yes")
CACHE_LAB = LabConfig(pool_tokens=256, prefix_cache="shared", report_cached_tokens=True)


@pytest.mark.parametrize(
    "case",
    ["leaky", "leaky-sdk", "unauthorised", "echoing", "cache", "cache-unauthorised",
     "cache-echoing"],
)  # fmt: skip
def test_keys_appear_in_no_output(case: str, tmp_path: Path) -> None:
    if case == "cache":
        with run_lab_server(CACHE_LAB) as base:
            code, texts = _run(base, tmp_path, *CACHE)
        assert code == 1 and len(texts) == 4 and "assess.cache-probe" in texts[2]
        level = json.loads(texts[2])["levels"][0]  # streamed: the first token is timed too
        assert len(level["hit_ttft_ms"]) == 16 and level["ttft_p_value"] is not None
    elif case == "cache-unauthorised":
        with run_lab_server(LabConfig(api_keys=frozenset({"x"}), prefix_cache="shared")) as base:
            code, texts = _run(base, tmp_path, *CACHE)
        assert code == 2
    elif case == "cache-echoing":
        with _echoing_server() as base:
            code, texts = _run(base, tmp_path, *CACHE)
        assert code == 2
    elif case == "echoing":
        with _echoing_server() as base:
            code, texts = _run(base, tmp_path)
        assert code == 2 and "[redacted]" in texts[1]
    elif case == "unauthorised":
        with run_lab_server(LabConfig(api_keys=frozenset({"x"}), **SMALL_LAB)) as base:
            code, texts = _run(base, tmp_path)
        assert code == 2
    else:
        transport = "openai" if case == "leaky-sdk" else "httpx"
        with run_lab_server(LabConfig(**SMALL_LAB)) as base:
            code, texts = _run(
                base, tmp_path, "--long-prompt-tokens", "400", "--yes", "--transport", transport
            )
        assert code == 1 and len(texts) == 4
    for text in texts:
        assert KEY_A not in text and KEY_B not in text
        assert "AAAA-0f3c" not in text and "BBBB-81d2" not in text


def test_a_short_key_is_redacted_as_a_word_without_mangling_other_text() -> None:
    # "k" or "EMPTY" (what local servers take) must not eat letters out of every word
    text = 'Check the key: k. {"kind": "assess.probe", "key": "k"} Bearer EMPTY EMPTYISH'
    assert redact_secret(text, "k") == (
        'Check the key: [redacted]. {"kind": "assess.probe", "key": "[redacted]"} '
        "Bearer EMPTY EMPTYISH"
    )
    assert "Bearer [redacted] EMPTYISH" in redact_secret(text, "EMPTY")
    long_key = "sk-0123456789abcdef"
    assert redact_secret(f"x{long_key}y", long_key) == "x[redacted]y"  # long keys: anywhere
    assert excerpt("Check k", "k") == "'Check [redacted]'"
