"""The advisory catalogue: every shipped file loads, cites its sources, and keeps today's shape."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assess.advisories.catalogue import load_advisories
from assess.advisories.facts import EngineScope
from assess.advisories.models import Advisory
from assess.kernel.errors import InputError
from tests.conftest import REPO

SHIPPED = sorted((REPO / "advisories").glob("*.yaml"))
KINDS = {"postmortem", "cve", "ghsa", "pr", "issue", "paper", "docs", "release"}


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_file_loads_with_class_sources_and_dates(path: Path) -> None:
    adv = Advisory.from_path(path)
    assert adv.id == path.stem
    assert adv.behaviour is not None
    assert adv.sources, "each advisory cites its primary sources"
    assert {s.kind for s in adv.sources} <= KINDS
    assert all(s.url.startswith("https://") for s in adv.sources)
    assert adv.dates.disclosed or adv.dates.fixed, "at least one date, from a source"
    for engine in adv.engines:
        assert engine.affected  # derived from introduced/fixed_version when not written


def test_the_catalogue_holds_each_advisory_the_issue_names() -> None:
    catalogue = load_advisories()
    assert set(catalogue) == {p.stem for p in SHIPPED}
    by_class = {a.id: a.behaviour for a in catalogue.values()}
    assert by_class["vllm-prefix-cache-timing"] == "prefix-cache-sharing"
    assert by_class["sglang-pd-kv-transfer-race"] == "transfer-race"
    assert by_class["chatgpt-redis-py-2023"] == "connection-reuse"
    assert by_class["glm-5.3-kv-leak"] == "stale-kv-read"
    vllm = catalogue["vllm-prefix-cache-timing"].engines_named("vllm")
    assert [(e.affected, e.fixed_version) for e in vllm] == [(">=0,<0.9.0", "0.9.0")]
    salt = catalogue["sglang-cache-salt-ignored"].engines_named("sglang")
    assert [(e.fixed_version, e.fixed_commit) for e in salt] == [
        ("0.5.11", "c396e4924b3e6eda16869cbdefc6fcc9a457798a")
    ]
    redis = catalogue["chatgpt-redis-py-2023"].engines_named("redis-py")
    assert [e.affected for e in redis] == [">=4.2.0,<4.4.4", ">=4.5.0,<4.5.4"]


def test_todays_file_shape_still_loads(tmp_path: Path) -> None:
    """The first advisory file (one `engine`, `published`, `fixed_on`) as it was written."""
    adv = Advisory.from_path(REPO / "tests" / "assets" / "advisories" / "glm-5.3-kv-leak.v1.yaml")
    assert adv.engine is not None and adv.engines == [adv.engine]
    assert adv.dates.disclosed == adv.published == dt.date(2026, 10, 26)
    assert adv.dates.fixed == adv.fixed_on == dt.date(2026, 9, 9)
    assert adv.has_scope and adv.behaviour is None and adv.sources == []


def test_an_unknown_key_names_the_file_line_and_field() -> None:
    text = (REPO / "advisories" / "vllm-prefix-cache-timing.yaml").read_text()
    text = text.replace("behaviour: ", "severe: 1\nbehaviour: ")
    with pytest.raises(InputError, match=r"x\.yaml:\d+: severe: Extra inputs are not permitted"):
        Advisory.from_text(text, "x.yaml")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": "vllm"}, "give affected, or introduced and/or fixed_version"),
        ({"name": "vllm", "affected": "<0.9.1", "fixed_version": "0.9.0"}, "is inside"),
        ({"name": "vllm", "affected": "<0.9.0", "introduced": "1.0"}, "is outside"),
        ({"name": "vllm", "fixed_version": "0.9.0", "uncertain": "not a range"}, "range"),
    ],
)
def test_an_engine_range_that_contradicts_itself_is_refused(
    fields: dict[str, str], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        EngineScope.model_validate(fields)


def test_a_range_the_sources_do_not_settle_is_cannot_tell() -> None:
    scope = EngineScope(name="sglang", introduced="0.5.18", uncertain="<0.5.18")
    assert scope.affected == ">=0.5.18"
    assert [scope.verdict(v) for v in ("0.5.17", "0.5.18", "0.5.30")] == [
        "cannot-tell",
        "affected",
        "affected",
    ]
    fixed = EngineScope(name="vllm", introduced="0", fixed_version="0.9.0")
    assert [fixed.verdict(v) for v in ("0.8.5.post1", "0.9.0rc1", "0.9.0")] == [
        "affected",
        "affected",  # a release candidate of the fix is not the fix
        "not-affected",
    ]


def test_list_json_is_versioned_and_names_class_engines_and_scope(
    run_cli: Callable[..., Any],
) -> None:
    result = run_cli("advisories", "list", "--json")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert (doc["schema_version"], doc["kind"]) == (1, "assess.advisories")
    rows = {a["id"]: a for a in doc["advisories"]}
    assert set(rows) == {p.stem for p in SHIPPED}
    glm = rows["glm-5.3-kv-leak"]
    assert (glm["title"], glm["platform"]) == (
        "GLM-5.3 on Workers AI returned other tenants' prompt fragments (SGLang KV cache leak)",
        "Cloudflare Workers AI",
    )  # the keys of version 1, unchanged
    assert glm["has_scope"] is True and rows["vllm-prefix-cache-timing"]["has_scope"] is False
    assert rows["vllm-prefix-cache-timing"]["engines"] == [
        {
            "name": "vllm",
            "affected": ">=0,<0.9.0",
            "fixed_version": "0.9.0",
            "uncertain": "",
            "deployment_modes": [],
        }
    ]
    assert rows["vllm-prefix-cache-timing"]["disclosed"] == "2025-05-29"
    assert (
        "https://github.com/sgl-project/sglang/pull/23300"
        in (rows["sglang-cache-salt-ignored"]["sources"])
    )


def test_list_names_the_deployment_mode_an_engine_range_needs(
    run_cli: Callable[..., Any],
) -> None:
    """The PD race touches disaggregated SGLang only: the list says so, as show does (acc41 m2);
    a range without modes (every mode) adds nothing."""
    rows = {
        a["id"]: a for a in json.loads(run_cli("advisories", "list", "--json").stdout)["advisories"]
    }
    assert [e["deployment_modes"] for e in rows["sglang-pd-kv-transfer-race"]["engines"]] == [
        ["disaggregated"]
    ]
    out = " ".join(run_cli("advisories", "list").stdout.split())
    assert "sglang >=0 (disaggregated)" in out and "sglang <0.5.22 (disaggregated)" in out
    assert "sglang <0.5.11 (" not in out and "vllm >=0,<0.9.0 (" not in out


def test_show_prints_sources_settings_and_what_is_unconfirmed(
    run_cli: Callable[..., Any],
) -> None:
    out = run_cli("advisories", "show", "sglang-pd-kv-transfer-race").stdout
    assert "class" in out and "transfer-race" in out
    assert "scope data" in out and "none" in out
    assert "disaggregation_enable_kv_checksum=False when disaggregation_mode in" in out
    assert "https://github.com/sgl-project/sglang/pull/39500" in out
    assert "unconfirmed" in out and "PR #24526" in out
    shown = json.loads(run_cli("advisories", "show", "vllm-prefix-cache-timing", "--json").stdout)
    assert (shown["schema_version"], shown["kind"]) == (1, "assess.advisory")
    assert shown["sources"][0]["kind"] == "ghsa"
    assert shown["settings"][0]["setting"] == "enable_prefix_caching"
