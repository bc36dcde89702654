"""`assess probe` against the lab over real HTTP: it finds the leak, and only where there is one."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

BOUNDARY = ("--long-prompt-tokens", "400", "--yes")
CONTRACT_KEYS = {
    "schema_version",
    "kind",
    "run_id",
    "endpoint",
    "model",
    "started_at",
    "finished_at",
    "complete",
    "leak_found",
    "mode",
    "requests",
    "hits",
    "errors",
    "stats",
}


def _load(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8")))


def test_boundary_mode_finds_the_leak_on_the_faulty_lab(
    probe: Callable[..., Any], leaky_lab: str, tmp_path: Path
) -> None:
    out, junit = tmp_path / "p.json", tmp_path / "p.xml"
    result = probe(leaky_lab, *BOUNDARY, "--json", str(out), "--junit", str(junit))
    assert result.exit_code == 1, result.output
    assert "boundary mode: this run sends 18 requests" in result.stderr
    assert "LEAK FOUND" in result.stdout
    doc = _load(out)
    assert CONTRACT_KEYS <= doc.keys()
    assert doc["kind"] == "assess.probe" and doc["schema_version"] == 1
    assert doc["leak_found"] is True and doc["complete"] is True and doc["mode"] == "boundary"
    markers = {m["id"]: m for m in doc["markers"]}
    assert doc["hits"]
    for hit in doc["hits"]:
        marker = markers[hit["marker_id"]]
        assert hit["text"] == marker["value"] and hit["match"] == "full"
        assert hit["planted_by"] == "A" and hit["account"] == "B"
        assert hit["planted_in"] == marker["planted_in"] != hit["request_id"]
    assert set(doc["stats"]) >= {"probes", "hits", "leak_rate_upper_95", "method"}
    assert doc["stats"]["hits"] == 12 and doc["stats"]["probes"] == 17
    streamed_hits = {h["request_id"] for h in doc["hits"]} & {
        r["id"] for r in doc["requests"] if r["stream"]
    }
    assert streamed_hits  # the streaming path is scanned too (the lab splits markers over deltas)
    suite = ET.parse(junit).getroot()
    # one case per request (18, then the echo control's) and the isolation verdict
    assert suite.tag == "testsuite" and suite.get("tests") == "20"
    assert suite.get("failures") == "13"  # 12 probes + the isolation verdict
    # JUnit schema: timestamp without zone or fraction (UTC), time in seconds
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", suite.get("timestamp") or "")
    assert doc["started_at"].startswith(suite.get("timestamp") or "-")
    assert float(suite.get("time") or "x") >= 0


def test_boundary_mode_finds_nothing_on_the_fixed_lab(
    probe: Callable[..., Any], fixed_lab: str, tmp_path: Path
) -> None:
    out, junit = tmp_path / "p.json", tmp_path / "p.xml"
    result = probe(fixed_lab, *BOUNDARY, "--json", str(out), "--junit", str(junit))
    assert result.exit_code == 0, result.output
    doc = _load(out)
    assert doc["leak_found"] is False and doc["complete"] is True and doc["hits"] == []
    stats = doc["stats"]
    assert stats["probes"] == 17 and stats["hits"] == 0 and stats["rejected"] == 12
    assert stats["leak_rate_upper_95"] == round(1 - 0.05 ** (1 / 17), 6)
    assert stats["rule_of_three"] == round(3 / 17, 6)
    assert {r["status"] for r in doc["requests"] if r["role"] == "probe"} == {400}
    assert "below 16.2%" in result.stdout and "not proof of isolation" in result.stdout
    suite = ET.parse(junit).getroot()
    assert suite.get("failures") == "0" and suite.get("errors") == "0"


def test_standard_mode_misses_the_boundary_bug(probe: Callable[..., Any], leaky_lab: str) -> None:
    # short probes never reach the over-length path: a clean result is only a bound
    result = probe(leaky_lab, "--rounds", "2", "--probes-per-round", "2")
    assert result.exit_code == 0, result.output
    assert "No leak found in 7 probes" in result.stdout


def test_streaming_only_run_still_finds_the_leak(
    probe: Callable[..., Any], leaky_lab: str, tmp_path: Path
) -> None:
    out = tmp_path / "p.json"
    result = probe(leaky_lab, *BOUNDARY, "--stream", "on", "--rounds", "1", "--json", str(out))
    assert result.exit_code == 1, result.output
    doc = _load(out)
    assert all(r["stream"] for r in doc["requests"])
    assert len(doc["hits"]) == 4 and {h["location"] for h in doc["hits"]} == {"content"}


def test_boundary_mode_without_yes_prints_the_estimate_and_exits_2(
    probe: Callable[..., Any], leaky_lab: str
) -> None:
    result = probe(leaky_lab, "--long-prompt-tokens", "400", "--input-price", "2.5")
    assert result.exit_code == 2
    assert "about 4,944 input tokens" in result.stderr and "at most $0.0124" in result.stderr
    assert "needs --yes" in result.stderr


def test_one_key_uses_a_fresh_client_as_account_b(
    probe: Callable[..., Any], leaky_lab: str, tmp_path: Path
) -> None:
    out = tmp_path / "p.json"
    result = probe(leaky_lab, *BOUNDARY, "--rounds", "1", "--json", str(out), two_accounts=False)
    assert result.exit_code == 1
    accounts = _load(out)["accounts"]
    assert accounts[1]["key_env"] == "TEST_KEY_A" and "fresh client" in accounts[1]["note"]
