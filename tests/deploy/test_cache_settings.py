"""The cache-isolation settings deploy-check reads from each engine's startup lines.

Values are asserted on real excerpts (tests/assets/deploy/real, each cited in its header and in
the README table); the reader of the Python reprs is checked on the shapes those lines take.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from assess.cli import app
from assess.deploy.serverlogs import load_nodes
from assess.deploy.serverlogs.pyrepr import flatten, read_call, read_dict, read_pairs
from tests.deploy.conftest import DEPLOY_ASSETS, parse_text, sample

REAL = DEPLOY_ASSETS / "real"


def _node(name: str):  # type: ignore[no-untyped-def]
    (node,) = load_nodes([str(REAL / name)])
    return node.parsed


def test_sglang_server_args_line_read_whole() -> None:
    log = _node("sglang-docs-offline-engine-server-args.log")
    assert log.cache_settings_source == "server_args"
    assert log.cache_settings == {
        "prefix_cache": True,
        "schedule_policy": "fcfs",
        "disaggregation_mode": "null",
        "kv_transfer_backend": None,  # printed 'mooncake', but the node is not disaggregated
        "hierarchical_cache": False,
        "external_kv_tier": None,
        "cache_report": False,
        "context_length": None,
        "max_total_tokens": 20480,
        "mem_fraction_static": 0.835,
    }
    # a release before kv_canary (#26809) and the transfer checksum (#39500): not shown, not off
    assert log.cache_settings_not_shown == ["kv_canary", "kv_transfer_checksum"]
    assert "disable_radix_cache" in log.evidence["cache_settings.prefix_cache"]


def test_sglang_storage_tier_from_its_own_line() -> None:
    log = _node("sglang-21395-hicache-mooncake.log")
    assert log.cache_settings == {"hierarchical_cache": True, "external_kv_tier": "mooncake"}
    assert "prefix_cache" in log.cache_settings_not_shown
    assert log.evidence["cache_settings.external_kv_tier"].startswith("line 9: ")


def test_vllm_engine_line_missing_comma_and_wrap() -> None:
    # "... num_scheduler_steps=1, c\nhunked_prefill_enabled=True multi_step_stream_outputs=True,
    # enable_prefix_caching=True, ..." as pasted in vllm-project/vllm#9532
    log = _node("vllm-9532-v0-engine-config-prefix.log")
    assert log.cache_settings == {"prefix_cache": True}
    assert log.cache_settings_source == "engine config"
    assert log.version is None  # vLLM's placeholder for a build without version metadata
    assert any("999.999.999" in note for note in log.notes)


def test_vllm_non_default_args_defaults_only_where_stable() -> None:
    log = _node("vllm-pr29393-non-default-args.log")
    # the transfer config and scheduling policy have one default in every release ...
    assert log.cache_settings == {
        "schedule_policy": "fcfs",
        "disaggregation_mode": None,
        "kv_transfer_backend": None,
        "external_kv_tier": None,
    }
    # ... the prefix cache's depends on version and model (this very PR): not shown
    assert "prefix_cache" in log.cache_settings_not_shown
    assert "default" in log.evidence["cache_settings.kv_transfer_backend"]


def test_vllm_transfer_config_on_the_command_line() -> None:
    log = _node("vllm-21348-kv-both.md")
    assert log.cache_settings == {
        "disaggregation_mode": "kv_both",
        "kv_transfer_backend": "LMCacheConnectorV1",
        "external_kv_tier": "LMCacheConnectorV1",
    }


def test_sglang_server_args_cut_short() -> None:
    text = (REAL / "sglang-docs-offline-engine-server-args.log").read_text()
    cut = text[: text.index("disable_radix_cache=False")]
    log = parse_text(cut)
    assert "prefix_cache" not in log.cache_settings  # after the cut: not shown, not guessed
    assert log.cache_settings["schedule_policy"] == "fcfs"
    assert any("cut short" in note for note in log.notes)


def test_kv_lines_pasted_before_the_banner_still_count() -> None:
    lines = sample("vllm-pass.log").read_text().splitlines()
    kv = [line for line in lines if "GPU KV cache size" in line or "Maximum concurrency" in line]
    rest = [line for line in lines if line not in kv]
    original, reordered = parse_text("\n".join(lines)), parse_text("\n".join(kv + rest))
    assert reordered.pool_tokens == original.pool_tokens == 1_239_808
    assert reordered.context_tokens == original.context_tokens == 131_072


def test_kv_lines_pasted_before_server_args_still_count() -> None:
    lines = sample("sglang-prefill.log").read_text().splitlines()
    kv = [line for line in lines if "max_total_num_tokens=" in line]
    rest = [line for line in lines if line not in kv]
    original, reordered = parse_text("\n".join(lines)), parse_text("\n".join(kv + rest))
    assert reordered.pool_tokens == original.pool_tokens
    assert reordered.pool_tokens is not None
    assert reordered.cache_settings == original.cache_settings


@pytest.mark.parametrize(
    ("text", "values", "complete"),
    [
        ("a=1, b='x, y', c=None)", {"a": 1, "b": "x, y", "c": None}, True),
        ("f=<ConfigFormat.AUTO: 'auto'>, d=torch.float16)", {"f": "auto", "d": "torch.float16"},
         True),
        ("k=KVTransferConfig(kv_role='kv_producer'), n=2)", {"k.kv_role": "kv_producer", "n": 2},
         True),
        ("p=PosixPath('/m'), l=[1, 2])", {"p": "PosixPath('/m')", "l": "1, 2"}, True),
        ("a=1, b='cut", {"a": 1}, False),
        ("s='it\\'s', t=True)", {"s": "it's", "t": True}, True),
    ],
)  # fmt: skip
def test_read_call(text: str, values: dict[str, object], complete: bool) -> None:
    record = read_call(text)
    assert flatten(record.values) == values
    assert record.complete is complete


def test_read_pairs_tolerates_a_missing_comma() -> None:
    record = read_pairs("x=1, c=True m=True, e=False)")
    assert record.values == {"x": 1, "c": True, "m": True, "e": False}


def test_read_dict_whole_and_cut() -> None:
    whole = read_dict("{'a': 1, 'kv_transfer_config': KVTransferConfig(kv_role='kv_both')}")
    assert whole.complete and flatten(whole.values) == {
        "a": 1,
        "kv_transfer_config.kv_role": "kv_both",
    }
    cut = read_dict("{'a': 1, 'enable_prefix_caching': True, 'max_mo")
    assert not cut.complete and cut.values == {"a": 1, "enable_prefix_caching": True}


def test_cli_shows_settings_and_json_keys() -> None:
    path = str(REAL / "sglang-docs-offline-engine-server-args.log")
    shown = CliRunner().invoke(app, ["deploy-check", path])
    assert "settings (server_args): prefix_cache on" in " ".join(shown.output.split())
    assert "not shown in this log: kv_canary, kv_transfer_checksum" in " ".join(
        shown.output.split()
    )
    out = CliRunner().invoke(app, ["deploy-check", path, "--json", "-"])
    (node,) = json.loads(out.output)["nodes"]
    assert node["cache_settings"]["prefix_cache"] is True
    assert node["cache_settings_not_shown"] == ["kv_canary", "kv_transfer_checksum"]
    assert node["cache_settings_source"] == "server_args"
