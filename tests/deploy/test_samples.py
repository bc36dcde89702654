"""Exact values read from every shipped sample log, and the verdict each one gets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assess.deploy.models import Role
from assess.deploy.serverlogs import load_nodes
from tests.deploy.conftest import DEPLOY_ASSETS, parse_text, sample

EXPECTED: dict[str, dict[str, Any]] = {
    "sglang-aggregated.log": {
        "values": ("sglang", "0.5.22", "aggregated", 399488, 40960),
        "settings": {"kv_canary": "raise", "mem_fraction_static": 0.85, "tp_size": 2},
    },
    "sglang-prefill.log": {
        "values": ("sglang", "0.5.21", "prefill", 681280, 1048576),
        "settings": {
            "transfer_backend": "mooncake", "kv_checksum": False, "kv_canary": None,
            "mooncake_max_transfer_batch_indices": 0, "mem_fraction_static": 0.8,
            "model": "zai-org/GLM-5.3-FP8",
        },
    },
    "sglang-decode.log": {
        "values": ("sglang", "0.5.21", "decode", 2213888, 1048576),
        "settings": {"transfer_backend": "mooncake", "mem_fraction_static": 0.85},
    },
    "sglang-prefill-fixed.log": {
        "values": ("sglang", "0.5.22", "prefill", 2040064, 1048576),
        "settings": {
            "kv_checksum": True, "kv_canary": "raise", "deferred_kv_release": 1,
            "mooncake_max_transfer_batch_indices": 1024,
        },
    },
    "vllm-pass.log": {
        "values": ("vllm", "0.11.0", "prefill", 1239808, 131072),
        "settings": {
            "kv_role": "kv_producer", "transfer_backend": "MooncakeConnector",
            "max_concurrency": 9.46, "gpu_memory_utilization": 0.92,
        },
    },
    "vllm-fail.log": {
        "values": ("vllm", "0.11.0", "aggregated", 102400, 262144),
        "settings": {
            "refused_to_start": True, "kv_cache_needed_gib": 24.0,
            "kv_cache_available_gib": 9.38, "gpu_memory_utilization": 0.85,
        },
    },
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_values(name: str) -> None:
    (node,) = load_nodes([str(sample(name))])
    want = EXPECTED[name]
    log = node.parsed
    got = (log.engine, log.version, log.role, log.pool_tokens, log.context_tokens)
    assert got == want["values"]
    for key, value in want["settings"].items():
        assert log.settings[key] == value, key
    assert log.problem is None
    assert {"pool_tokens", "context_tokens", "version"} <= set(log.evidence)


def test_every_sample_is_covered() -> None:
    assert {p.name for p in sample("x").parent.glob("*.log")} == set(EXPECTED)


def test_sglang_evidence_names_the_scheduler_line() -> None:
    (node,) = load_nodes([str(sample("sglang-prefill.log"))])
    assert node.parsed.evidence["pool_tokens"].startswith("line 45: ")
    assert "max_total_num_tokens=681280" in node.parsed.evidence["pool_tokens"]
    assert node.parsed.evidence["version"] == "line 10: sglang: 0.5.21"


def test_vllm_v0_blocks_times_default_block_size_and_refusal() -> None:
    (node,) = load_nodes([str(DEPLOY_ASSETS / "vllm-v0-refusal.log")])
    log = node.parsed
    assert (log.version, log.role, log.pool_tokens, log.context_tokens) == (
        "0.6.4.post1", "aggregated", 1478 * 16, 29000,
    )  # fmt: skip
    assert log.settings["gpu_blocks"] == 1478
    assert log.settings["refused_to_start"] is True
    assert log.settings["max_concurrency"] == 0.82
    assert any("assumed vLLM's default 16" in n for n in log.notes)


def test_blocks_with_a_non_default_block_size_fall_back_to_concurrency() -> None:
    # FlashMLA forces 64-token blocks; a log cut before that line shows only the blocks
    text = (
        "INFO 04-25 07:45:57 [core.py:61] Initializing a V1 LLM engine (v0.8.3) with config: "
        "model='hf_models/DeepSeek-V2-Lite', max_seq_len=8192, download_dir=None\n"
        "INFO 04-25 07:46:30 kv_cache_utils.py:395] # GPU blocks: 1381\n"
        "INFO 04-25 07:46:30 kv_cache_utils.py:398] Maximum concurrency for 8192 tokens per "
        "request: 10.79x\n"
    )
    log = parse_text(text)
    assert log.pool_tokens == round(10.79 * 8192)
    assert log.settings["gpu_blocks"] == 1381 and "block_size" not in log.settings
    assert any("derived from 'Maximum concurrency'" in n for n in log.notes)


def test_node_paths_are_normalised(tmp_path: Path) -> None:
    log = tmp_path / "p.log"
    log.write_text(sample("vllm-pass.log").read_text())
    nodes = load_nodes([str(log)], [(Role.DECODE, f"{tmp_path}/./p.log")])
    assert len(nodes) == 1 and nodes[0].role_override is Role.DECODE
