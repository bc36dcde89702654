"""The notification pack adds up to the scope JSON of the same run (property), and the CLI
writes it."""

from __future__ import annotations

import csv
import io
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assess.scope.api import scope_run
from assess.scope.notify import NO_ACCOUNT, notification_pack

requests = st.fixed_dictionaries(
    {
        "model": st.sampled_from(["glm-5.3", "@cf/zai-org/glm-5.3", "glm-5.2"]),
        "prompt_tokens": st.one_of(
            st.none(), st.sampled_from([5, 681_280, 681_281]), st.integers(1, 2_000_000)
        ),
        "output_tokens": st.one_of(st.none(), st.integers(0, 10_000)),
        "account_id": st.one_of(st.none(), st.sampled_from(["a", "b", "c"])),
        "provider": st.one_of(st.none(), st.sampled_from(["workers-ai", "openai", "openrouter"])),
        "cache_hit": st.sampled_from([None, True, False]),
        "status": st.sampled_from([200, 429, 500]),
        "day": st.integers(20, 30),
    }
)


def _pack(records: list[dict[str, Any]]) -> tuple[Any, dict[str, str]]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "log.ndjson"
        lines = []
        for i, r in enumerate(records):
            day = r.pop("day")
            row = {"timestamp": f"2026-08-{day:02d}T00:00:00Z", "request_id": f"r{i}", **r}
            lines.append(json.dumps({k: v for k, v in row.items() if v is not None}))
        path.write_text("\n".join(lines) + "\n")
        run = scope_run([path])
        files = notification_pack(
            run.result, run.affected_rows(), run.accumulator.exposure.source_table()
        )
        return run.result, files


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=st.lists(requests, min_size=1, max_size=40))
def test_the_pack_adds_up_to_the_scope_json(records: list[dict[str, Any]]) -> None:
    result, files = _pack(records)
    accounts = list(csv.DictReader(io.StringIO(files["accounts.csv"])))
    total = {k: sum(int(a[k]) for a in accounts) for k in list(accounts[0])[4:]} if accounts else {}
    d = result.disclosed
    assert total.get("affected", 0) == result.affected.requests
    assert total.get("possibly_affected", 0) == result.possibly_affected.requests
    assert total.get("disclosed", 0) == d.requests
    assert total.get("disclosed_prompt_tokens", 0) == d.prompt_tokens_total
    assert total.get("disclosed_output_tokens", 0) == d.output_tokens_total
    rows = list(csv.DictReader(io.StringIO(files["requests.csv"])))
    assert len(rows) == result.affected.requests + result.possibly_affected.requests + d.requests
    unattributed = [a for a in accounts if a["account_id"] == NO_ACCOUNT]
    assert sum(int(a["disclosed"]) for a in unattributed) == d.unattributed
    pack = json.loads(files["pack.json"])
    assert pack["method"]["verdicts"] == result.breakdown.by_verdict


def test_the_cli_writes_the_pack(tmp_path: Path, run_cli: Any) -> None:
    log = tmp_path / "log.ndjson"
    rows = [
        {"timestamp": "2026-09-01T00:00:00Z", "model": "@cf/zai-org/glm-5.3", "prompt_tokens": n}
        | {"request_id": f"r{n}", "account_id": "acct-a" if n > 10 else "acct-b"}
        for n in (5, 700_000)
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    pack = tmp_path / "pack"
    result = run_cli("scope", str(log), "--notification-pack", str(pack))
    assert result.exit_code == 1, result.output
    assert sorted(p.name for p in pack.iterdir()) == [
        "accounts.csv",
        "method.md",
        "pack.json",
        "requests.csv",
    ]
    accounts = {
        a["account_id"]: a
        for a in csv.DictReader(io.StringIO(pack.joinpath("accounts.csv").read_text()))
    }
    assert accounts["acct-a"]["role"] == "affected" and accounts["acct-a"]["affected"] == "1"
    assert accounts["acct-b"]["role"] == "at risk" and accounts["acct-b"]["disclosed"] == "1"
    method = pack.joinpath("method.md").read_text()
    assert "- **Advisory**: glm-5.3-kv-leak, published 2026-10-26" in method
