"""vLLM's refusals as people paste them: "No available memory for the cache blocks" (no figures),
and the V1 refusal re-typed or re-wrapped, with the log prefix repeated on every line.

Upstream wordings (read in vendored copies of vLLM found by code search; the vLLM snapshot itself
is too large to fetch): vllm/worker/worker.py ``raise_if_cache_size_invalid`` and
vllm/engine/llm_engine.py (V0): "No available memory for the cache blocks. Try increasing
`gpu_memory_utilization` when initializing the engine."; vllm/v1/core/kv_cache_utils.py
``check_enough_kv_cache_memory`` (V1) adds " See https://docs.vllm.ai/en/latest/configuration/
conserving_memory/ for more details.", later "... the engine (this flag also controls CPU memory
reservation on the CPU backend, despite its name). See ...". Every text below is verbatim; where
the search gave a file but not its repository, it says so (``code search, id N``).
"""

from __future__ import annotations

import pytest

from assess.deploy.check import check_deployment
from assess.deploy.models import NodeLog, Verdict
from tests.deploy.conftest import parse_text

# vLLM 0.19.2rc1 under docker compose on WSL (code search, id 52221836498: a saved log; its lines
# cut to these, the V1 engine line left out so the banner is the only version line).
VLLM_0192 = (
    "2026-04-19 12:18:36.353 | (APIServer pid=1) INFO 04-19 10:18:36 [utils.py:299]        █     █     █▄   ▄█\n"  # noqa: E501
    "2026-04-19 12:18:36.353 | (APIServer pid=1) INFO 04-19 10:18:36 [utils.py:299]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.19.2rc1.dev8+g4b7f5ea1a\n"  # noqa: E501
    "2026-04-19 12:18:36.353 | (APIServer pid=1) INFO 04-19 10:18:36 [utils.py:299]   █▄█▀ █     █     █     █  model   RedHatAI/Qwen3.6-35B-A3B-NVFP4\n"  # noqa: E501
    "2026-04-19 12:18:36.353 | (APIServer pid=1) INFO 04-19 10:18:36 [utils.py:299]    ▀▀  ▀▀▀▀▀ ▀▀▀▀▀ ▀     ▀\n"  # noqa: E501
    "2026-04-19 12:18:36.356 | (APIServer pid=1) INFO 04-19 10:18:36 [utils.py:233] non-default args: {'model_tag': 'RedHatAI/Qwen3.6-35B-A3B-NVFP4', 'tool_call_parser': 'qwen3_coder', 'host': '0.0.0.0', 'model': 'RedHatAI/Qwen3.6-35B-A3B-NVFP4', 'trust_remote_code': True, 'max_model_len': 8192, 'quantization': 'compressed-tensors', 'served_model_name': ['RedHatAI/Qwen3.6-35B-A3B-NVFP4'], 'reasoning_parser': 'qwen3', 'gpu_memory_utilization': 0.8, 'kv_cache_dtype': 'fp8_e4m3', 'enable_prefix_caching': True, 'max_num_batched_tokens': 8192, 'max_num_seqs': 32, 'enable_chunked_prefill': True, 'moe_backend': 'flashinfer_cutlass'}\n"  # noqa: E501
    "2026-04-19 12:18:46.489 | (APIServer pid=1) INFO 04-19 10:18:46 [model.py:1685] Using max model len 8192\n"  # noqa: E501
    "2026-04-19 12:21:55.609 | (EngineCore pid=207) INFO 04-19 10:21:55 [gpu_worker.py:436] Available KV cache memory: -0.12 GiB\n"  # noqa: E501
    "2026-04-19 12:21:55.611 | (EngineCore pid=207) ERROR 04-19 10:21:55 [core.py:1132] EngineCore failed to start.\n"  # noqa: E501
    "2026-04-19 12:21:55.611 | (EngineCore pid=207) ERROR 04-19 10:21:55 [core.py:1132] ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine. See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.\n"  # noqa: E501
)

NO_KV_MEMORY = [
    (
        "V0/V1, as an issue title",
        "https://github.com/wyf3/llm_related/issues/29",
        "ValueError: No available memory for the cache blocks. Try increasing "
        "`gpu_memory_utilization` when initializing the engine.",
        None,
    ),
    (
        "V1 with the docs link (vLLM 0.19.2rc1)",
        "code search, id 52221836498",
        VLLM_0192,
        8192,
    ),
    (
        "V1 with the CPU-backend note (the upstream f-string as printed)",
        "vllm/v1/core/kv_cache_utils.py _check_enough_kv_cache_memory",
        "ValueError: No available memory for the cache blocks. Try increasing "
        "`gpu_memory_utilization` when initializing the engine (this flag also controls CPU "
        "memory reservation on the CPU backend, despite its name). See "
        "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.",
        None,
    ),
]


@pytest.mark.parametrize(
    ("wording", "source", "text", "asked"), NO_KV_MEMORY, ids=[w[0] for w in NO_KV_MEMORY]
)
def test_no_kv_memory_is_a_refusal_with_numbers_unknown(
    wording: str, source: str, text: str, asked: int | None
) -> None:
    log = parse_text(text)
    assert log.engine == "vllm"
    assert log.settings["refused_to_start"] is True
    assert (log.context_tokens, log.pool_tokens) == (asked, None)
    assert "kv_cache_needed_gib" not in log.settings  # the wording prints no figures
    result = check_deployment([NodeLog(name="n", source=source, parsed=log)])
    assert result.verdict is Verdict.FLAG and result.failed
    (refusal,) = [f for f in result.findings if f.id == "engine-refused-to-start"]
    assert "no memory was left for the KV cache at all" in refusal.detail
    assert result.nodes[0].verdict is Verdict.INCONCLUSIVE  # the pool is unknown, never a pass


def test_the_ascii_banner_gives_the_version() -> None:
    log = parse_text(VLLM_0192)
    assert log.version == "0.19.2rc1.dev8+g4b7f5ea1a"
    assert "utils.py:299" in log.evidence["version"]
    assert "RedHatAI/Qwen3.6-35B-A3B-NVFP4" in log.models


@pytest.mark.parametrize(
    ("text", "version"),
    [
        # code search, id 62458215816 (vLLM 0.19.0, Qwen/Qwen3-0.6B)
        (
            "(APIServer pid=1) INFO 04-03 15:05:37 [utils.py:299]        █     █     █▄   ▄█\n"
            "(APIServer pid=1) INFO 04-03 15:05:37 [utils.py:299]  ▄▄ ▄█ █     █     █ ▀▄▀ █  "
            "version 0.19.0\n"
            "(APIServer pid=1) INFO 04-03 15:05:37 [utils.py:299]   █▄█▀ █     █     █     █  "
            "model   Qwen/Qwen3-0.6B\n",
            "0.19.0",
        ),
        # code search, id 70947466353 ("Verbatim from a real v0.26.0 startup")
        (
            "(APIServer pid=1) INFO 08-10 06:25:29 [api_utils.py:345]        █     █     █▄   ▄█\n"
            "(APIServer pid=1) INFO 08-10 06:25:29 [api_utils.py:345]  ▄▄ ██ █     █     █ ▀▄▀ █"
            "  version 0.26.0\n",
            "0.26.0",
        ),
        # the banner without the logo (VLLM_DISABLE_LOG_LOGO): vllm/entrypoints/utils.py
        # log_version_and_model "vLLM server version %s, serving model %s"
        ("INFO 04-03 15:05:37 [utils.py:299] vLLM server version 0.19.0, serving model "
         "Qwen/Qwen3-0.6B\n", "0.19.0"),
    ],
)  # fmt: skip
def test_banner_forms(text: str, version: str) -> None:
    log = parse_text(text)
    assert (log.engine, log.version) == ("vllm", version)


# The V1 refusal re-typed or re-wrapped: (source, text, asked, holds, GiB needed, GiB available)
RETYPED = [
    (  # "(" dropped before the GiB figure, wrapped with an indent, an arrow in front
        "code search, id 68735452829 (a tuning note)",
        "→ ValueError: To serve at least one request with the model's max seq len (131072),\n"
        "  3.79 GiB KV cache is needed, which is larger than the available KV cache memory "
        "(3.12 GiB).\n"
        "  Based on the available memory, the estimated maximum model length is 7740.\n",
        131072, 7740, 3.79, 3.12,
    ),
    (  # "(" dropped, wrapped mid-sentence in a markdown list item
        "code search, id 51797582025 (a job log summary)",
        "   into VLLMGeneration init, then crashed: `ValueError: To serve at least\n"
        "   one request with the models's max seq len (12288), 1.69 GiB KV cache is\n"
        "   needed, which is larger than the available KV cache memory (0.87 GiB)`.\n",
        12288, None, 1.69, 0.87,
    ),
    (  # "model max seq len" (no "'s"), wrapped twice
        "code search, id 56511745845 (a deployment note)",
        "ValueError: To serve at least one request with the model max seq len (250000), 3.19 "
        "GiB KV cache is needed,\n"
        "which is larger than the available KV cache memory (0.01 GiB). Based on the available "
        "memory, the estimated\n"
        "maximum model length is 256.\n",
        250000, 256, 3.19, 0.01,
    ),
    (  # the prefix on the first line only, the message wrapped after it
        "code search, id 59581514124 (a test's FAIL_LOG)",
        "(EngineCore_DP0 pid=1496252) ERROR [core.py:1195]\n"
        "ValueError: To serve at least one request with the model's max seq len\n"
        "(32768), (17.26 GiB KV cache is needed, which is larger than the\n"
        "available KV cache memory (17.2 GiB). Based on the available memory,\n"
        "the estimated maximum model length is 32648.\n",
        32768, 32648, 17.26, 17.2,
    ),
]  # fmt: skip


def _prefixed(text: str, prefix: str) -> str:
    return "".join(prefix + line + "\n" for line in text.splitlines())


# The same real texts with a log prefix on every line, as `docker compose logs`, `kubectl logs
# --prefix` or a collector print each line of a message: derived from the pastes above (no thread
# in reach held one), with the prefixes of the real 0.19.2 log above and of vllm-project/vllm#14574.
PREFIXES = [
    "2026-04-19 12:21:55.611 | (EngineCore pid=207) ERROR 04-19 10:21:55 [core.py:1132] ",
    "  | [2025-03-10T15:07:20Z] ERROR 03-10 08:07:20 [core.py:302] ",
    "vllm-1  | ",
]


@pytest.mark.parametrize("prefix", ["", *PREFIXES])
@pytest.mark.parametrize(
    ("source", "text", "asked", "holds", "need", "have"), RETYPED, ids=[r[0] for r in RETYPED]
)
def test_retyped_and_rewrapped_refusals_are_refusals_with_their_numbers(
    prefix: str, source: str, text: str, asked: int, holds: int | None,
    need: float, have: float,
) -> None:  # fmt: skip
    log = parse_text(_prefixed(text, prefix) if prefix else text)
    assert log.engine == "vllm"
    assert log.settings["refused_to_start"] is True
    assert (log.context_tokens, log.pool_tokens) == (asked, holds)
    assert (log.settings["kv_cache_needed_gib"], log.settings["kv_cache_available_gib"]) == (
        need, have,
    )  # fmt: skip
    result = check_deployment([NodeLog(name="n", source=source, parsed=log)])
    assert result.failed
    (refusal,) = [f for f in result.findings if f.id == "engine-refused-to-start"]
    assert f"({asked:,} tokens)" in refusal.title


def test_a_wrapped_context_figure_is_not_taken_for_a_prefix() -> None:
    """'(32768),' at a line start names no letter: it is the figure, not a process tag."""
    text = _prefixed(RETYPED[3][1], "(EngineCore_DP0 pid=9) ")
    assert parse_text(text).context_tokens == 32768
