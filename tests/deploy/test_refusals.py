"""vLLM's refusal to start, in each wording it has had, judged as a refusal with its numbers.

vLLM refuses to start when one request of ``max_model_len`` tokens cannot fit the KV cache. The
message changed over its history (read in vllm/worker/worker.py ``raise_if_cache_size_invalid``
for V0 and vllm/v1/core/kv_cache_utils.py ``check_enough_kv_cache_memory`` for V1, and in copies
of those files at older versions): V0 with and without backticks, and with the CPU backend's
variable; V1 first in "GB" without an estimate (0.8.x), then in GiB with "Based on the available
memory, the estimated maximum model length is N." (printed even empty in one release: "Based on
the available memory,  Try"), with the "models's" typo until it became "model's", and later with
"(which also controls CPU memory on the CPU backend)". Every text below is a user's paste, verbatim.
"""

from __future__ import annotations

import pytest

from assess.deploy.check import check_deployment
from assess.deploy.models import NodeLog, Verdict
from tests.deploy.conftest import parse_text

# (wording, source, text, context asked, tokens the cache holds (None: not printed), GiB needed,
#  GiB available)
WORDINGS = [
    (
        "V0, no backticks (vllm 0.2.7)",
        "https://github.com/basalam/product-catalog-generator/issues/10",
        "ValueError: The model's max seq len (4096) is larger than the maximum number of tokens "
        "that can be stored in KV cache (3664). Try increasing gpu_memory_utilization or "
        "decreasing max_model_len when initializing the engine.",
        4096, 3664, None, None,
    ),
    (
        "V0, backticks",
        "https://github.com/QwenLM/Qwen3/issues/16",
        "`ValueError: The model's max seq len (32768) is larger than the maximum number of tokens "
        "that can be stored in KV cache (24320). Try increasing `gpu_memory_utilization` or "
        "decreasing `max_model_len` when initializing the engine.`",
        32768, 24320, None, None,
    ),
    (
        "V0, CPU backend",
        "https://github.com/opea-project/GenAIExamples/pull/1762",
        "ValueError: The model's max seq len (131072) is larger than the maximum number of tokens "
        "that can be stored in KV cache (21840). Try increasing `VLLM_CPU_KVCACHE_SPACE` or "
        "decreasing `max_model_len` when initializing the engine.",
        131072, 21840, None, None,
    ),
    (
        "V1, 'GB', no estimate (0.8.2; the paste is quoted in an issue digest whose thread URL "
        "the search corpus did not give)",
        "vLLM 0.8.2 refusal, as quoted",
        "ERROR 03-27 16:43:19 [core.py:343] ValueError: To serve at least one request with the "
        "models's max seq len (116160), (4.43 GB KV cache is needed, which is larger than the "
        "available KV cache memory (3.48 GB). Try increasing gpu_memory_utilization or "
        "decreasing max_model_len when initializing the engine.",
        116160, None, 4.43, 3.48,
    ),
    (
        "V1, 'Based on the available memory,' with the estimate missing (a docker-compose log "
        "found by code search; its thread URL was not given)",
        "vLLM refusal of 2025-06-02, as pasted",
        "[vllm]                 | ERROR 06-02 05:17:18 [core.py:387] ValueError: To serve at least "
        "one request with the models's max seq len (40960), (10.00 GiB KV cache is needed, which "
        "is larger than the available KV cache memory (1.25 GiB). Based on the available memory,"
        "  Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
        "initializing the engine.",
        40960, None, 10.0, 1.25,
    ),
    (
        "V1, 'models's', estimate, docs link",
        "https://github.com/vllm-project/vllm/issues/34076",
        "`(EngineCore_DP0 pid=1094) ValueError: To serve at least one request with the models's "
        "max seq len (262144), (24.0 GiB KV cache is needed, which is larger than the available "
        "KV cache memory (3.18 GiB). Based on the available memory, the estimated maximum model "
        "length is 34736. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` "
        "when initializing the engine. See https://docs.vllm.ai/en/latest/configuration/"
        "conserving_memory/ for mo",
        262144, 34736, 24.0, 3.18,
    ),
    (
        "V1, 'model's', CPU-backend note",
        "https://github.com/syv-ai/qwen38-27b-rtx3090/issues/39",
        "(EngineCore pid=4382) ERROR 09-01 19:53:44 [core.py:1346] ValueError: To serve at least "
        "one request with the model's max seq len (65536), (4.76 GiB KV cache is needed, which is "
        "larger than the available KV cache memory (1.56 GiB). Based on the available memory, "
        "the estimated maximum model length is 15984. Try increasing `gpu_memory_utilization` "
        "(which also controls CPU memory on the CPU backend) or decreasing `max_model_len` when "
        "initializing the engine. See https://docs.vllm.ai/en/latest/configuration/"
        "conserving_memory/ for more details.",
        65536, 15984, 4.76, 1.56,
    ),
    (
        "V1, wrapped over three lines",
        "https://github.com/noonghunna/club-3090/issues/35",
        "INFO ... Available KV cache memory: 2.19 GiB\n"
        "ERROR ... ValueError: To serve at least one request with the model's max seq len "
        "(160000),\n(2.8 GiB KV cache is needed, which is larger than the available KV cache "
        "memory (2.19 GiB).\nBased on the available memory, the estimated maximum model length "
        "is 111456.",
        160000, 111456, 2.8, 2.19,
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("wording", "source", "text", "asked", "holds", "need", "have"),
    WORDINGS,
    ids=[w[0].split(" (")[0] for w in WORDINGS],
)
def test_refusal_read_with_its_numbers(
    wording: str, source: str, text: str, asked: int, holds: int | None,
    need: float | None, have: float | None,
) -> None:  # fmt: skip
    log = parse_text(text)
    assert log.engine == "vllm"
    assert log.settings["refused_to_start"] is True
    assert (log.context_tokens, log.pool_tokens) == (asked, holds)
    assert log.settings.get("kv_cache_needed_gib") == need
    assert log.settings.get("kv_cache_available_gib") == have
    result = check_deployment([NodeLog(name="n", source=source, parsed=log)])
    assert result.verdict is Verdict.FLAG and result.failed
    (refusal,) = [f for f in result.findings if f.id == "engine-refused-to-start"]
    assert f"({asked:,} tokens)" in refusal.title
    # no second finding restates the pool shortfall of a launch that serves nothing
    assert not [f for f in result.findings if f.id == "pool-smaller-than-context"]
    if holds is not None:
        assert f"the KV cache holds {holds:,} tokens" in refusal.detail
    else:
        assert need is not None and have is not None
        assert f"holds about {int(asked * have / need):,} tokens" in refusal.detail
        assert f"{need} GiB of KV cache needed, {have} GiB available" in refusal.detail
        assert log.pool_tokens is None  # never taken as the pool: the node stays inconclusive
        assert result.nodes[0].verdict is Verdict.INCONCLUSIVE
