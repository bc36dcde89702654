"""`assess probe --mode cache` against a real inference engine: llama.cpp's server
(llama-cpp-python[server] 0.3.36, tests/engines/llama_venv.py) serving a tiny random-weight
LLaMA the test writes (tests/engines/tiny_gguf.py).

What the engine does (read from llama-cpp-python 0.3.36's source): the server holds one
``Llama`` per model (llama_cpp/server/model.py) and every request, whoever sends it, goes through
``Llama.generate`` (llama_cpp/llama.py), which compares the new prompt's tokens with the ones
already in the context ("Check for kv cache prefix match") and, on a common prefix, removes only
the rest from the KV cache (``kv_cache_seq_rm``) and evaluates the suffix ("prefix-match hit").
The server's API key (``--api_key``, llama_cpp/server/settings.py) is unset here, so every
bearer token is accepted and every caller shares that context: the audit must find the cache
shared across organisations, with the same-account control visible. The server's own options
(settings.py, ``ModelSettings``/``ServerSettings``, one ``--name value`` flag per field,
llama_cpp/server/cli.py): ``--n_ctx`` (default 2048; 4096 here for the 1,100-word prompts and
the chat template), ``--n_threads``/``--n_threads_batch`` (1: steadier timings on a shared
machine), ``--cache`` (the optional RAM/disk *state* cache, off by default and not needed: the
prefix reuse above is in the live context), ``--host``/``--port``, ``--model_alias``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assess.probe.cache import WORDS
from tests.engines.llama_venv import ensure
from tests.server_process import Server, running

pytestmark = pytest.mark.engines

HERE = Path(__file__).resolve().parent
MODEL = "tiny-llama"
#: Bound on the server's start (model load is milliseconds; importing the server is seconds).
START_SECONDS = 120
KEYS = {"ENGINE_KEY_A": "sk-engine-a-0001", "ENGINE_KEY_B": "sk-engine-b-0002"}


@pytest.fixture(scope="module")
def engine_python() -> Path:
    python, why = ensure()
    if python is None:
        pytest.skip(why)
    return python


@pytest.fixture(scope="module")
def model_file(engine_python: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("engine") / "tiny-llama.gguf"
    done = subprocess.run(
        [str(engine_python), str(HERE / "tiny_gguf.py"), str(path)],
        input=json.dumps(sorted(set(WORDS))), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return path


def _bound_url(log: str) -> str | None:
    bound = re.search(r"Uvicorn running on (http://127\.0\.0\.1:\d+)", log)
    return bound.group(1) + "/v1" if bound else None


@pytest.fixture(scope="module")
def engine(engine_python: Path, model_file: Path) -> Iterator[Server]:
    """llama.cpp's server on 127.0.0.1, on a port the system picks (uvicorn logs the one bound)."""
    command = [
        str(engine_python), "-m", "llama_cpp.server", "--model", str(model_file),
        "--model_alias", MODEL, "--host", "127.0.0.1", "--port", "0", "--n_ctx", "4096",
        "--n_threads", "1", "--n_threads_batch", "1",
    ]  # fmt: skip
    with running(command, _bound_url, START_SECONDS, "llama.cpp server") as server:
        yield server


def _audit(engine: Server, tmp_path: Path, *extra: str) -> tuple[int, dict[str, Any], str]:
    out = tmp_path / "cache.json"
    command = [
        sys.executable, "-m", "assess", "probe", "--mode", "cache", "--base-url",
        engine.url, "--model", MODEL, "--api-key-env", "ENGINE_KEY_A",
        "--second-api-key-env", "ENGINE_KEY_B", "--samples", "20", "--yes", "--json", str(out),
        *extra,
    ]  # fmt: skip
    env = dict(os.environ, **KEYS)
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
    assert out.is_file(), done.stderr
    return done.returncode, json.loads(out.read_text()), done.stdout + done.stderr


def _level(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(lv for lv in doc["levels"] if lv["level"] == name)


def test_the_model_is_what_the_audit_needs(engine: Server) -> None:
    """The written model loads as a LLaMA with the vocabulary made for the probe's words."""
    said = "".join(engine.log)
    assert "general.architecture str              = llama" in said or "arch = llama" in said, said[
        -3000:
    ]


def test_audit_finds_llama_cpp_prefix_cache_shared_across_organisations(
    engine: Server, tmp_path: Path
) -> None:
    code, doc, said = _audit(engine, tmp_path)
    print(said)  # the audit's own lines, shown with pytest -s (make test-engines logs them)
    assert code == 1, said
    assert doc["verdict"] == "shared-across-organisations" and doc["complete"], said
    for name in ("same-account", "other-organisation"):
        lv = _level(doc, name)
        assert lv["caching_visible"] and lv["p_value"] < 1e-8, (name, said)
        # the effect is prefill: a hit evaluates 5% of the prompt, a miss all of it
        assert lv["median_hit_ms"] * 2 < lv["median_miss_ms"], (name, said)
        assert len(lv["hit_ms"]) == len(lv["miss_ms"]) == 20, name
        # the first token is timed where the answer streamed text: the random model's one
        # token is sometimes an empty piece (seen: 2 of 20), and then only whole latency counts
        assert len(lv["hit_ttft_ms"]) >= 10, name
        assert max(lv["hit_ttft_ms"]) <= max(lv["hit_ms"]), name
        # llama-cpp-python's usage carries no prompt_tokens_details: timing alone finds it
        assert not lv["cached_tokens_seen"]
    for key in KEYS.values():
        assert key not in said and key not in json.dumps(doc)
