"""LiteLLM's StandardLoggingPayload as the proxy really writes it: end user before the key hash,
the master key's alias and the admin's user id are no account, "" is no session and trace_id none
at all, never-routed calls are non-requests, float ``startTime`` exact to the microsecond.

``tests/assets/scope/litellm-1.106.12/`` holds the objects litellm[proxy] 1.106.12 wrote through
its ``s3_v2`` logger (litellm/integrations/s3_v2.py; keys from integrations/s3.py
get_s3_object_key) in front of `assess lab serve`, unchanged, captured with the traffic of
tests/scope/test_litellm_proxy.py (which checks the same against the live proxy): see its README.
The generated records below copy one of them and vary the fields LiteLLM fills
(litellm_core_utils/litellm_logging.py get_standard_logging_object_payload; proxy/auth/
user_api_key_auth.py writes ``litellm_proxy_master_key`` as the key of master-key calls).
"""

from __future__ import annotations

import csv
import io
import json
import tempfile
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assess.kernel.errors import InputError
from assess.scope.accumulator import ScopeAccumulator, make_filter
from assess.scope.logs import open_logs
from assess.scope.logs.engine import SAMPLE
from assess.scope.logs.presets import Preset
from assess.scope.logs.timestamps import ns_to_datetime, parse_timestamp
from tests.conftest import ASSETS
from tests.scope.helpers import ndjson

REAL = ASSETS / "scope" / "litellm-1.106.12"
WIDE = ("--since", "2000-01-01", "--until", "2200-01-01", "--model", "lab-glm-5.3")
PLACEHOLDERS = ("litellm_proxy_master_key", "default_user_id")


def _ids(run_cli: Any, tmp_path: Path, *args: str) -> tuple[dict[str, Any], dict[str, Any]]:
    out, ids = tmp_path / "scope.json", tmp_path / "ids.csv"
    result = run_cli("scope", *args, *WIDE, "--json", str(out), "--ids-csv", str(ids))
    assert result.exit_code == 1, result.stdout
    rows = csv.DictReader(io.StringIO(ids.read_text()))
    return json.loads(out.read_text()), {row["request_id"]: row for row in rows}


def test_the_real_objects_read_as_the_traffic_was_sent(run_cli: Any, tmp_path: Path) -> None:
    objects = sorted(REAL.glob("**/*.json"))
    doc, rows = _ids(run_cli, tmp_path, str(REAL / "**" / "*.json"), "--min-prompt-tokens", "0")
    assert doc["preset"] == "litellm"
    assert doc["counts"]["records_read"] == len(objects) == 9
    # the unknown model and the call refused because every deployment was in cooldown
    assert doc["counts"]["non_request_records"] == 2
    assert doc["breakdown"]["non_request_reasons"] == {
        "never routed to a model deployment (api_base empty: unknown model, every deployment "
        "in cooldown)": 2
    }
    got = sorted((r["account_id"], r["session_id"], r["status"]) for r in rows.values())
    assert got == sorted(
        [
            ("alice", "sess-alice", "success"),  # `user` field, metadata.session_id
            ("bob", "sess-bob", "success"),  # x-litellm-end-user-id, x-litellm-session-id
            ("carol", "", "success"),  # over the lab's pool
            ("carol", "", "failure"),  # over its context: the lab's 400, routed
            ("", "", "success"),  # no end user: the master key alias is no account
            ("dave", "", "failure"),  # the dead deployments, before the cooldown
            ("dave", "", "failure"),
        ]
    )
    for key, row in rows.items():  # the key LiteLLM named the object by: its own start time
        (name,) = [p.name for p in objects if p.name.endswith(f"_{key}.json")]
        clock = name.split("_", 1)[0].removeprefix("time-").replace("-", ":", 2)
        assert row["timestamp"].endswith(clock.replace("-", ".") + "Z"), (row, name)


def _template() -> dict[str, Any]:
    (first,) = [p for p in REAL.glob("**/*.json") if "chatcmpl" in p.name][:1]
    record: dict[str, Any] = json.loads(first.read_text())
    return record


users = st.sampled_from([None, "", "alice", "bob"])
records = st.fixed_dictionaries(
    {
        "end_user": users,
        "eu": users,
        "hash": st.sampled_from([None, "", *PLACEHOLDERS, "hash-k1"]),
        "uid": st.sampled_from([None, "default_user_id", "u-7"]),
        "session": st.sampled_from(["", "s-1"]),
        "asked": st.sampled_from([None, "s-2"]),
        "api_base": st.sampled_from(["", "http://127.0.0.1:9/v1"]),
        "micros": st.integers(0, 999_999),
        "tokens": st.sampled_from([0, 5, 900]),
    }
)


def _record(template: dict[str, Any], i: int, v: dict[str, Any]) -> dict[str, Any]:
    meta = dict(template["metadata"])
    meta.update(
        user_api_key_end_user_id=v["eu"], user_api_key_hash=v["hash"], user_api_key_user_id=v["uid"]
    )
    meta["requester_metadata"] = {"session_id": v["asked"]} if v["asked"] else {}
    start = float(f"{1788256800 + i}.{v['micros']:06d}")  # json writes its repr
    return {
        **template,
        **{"id": f"r{i}", "end_user": v["end_user"], "session_id": v["session"]},
        **{"api_base": v["api_base"], "prompt_tokens": v["tokens"], "startTime": start},
        "metadata": meta,
    }


def _account(v: dict[str, Any]) -> str | None:
    for value in (v["end_user"], v["eu"], v["hash"], v["uid"]):
        if value and value not in PLACEHOLDERS:
            return str(value)
    return None


def _read(path: Path, fast: bool) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    since, until = datetime(2000, 1, 1, tzinfo=UTC), datetime(2200, 1, 1, tzinfo=UTC)
    acc = ScopeAccumulator(make_filter(None, ["lab-glm-5.3"], since, until, 0))
    reader = open_logs([str(path)], "litellm", None, want_text=acc.text_mask)
    reader.fast = fast
    for batch in reader.batches():
        acc.add(batch)
    doc = acc.result(reader.preset.id, reader.inputs).model_dump(mode="json")
    return doc, sorted([*acc.affected.rows(), *acc.unknown.rows()], key=lambda r: r["request_id"])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tail=st.lists(records, min_size=1, max_size=40))
def test_accounts_sessions_and_routing_alike_on_both_paths(tail: list[dict[str, Any]]) -> None:
    template = _template()
    head = {"end_user": "alice", "eu": "alice", "hash": "hash-k1", "uid": "u-7", "session": ""}
    head |= {"asked": None, "api_base": "http://127.0.0.1:9/v1", "micros": 5, "tokens": 5}
    variants = [head] * SAMPLE + tail
    lines = [_record(template, i, v) for i, v in enumerate(variants)]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "log.ndjson"
        path.write_bytes(ndjson(lines))
        fast, reference = _read(path, fast=True), _read(path, fast=False)
    assert fast == reference
    doc, rows = fast
    routed = [(i, v) for i, v in enumerate(variants) if v["api_base"]]
    assert doc["counts"]["non_request_records"] == len(variants) - len(routed)
    assert {r["request_id"]: r["account_id"] for r in rows} == {
        f"r{i}": _account(v) for i, v in routed
    }
    assert {r["request_id"]: r["session_id"] for r in rows} == {
        f"r{i}": (v["session"] or v["asked"]) for i, v in routed
    }
    for row in rows:  # the decimal startTime, to the microsecond
        i = int(row["request_id"][1:])
        micros = ns_to_datetime(row["timestamp"]).microsecond
        assert micros == variants[i]["micros"], row


def test_float_epoch_seconds_are_read_as_their_decimal_text() -> None:
    # 1765073124.596853 * 1e9 is 1765073124596852992 in binary floats: a microsecond short
    for text in ("1765073124.596853", "1796609034.7881", "1788256800.25"):
        exact = int(Decimal(text) * 10**9)
        assert parse_timestamp(float(text)) == exact
        assert parse_timestamp(text) == exact
    assert parse_timestamp(1765073124.596853) // 1000 % 10**6 == 596853


def test_no_value_is_for_text_fields_only(tmp_path: Path) -> None:
    path = tmp_path / "preset.yaml"
    path.write_text(
        "id: x\ntitle: x\ndetect: {all_of: [t]}\nfields: {timestamp: [t], model: [m]}\n"
        "no_value: {timestamp: ['0']}\n"
    )
    with pytest.raises(InputError, match="no_value"):
        Preset.from_path(path)


def test_the_scoping_query_reads_the_real_objects_as_the_local_run(tmp_path: Path) -> None:
    import duckdb

    from assess.scope.api import emit_sql, scope_engine_run, scope_run
    from tests.scope.test_sql import assert_same, lines_view

    logs = tmp_path / "logs.ndjson"  # the objects are one line each: as one NDJSON table
    logs.write_text("".join(p.read_text().strip() + "\n" for p in sorted(REAL.glob("**/*.json"))))
    options: dict[str, Any] = {"preset": "litellm", "models": ["lab-glm-5.3"]}
    options |= {"since": "2000-01-01", "until": "2200-01-01", "min_prompt_tokens": 0}
    local = scope_run([str(logs)], **options).result.model_dump(mode="json")
    con = duckdb.connect()
    lines_view(con, logs)
    out = tmp_path / "result.parquet"
    con.execute(f"COPY ({emit_sql('duckdb', **options).sql}) TO '{out}' (FORMAT parquet)")
    engine = scope_engine_run(out, **options).result.model_dump(mode="json")
    assert_same(engine, local)
    # S: the trigger is 0, so only the requests of unknown length could have been read
    assert local["disclosed"]["accounts"] == 2 and local["counts"]["non_request_records"] == 2
    accounts = {a["account_id"] for a in engine["possibly_affected"]["accounts"]}
    assert accounts == {"carol", "dave"}  # never the master key's alias
