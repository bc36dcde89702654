"""The real LiteLLM proxy (litellm[proxy] from PyPI, tests/scope/litellm_venv.py) in front of
`assess lab serve`, logging every call with its own S3 logger (`s3_v2`, LiteLLM's
litellm/integrations/s3_v2.py) into the moto server of tests/scope/conftest.py; then `assess scope`
on the objects it wrote must give back the requests, end users, sessions and ids the test sent.

What LiteLLM writes (litellm 1.106.12, read from its source and seen here): one JSON object per
call, a StandardLoggingPayload (litellm/types/utils.py), under
``<s3_path>/<YYYY-MM-DD>/time-<HH-MM-SS-ffffff>_<id>.json`` (integrations/s3.py get_s3_object_key,
utils.py get_logging_id: the key carries the call's start time to the microsecond); failures too,
with ``id`` the call id the proxy returns in ``x-litellm-call-id``.

The traffic: four end users (the OpenAI ``user`` field and the ``x-litellm-end-user-id`` header),
all with the master key (whose key hash LiteLLM writes as the literal ``litellm_proxy_master_key``),
sessions by ``metadata.session_id`` and the ``x-litellm-session-id`` header, a plain, a streamed,
an over-length (the lab's pool is 256 tokens: it answers from stale pages), an over-context one
(the lab's 400: routed, failed), a dead deployment (connection refused: routed, failed) until the
router cools every deployment of the group down (429, never routed), an unknown model (never
routed), and one request with no end user and no session.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.scope.conftest import FAKE_AWS, refused_port
from tests.scope.litellm_venv import LITELLM_VERSION, ensure
from tests.server_process import answers, running

pytest.importorskip("moto")

MASTER_KEY = "sk-assess-master-0001"
BUCKET = "litellm-logs"
PREFIX = "gateway"
#: Bounds on waiting for the proxy (it imports ~3,000 modules: 40-60 s on two busy cores) and for
#: its logger's uploads (flushed every second).
START_SECONDS = 240
UPLOAD_SECONDS = 60


@dataclass(frozen=True)
class Sent:
    """One request the test sent and what it expects the log to say about it."""

    request_id: str
    end_user: str | None
    session: str | None
    routed: bool  # False: LiteLLM never sent it to a deployment (a non-request)
    status: int


@pytest.fixture(scope="module")
def litellm_script() -> Path:
    script, why = ensure()
    if script is None:
        pytest.skip(why)
    return script


@pytest.fixture(scope="module")
def lab_url() -> Iterator[str]:
    """`assess lab serve` as a user runs it (faulty: pool 256 tokens, context 512)."""
    command = [sys.executable, "-m", "assess", "lab", "serve", "--port", "0", "--quiet"]
    lab = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert lab.stdout is not None
        first = lab.stdout.readline().strip()  # blocks until the server is bound
        assert first.startswith("LAB_BASE_URL="), first
        yield first.split("=", 1)[1]
    finally:
        lab.terminate()
        lab.wait(timeout=30)


def _config(lab: str, dead: int, s3: str) -> str:
    """The proxy's config.yaml: the lab, a group of two dead deployments, the S3 logger."""
    deployment = "    litellm_params: {{model: openai/lab-glm-5.3, api_base: '{}', api_key: k}}"
    return "\n".join(
        [
            "model_list:",
            "  - model_name: lab-glm",
            deployment.format(lab),
            "  - model_name: dead-glm",
            deployment.format(f"http://127.0.0.1:{dead}/v1"),
            "  - model_name: dead-glm",
            deployment.format(f"http://127.0.0.1:{dead}/v2"),
            "router_settings: {allowed_fails: 0, cooldown_time: 600}",
            "litellm_settings:",
            "  num_retries: 0",
            "  callbacks: [s3_v2]",
            "  s3_callback_params:",
            f"    s3_bucket_name: {BUCKET}",
            f"    s3_path: {PREFIX}",
            "    s3_region_name: us-east-1",
            f"    s3_endpoint_url: {s3}",
            f"    s3_aws_access_key_id: {FAKE_AWS['AWS_ACCESS_KEY_ID']}",
            f"    s3_aws_secret_access_key: {FAKE_AWS['AWS_SECRET_ACCESS_KEY']}",
            "    s3_batch_size: 1",
            "    s3_flush_interval: 1",
            f"general_settings: {{master_key: {MASTER_KEY}}}",
            "",
        ]
    )


@pytest.fixture(scope="module")
def proxy(
    litellm_script: Path, lab_url: str, s3_endpoint: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """Start the proxy on 127.0.0.1 on a port the system picks (uvicorn logs the one bound), its
    dead deployments on a port held closed; poll its liveness endpoint; stop it after."""
    import boto3

    boto3.client("s3", endpoint_url=s3_endpoint).create_bucket(Bucket=BUCKET)
    folder = tmp_path_factory.mktemp("litellm")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LITELLM", "OPENAI"))}
    # the bundled model cost map, not a download; no proxy for loopback calls
    env.update(FAKE_AWS, LITELLM_LOCAL_MODEL_COST_MAP="True")
    # LiteLLM names each object by datetime.now() (local time): UTC, to compare with startTime
    env.update(TZ="UTC")
    env.update(NO_PROXY="127.0.0.1", no_proxy="127.0.0.1")
    command = [str(litellm_script), "--config", "config.yaml"]
    command += ["--host", "127.0.0.1", "--port", "0"]

    def ready(log: str) -> str | None:
        bound = re.search(r"Uvicorn running on (http://127\.0\.0\.1:\d+)", log)
        return bound.group(1) if bound and answers(f"{bound.group(1)}/health/liveliness") else None

    name = f"litellm {LITELLM_VERSION}"
    with refused_port() as dead:
        (folder / "config.yaml").write_text(_config(lab_url, dead, s3_endpoint))
        with running(command, ready, START_SECONDS, name, cwd=folder, env=env) as server:
            yield server.url


def _post(base: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, str, str]:
    """POST a chat completion; return (HTTP status, body text, x-litellm-call-id)."""
    request = urllib.request.Request(
        f"{base}/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {MASTER_KEY}", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            text = response.read().decode()
            return response.status, text, response.headers.get("x-litellm-call-id", "")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), error.headers.get("x-litellm-call-id", "")


def _send(
    base: str, model: str, words: int, user: str | None, session: str | None, **how: Any
) -> Sent:
    """Send one request the way ``how`` says (``header_user``, ``header_session``, ``stream``)."""
    body: dict[str, Any] = {"model": model, "max_tokens": 8}
    body["messages"] = [{"role": "user", "content": " ".join(["word"] * words)}]
    headers = {"Content-Type": "application/json"}
    if user and how.get("header_user"):
        headers["x-litellm-end-user-id"] = user
    elif user:
        body["user"] = user
    if session and how.get("header_session"):
        headers["x-litellm-session-id"] = session
    elif session:
        body["metadata"] = {"session_id": session}
    if how.get("stream"):
        body["stream"] = True
    status, text, call_id = _post(base, body, headers)
    if status == 200:  # the model's response id: the JSON body's, or every streamed chunk's
        first = text.split("data: ", 1)[1] if how.get("stream") else text
        request_id = json.loads(first.split("\n", 1)[0])["id"]
    else:  # a failure is logged under the call id the proxy returned
        request_id = call_id
    routed = not (status == 429 or "Invalid model name" in text)
    return Sent(request_id, user, session, routed, status)


def _traffic(base: str) -> list[Sent]:
    sent = [
        _send(base, "lab-glm", 5, "alice", "sess-alice"),
        _send(base, "lab-glm", 7, "alice", "sess-alice"),
        _send(base, "lab-glm", 6, "bob", "sess-bob", header_user=True, header_session=True),
        _send(base, "lab-glm", 9, "bob", None, header_user=True, stream=True),
        _send(base, "lab-glm", 300, "carol", "sess-carol"),  # over the pool: stale pages
        _send(base, "lab-glm", 700, "carol", None),  # over the context: the lab's 400
        _send(base, "lab-glm", 4, None, None),  # no end user: the master key's hash only
        _send(base, "no-such-model", 4, "dave", None),  # never routed
    ]
    for _ in range(6):  # a dead group: connection refused, then every deployment cooled down
        sent.append(_send(base, "dead-glm", 4, "dave", "sess-dave"))
        if sent[-1].status == 429:
            break
    return sent


@pytest.fixture(scope="module")
def sent(proxy: str, s3_endpoint: str) -> list[Sent]:
    """Send the traffic; wait (bounded) until the logger has written one object per request."""
    import boto3

    traffic = _traffic(proxy)
    client = boto3.client("s3", endpoint_url=s3_endpoint)
    deadline = time.monotonic() + UPLOAD_SECONDS
    while len(_keys(client)) < len(traffic) and time.monotonic() < deadline:
        time.sleep(0.2)
    return traffic


def _keys(client: Any) -> list[str]:
    pages = client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET)
    return sorted(o["Key"] for page in pages for o in page.get("Contents", []))


def test_the_traffic_had_every_kind_the_test_meant(sent: list[Sent]) -> None:
    statuses = [s.status for s in sent]
    assert statuses[:5] == [200] * 5 and statuses[6] == 200  # plain, session, stream, leak
    assert statuses[5] == 400 and sent[5].routed  # the lab's own 400: it reached the model
    assert statuses[7] == 400 and not sent[7].routed  # unknown model
    assert 500 in statuses[8:] and statuses[-1] == 429  # dead deployments, then cooldown
    assert all(s.request_id for s in sent) and len({s.request_id for s in sent}) == len(sent)


def _scope(
    run_cli: Any, tmp_path: Path, trigger: int
) -> tuple[dict[str, Any], list[dict[str, str]]]:
    out, ids = tmp_path / f"scope-{trigger}.json", tmp_path / f"ids-{trigger}.csv"
    result = run_cli(
        "scope",
        f"s3://{BUCKET}/{PREFIX}/**/*.json",
        "--model",
        "lab-glm-5.3",
        "--since",
        "2000-01-01",
        "--until",
        "2200-01-01",
        "--min-prompt-tokens",
        str(trigger),
        "--json",
        str(out),
        "--ids-csv",
        str(ids),
    )
    assert result.exit_code == 1, result.stdout  # affected requests found
    return json.loads(out.read_text()), list(csv.DictReader(io.StringIO(ids.read_text())))


def test_scope_gives_back_the_requests_end_users_sessions_and_ids(
    run_cli: Any, sent: list[Sent], s3_endpoint: str, tmp_path: Path
) -> None:
    import boto3

    keys = _keys(boto3.client("s3", endpoint_url=s3_endpoint))
    named = re.compile(
        rf"^{PREFIX}/(\d{{4}}-\d\d-\d\d)/time-(\d\d)-(\d\d)-(\d\d)-(\d{{6}})_(.+)\.json$"
    )
    start = {m[6]: f"{m[1]}T{m[2]}:{m[3]}:{m[4]}.{m[5]}Z" for m in map(named.match, keys) if m}
    assert sorted(start) == sorted(s.request_id for s in sent)  # one object per request
    doc, rows = _scope(run_cli, tmp_path, trigger=0)  # every request with a count is "over"
    routed = [s for s in sent if s.routed]
    assert doc["preset"] == "litellm"  # auto-detected
    counts = doc["counts"]
    assert counts["records_read"] == len(sent) and counts["records_skipped"] == 0
    assert counts["non_request_records"] == len(sent) - len(routed)
    assert counts["model_matched"] == counts["in_window"] == len(routed)
    by_id = {row["request_id"]: row for row in rows}
    assert sorted(by_id) == sorted(s.request_id for s in routed)  # ids: every routed request
    for s in routed:
        row = by_id[s.request_id]
        assert row["account_id"] == (s.end_user or ""), s  # the end user, never the key alias
        assert row["session_id"] == (s.session or ""), s  # "" is no session, no trace id
        assert row["timestamp"] == start[s.request_id], s  # startTime to the microsecond
        assert row["status"] == ("success" if s.status == 200 else "failure"), s
    # the trigger is 0: S holds only the requests of unknown length, the failed ones
    failed = [s for s in routed if s.status != 200]
    assert doc["disclosed"]["requests"] == len(failed)
    assert doc["disclosed"]["accounts"] == len({s.end_user for s in failed if s.end_user})
    assert "litellm_proxy_master_key" not in json.dumps(doc) + json.dumps(rows)


def test_scope_finds_the_over_length_request_and_the_failed_ones(
    run_cli: Any, sent: list[Sent], tmp_path: Path
) -> None:
    doc, _ = _scope(run_cli, tmp_path, trigger=256)  # the lab's KV pool
    leaked = sent[4]  # 300 words over a 256-token pool
    failed = [s for s in sent if s.routed and s.status != 200]
    assert doc["affected"]["request_ids"] == [leaked.request_id]
    assert doc["affected"]["accounts"] == [{"account_id": "carol", "requests": 1}]
    assert doc["affected"]["sessions"] == 1
    possibly = doc["possibly_affected"]
    assert sorted(possibly["request_ids"]) == sorted(s.request_id for s in failed)
    assert {a["account_id"]: a["requests"] for a in possibly["accounts"]} == {
        "carol": 1,
        "dave": len(failed) - 1,
    }
    assert possibly["status"] == {"failure": len(failed)}


def test_explain_prints_one_table_for_the_objects_of_one_shape(
    run_cli: Any, sent: list[Sent]
) -> None:
    result = run_cli(
        "scope",
        f"s3://{BUCKET}/{PREFIX}/**/*.json",
        "--explain",
        "--model",
        "lab-glm-5.3",
        # the objects sit in today's date folder: outside the advisory's window, not read
        "--since",
        "2000-01-01",
        "--until",
        "2200-01-01",
    )
    assert result.stdout.count("path used") == 1, result.stdout
    assert f"{len(sent)} files read alike" in result.stdout
    with_user = sum(1 for s in sent if s.routed and s.end_user)  # never-routed: not read
    assert re.search(rf"account_id\s*│\s*end_user\s*│\s*{with_user}\s", result.stdout)
