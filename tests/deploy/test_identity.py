"""What a startup log is about: the models it names and its time span (evidence binding)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from assess.deploy.models import LogPeriod
from assess.deploy.serverlogs.identity import union_period
from tests.deploy.conftest import DEPLOY_ASSETS, parse_text, sample


def test_sglang_log_names_its_model_and_is_dated() -> None:
    parsed = parse_text(sample("sglang-prefill.log").read_text())
    assert parsed.models == ["zai-org/GLM-5.3-FP8"]
    assert parsed.period == LogPeriod(
        start="2026-08-26T09:14:02", end="2026-08-26T09:14:46", dated=True
    )


def test_vllm_log_names_its_model_but_prints_no_year() -> None:
    parsed = parse_text(sample("vllm-pass.log").read_text())
    assert parsed.models == ["meta-llama/Llama-3.1-70B-Instruct"]
    assert parsed.period == LogPeriod(start="10-14 11:02:31", end="10-14 11:05:19", dated=False)


def test_real_vllm_engine_line_gives_the_model_path() -> None:
    # vllm-project/vllm#15960 (tests/assets/deploy/real/README.md): no served name printed
    parsed = parse_text((DEPLOY_ASSETS / "real" / "vllm-15960-v1-engine-line.log").read_text())
    assert parsed.models == ["/disc/data1/deepseek/DeepSeek-V2-Lite-Chat/"]
    assert parsed.period is not None and parsed.period.start == "04-07 06:05:43"


def test_vllm_served_name_comes_first_and_the_speculative_model_is_not_taken() -> None:
    # the engine line as vLLM 0.10.2 prints it with an EAGLE-3 draft model (a paste in a public
    # vllm-project issue: "... with config: model='/home/ma-user/work/Qwen/Qwen3-8B/',
    # speculative_config=SpeculativeConfig(method='eagle3', model='.../qwen3_8b_eagle3/', ...),
    # ..., served_model_name=Qwen3-8B-EAGLE3, ...")
    line = (
        "(EngineCore_DP0 pid=1) INFO 09-19 11:15:50 [core.py:76] Initializing a V1 LLM engine "
        "(v0.10.2) with config: model='/home/ma-user/work/Qwen/Qwen3-8B/', speculative_config="
        "SpeculativeConfig(method='eagle3', model='/home/ma-user/work/Qwen/qwen3_8b_eagle3/', "
        "num_spec_tokens=5), tokenizer='/home/ma-user/work/Qwen/Qwen3-8B/', max_seq_len=40960, "
        "download_dir=None, seed=42, served_model_name=Qwen3-8B-EAGLE3, enable_prefix_caching="
        "True\n"
    )
    assert parse_text(line).models == ["Qwen3-8B-EAGLE3", "/home/ma-user/work/Qwen/Qwen3-8B/"]


def test_rfc3339_prefixes_are_dated_and_win_over_yearless_ones() -> None:
    # kubectl logs --timestamps puts an RFC 3339 time before each line
    text = (
        "2026-10-02T11:02:31.123456789Z INFO 10-02 11:02:31 [api_server.py:1839] vLLM API server "
        "version 0.11.0\n"
        "2026-10-02T11:05:09.5Z INFO 10-02 11:05:09 [kv_cache_utils.py:1087] GPU KV cache size: "
        "1,239,808 tokens\n"
    )
    period = parse_text(text).period
    assert period == LogPeriod(start="2026-10-02T11:02:31", end="2026-10-02T11:05:09", dated=True)


def test_dates_inside_messages_and_impossible_dates_are_not_timestamps() -> None:
    text = (
        "[2026-13-45 09:14:02] server_args=ServerArgs(model_path='m', context_length=4096)\n"
        "[2026-08-26 09:14:05] max_total_num_tokens=8192, chunked_prefill_size=8192, "
        "max_prefill_tokens=16384, max_running_requests=2048, context_len=4096, "
        "note='the weights were built on 2025-01-01 00:00:00 by a job that ran long before'\n"
    )
    period = parse_text(text).period
    assert period == LogPeriod(start="2026-08-26T09:14:05", end="2026-08-26T09:14:05", dated=True)


def test_a_log_without_timestamps_or_models_says_so() -> None:
    parsed = parse_text((DEPLOY_ASSETS / "real" / "sglang-30233-listing.md").read_text())
    assert (parsed.models, parsed.period) == ([], None)


def test_union_prefers_dated_periods() -> None:
    dated = LogPeriod(start="2026-08-26T09:14:02", end="2026-08-26T09:14:46", dated=True)
    later = LogPeriod(start="2026-08-27T00:00:00", end="2026-08-27T01:00:00", dated=True)
    yearless = LogPeriod(start="10-14 11:02:31", end="10-14 11:05:09", dated=False)
    assert union_period([yearless, dated, None, later]) == LogPeriod(
        start=dated.start, end=later.end, dated=True
    )
    assert union_period([yearless]) == yearless
    assert union_period([None]) is None


def test_json_says_what_the_check_is_about(run_cli: Any) -> None:
    pre, dec = str(sample("sglang-prefill.log")), str(sample("sglang-decode.log"))
    stated = ["--service", "Edge Inference (serverless)", "--model", "@cf/zai-org/glm-5.3"]
    result = run_cli("deploy-check", pre, dec, *stated, "--json", "-")
    about = json.loads(result.stdout)["about"]
    assert about == {
        "service": "Edge Inference (serverless)",
        "model": "@cf/zai-org/glm-5.3",
        "models_seen": ["zai-org/GLM-5.3-FP8"],
        "nodes": ["sglang-prefill", "sglang-decode"],
        "period": {"start": "2026-08-26T09:14:02", "end": "2026-08-26T09:16:46", "dated": True},
    }
    text = run_cli("deploy-check", pre, dec, *stated).stdout
    assert (
        "about: service Edge Inference (serverless); model @cf/zai-org/glm-5.3, "
        "zai-org/GLM-5.3-FP8; logs 2026-08-26T09:14:02 to 2026-08-26T09:16:46\n"
    ) in text


@pytest.mark.parametrize("name", ["vllm-pass.log", "sglang-aggregated.log"])
def test_each_node_carries_its_models_and_period(run_cli: Any, name: str) -> None:
    doc = json.loads(run_cli("deploy-check", str(sample(name)), "--json", "-").stdout)
    (node,) = doc["nodes"]
    assert node["models"] == doc["about"]["models_seen"] and node["models"]
    assert node["period"] == doc["about"]["period"]
