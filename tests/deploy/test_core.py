"""The findings logic on hand-built nodes: thresholds, severities, verdicts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assess.advisories.catalogue import load_advisories
from assess.deploy.check import check_deployment
from assess.deploy.models import NodeLog, ParsedServerLog, Role, Verdict
from assess.deploy.rules import uncovered
from assess.deploy.serverlogs import PARSERS
from assess.deploy.serverlogs.isolation import load_isolation_settings
from assess.kernel.common import Severity
from assess.kernel.errors import InputError


def node(name: str, **fields: Any) -> NodeLog:
    base: dict[str, Any] = {"engine": "sglang", "version": "0.5.22", "role": Role.AGGREGATED}
    base.update(fields)
    return NodeLog(name=name, source=f"{name}.log", parsed=ParsedServerLog(**base))


def check(*nodes: NodeLog, **kwargs: Any):  # type: ignore[no-untyped-def]
    return check_deployment(
        list(nodes), advisories=load_advisories(), isolation=load_isolation_settings(), **kwargs
    )


def ids(result: Any) -> set[str]:
    return {f.id for f in result.findings}


def test_uncovered_share_is_the_articles_35_percent() -> None:
    assert uncovered(681280, 1048576) == "35.0%"
    assert uncovered(0, 10) == "100.0%"


def test_pool_smaller_than_context_is_critical_on_prefill_and_high_elsewhere() -> None:
    pre = node("p", role=Role.PREFILL, pool_tokens=681280, context_tokens=1048576)
    dec = node("d", role=Role.DECODE, pool_tokens=500000, context_tokens=1048576)
    result = check(pre, dec)
    by_node = {f.node: f for f in result.findings if f.id == "pool-smaller-than-context"}
    assert by_node["p"].severity is Severity.CRITICAL
    assert by_node["d"].severity is Severity.HIGH
    assert "35.0% of the context window (367,296 of 1,048,576 tokens)" in by_node["p"].detail
    assert result.verdict is Verdict.FLAG and result.failed


def test_equal_pool_and_context_pass() -> None:
    result = check(node("a", pool_tokens=4096, context_tokens=4096))
    assert result.verdict is Verdict.PASS and not result.failed
    assert result.nodes[0].verdict is Verdict.PASS


def test_advertised_context_above_the_pool() -> None:
    result = check(node("a", pool_tokens=900000, context_tokens=131072), advertised_context=1048576)
    (f,) = [f for f in result.findings if f.id == "pool-smaller-than-advertised-context"]
    assert f.severity is Severity.HIGH and "14.2%" in f.detail
    assert result.advertised_context == 1048576


def test_advertised_equal_to_context_is_not_reported_twice() -> None:
    result = check(node("a", pool_tokens=1000, context_tokens=2000), advertised_context=2000)
    assert "pool-smaller-than-advertised-context" not in ids(result)


def test_decode_pool_must_hold_what_prefill_accepts() -> None:
    pre = node("p", role=Role.PREFILL, pool_tokens=3_000_000, context_tokens=1048576)
    dec = node("d", role=Role.DECODE, pool_tokens=600000, context_tokens=524288)
    (f,) = [f for f in check(pre, dec).findings if f.id == "pool-smaller-than-deployment-context"]
    assert f.node == "d" and f.severity is Severity.HIGH


def test_affected_version_disaggregated_is_high_and_critical_with_a_short_pool() -> None:
    ok = node("p", role=Role.PREFILL, version="0.5.21", pool_tokens=2, context_tokens=1)
    (f,) = [f for f in check(ok).findings if f.id == "engine-version-affected"]
    assert f.severity is Severity.HIGH and "glm-5.3-kv-leak" in f.rests_on
    short = node("p", role=Role.PREFILL, version="0.5.21", pool_tokens=1, context_tokens=2)
    (f,) = [f for f in check(short).findings if f.id == "engine-version-affected"]
    assert f.severity is Severity.CRITICAL


def test_affected_version_aggregated_is_low() -> None:
    agg = node("a", version="0.5.10", pool_tokens=2, context_tokens=1)
    (f,) = [f for f in check(agg).findings if f.id == "engine-version-affected"]
    assert f.severity is Severity.LOW


def test_fixed_version_and_vllm_are_not_named() -> None:
    assert "engine-version-affected" not in ids(check(node("a", pool_tokens=2, context_tokens=1)))
    vllm = node("v", engine="vllm", version="0.5.1", pool_tokens=2, context_tokens=1)
    assert "engine-version-affected" not in ids(check(vllm))


@pytest.mark.parametrize("version", [None, "not-a-version"])
def test_unknown_version_is_info_only(version: str | None) -> None:
    result = check(node("a", version=version, pool_tokens=2, context_tokens=1))
    (f,) = [f for f in result.findings if f.id == "engine-version-unknown"]
    assert f.severity is Severity.INFO and result.verdict is Verdict.PASS


def test_isolation_off_on_a_supporting_version_only() -> None:
    on_old = node(
        "old", role=Role.PREFILL, version="0.5.16", pool_tokens=2, context_tokens=1,
        settings={"mooncake_max_transfer_batch_indices": 0},
    )  # fmt: skip
    assert "isolation-setting-off" not in ids(check(on_old))
    off = node(
        "new", role=Role.DECODE, version="0.5.22", pool_tokens=2, context_tokens=1,
        settings={"kv_checksum": False, "kv_canary": "raise", "deferred_kv_release": "0"},
    )  # fmt: skip
    titles = [f.title for f in check(off).findings if f.id == "isolation-setting-off"]
    assert len(titles) == 2 and any("checksum" in t for t in titles)
    assert all(
        f.severity is Severity.MEDIUM
        for f in check(off).findings
        if f.id == "isolation-setting-off"
    )


def test_printed_setting_proves_support_even_without_a_version() -> None:
    n = node("p", role=Role.PREFILL, version=None, pool_tokens=2, context_tokens=1,
             settings={"kv_checksum": False})  # fmt: skip
    assert "isolation-setting-off" in ids(check(n))


def test_nodes_that_disagree() -> None:
    a = node("a", role=Role.PREFILL, version="0.5.22", pool_tokens=9, context_tokens=8)
    b = node("b", role=Role.DECODE, version="0.5.21", pool_tokens=9, context_tokens=4)
    found = {f.id: f for f in check(a, b).findings}
    assert found["nodes-disagree-version"].node is None
    assert found["nodes-disagree-version"].rests_on == ["a", "b"]
    assert found["nodes-disagree-context"].severity is Severity.MEDIUM


def test_missing_pool_is_inconclusive_and_fails() -> None:
    result = check(node("a", context_tokens=4096, hints={"pool_tokens": "'max_total_num_tokens='"}))
    (report,) = result.nodes
    assert report.verdict is Verdict.INCONCLUSIVE and report.missing == ["pool_tokens"]
    assert "no KV pool size found: look for 'max_total_num_tokens='" in report.reason
    assert result.verdict is Verdict.INCONCLUSIVE and result.failed


def test_a_definite_problem_outranks_an_inconclusive_node() -> None:
    bad = node("bad", pool_tokens=1, context_tokens=2)
    empty = node("empty", engine="unknown", version=None, role=None, problem="the file is empty")
    result = check(bad, empty)
    assert result.verdict is Verdict.FLAG
    assert [r.verdict for r in result.nodes] == [Verdict.FLAG, Verdict.INCONCLUSIVE]
    assert result.nodes[1].reason == "the file is empty"
    assert result.nodes[1].role is Role.UNKNOWN and result.nodes[1].role_from == "default"


def test_fail_on_moves_the_verdict() -> None:
    n = node("a", pool_tokens=1, context_tokens=2)  # high
    assert check(n, fail_on=Severity.CRITICAL).verdict is Verdict.PASS
    assert check(n, fail_on=Severity.HIGH).verdict is Verdict.FLAG


def test_role_override_wins() -> None:
    n = node("a", role=Role.AGGREGATED, pool_tokens=1, context_tokens=2)
    result = check(n.model_copy(update={"role_override": Role.PREFILL}))
    assert result.nodes[0].role is Role.PREFILL and result.nodes[0].role_from == "--node"
    assert result.findings[0].severity is Severity.CRITICAL


def test_shipped_isolation_catalogue_and_a_broken_one(tmp_path: Path) -> None:
    ids_ = [s.id for s in load_isolation_settings()]
    assert ids_ == [
        "kv_checksum", "kv_canary", "deferred_kv_release", "mooncake_max_transfer_batch_indices",
    ]  # fmt: skip
    bad = tmp_path / "iso.yaml"
    bad.write_text("settings:\n  - id: x\n    engine: tgi\n")
    with pytest.raises(InputError, match=r"iso\.yaml:3: settings\.0\.engine"):
        load_isolation_settings(bad)


def test_parsers_come_from_the_registry() -> None:
    assert sorted(PARSERS) == ["sglang", "vllm"]
    assert all(name == parser.engine for name, parser in PARSERS.items())
