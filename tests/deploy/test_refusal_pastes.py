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
from assess.deploy.serverlogs.vllm_refusal import _LINE_PREFIX
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


# V0's log prefix, as vLLM printed it before the file name went into brackets (vllm/logger.py,
# vllm-project/vllm at 00656a8e: "%(levelname)s %(asctime)s %(filename)s:%(lineno)d] %(message)s",
# date "%m-%d %H:%M:%S"; its NewLineFormatter repeats the prefix on every line of a message).
# (source, prefix, message, context asked, tokens the cache holds): each prefix and message is
# verbatim from the source; the message is re-wrapped below with the prefix on every line.
V0_PREFIXED = [
    (
        "https://github.com/vllm-project/vllm/issues/6746 (a V0 worker process)",
        "(VllmWorkerProcess pid=6499) ERROR 07-24 14:07:40 multiproc_worker_utils.py:226] ",
        "ValueError: The model's max seq len (131072) is larger than the maximum number of tokens "
        "that can be stored in KV cache (79392). Try increasing `gpu_memory_utilization` or "
        "decreasing `max_model_len` when initializing the engine.",
        131072, 79392,
    ),
    (
        "https://github.com/vllm-project/vllm/issues/10439 (vLLM 0.6.4.post1 under docker compose)",
        "vllm-1  | ERROR 11-18 18:07:28 engine.py:366] ",
        "ValueError: No available memory for the cache blocks. Try increasing "
        "`gpu_memory_utilization` when initializing the engine.",
        None, None,
    ),
    (
        "https://github.com/OpenRLHF/OpenRLHF/issues/336 (the prefix of its log; the figures of "
        "its title, in V0's message)",
        "2024-06-28T06:11:52.685300953Z (LLMRayActor pid=20770) ERROR 06-28 06:11:45 "
        "worker_base.py:145] ",
        "ValueError: The model's max seq len (8192) is larger than the maximum number of tokens "
        "that can be stored in KV cache (6048). Try increasing `gpu_memory_utilization` or "
        "decreasing `max_model_len` when initializing the engine.",
        8192, 6048,
    ),
]  # fmt: skip


def _wrapped(message: str, pieces: int) -> str:
    """Return ``message`` cut at spaces into ``pieces`` lines of about equal length."""
    words = message.split(" ")
    size = -(-len(words) // pieces)
    return "\n".join(" ".join(words[i : i + size]) for i in range(0, len(words), size))


def _assert_refusal(text: str, source: str, asked: int | None, holds: int | None) -> None:
    log = parse_text(text)
    assert log.engine == "vllm"
    assert log.settings["refused_to_start"] is True
    assert (log.context_tokens, log.pool_tokens) == (asked, holds)
    result = check_deployment([NodeLog(name="n", source=source, parsed=log)])
    assert result.failed
    (refusal,) = [f for f in result.findings if f.id == "engine-refused-to-start"]
    if holds is not None:
        assert f"the KV cache holds {holds:,} tokens" in refusal.detail
    else:
        assert "no memory was left for the KV cache at all" in refusal.detail
        assert log.settings["refusal_wording"] == "no-kv-memory"


@pytest.mark.parametrize("pieces", [1, 2, 3])
@pytest.mark.parametrize(
    ("source", "prefix", "message", "asked", "holds"), V0_PREFIXED,
    ids=[r[0].split()[0].rsplit("/", 3)[-3] + "#" + r[0].split()[0].rsplit("/", 1)[-1]
         for r in V0_PREFIXED],
)  # fmt: skip
def test_v0_refusals_rewrapped_with_v0_prefixes_on_every_line(
    pieces: int, source: str, prefix: str, message: str, asked: int | None, holds: int | None
) -> None:
    """acc41 D2: V0's wording and 'No available memory' are read with the prefixes set aside,
    V0's unbracketed 'engine.py:366] ' among them (pieces=1: the line as printed)."""
    _assert_refusal(_prefixed(_wrapped(message, pieces), prefix), source, asked, holds)


# The acceptance review's repro files (/work/acc/r41/t/dc, acc41 D2), verbatim: V0's wording and
# "No available memory" re-wrapped under the V1 EngineCore prefix, V0's prefix and docker
# compose's. The banner and "Using max model len" lines are the review's own.
_BANNER = (
    "INFO 10-21 00:34:20 [api_server.py:1839] vLLM API server version 0.6.6\n"
    "INFO 10-21 00:34:21 [config.py:887] Using max model len {ctx}\n"
)
_CORE = "(EngineCore_DP0 pid=1) ERROR 10-21 00:35:03 [core.py:708] "
ACC41_D2 = [
    (
        "w-a.log",
        _BANNER.format(ctx=131072)
        + _CORE + "ValueError: The model's max seq len (131072) is larger than the\n"
        + _CORE + "maximum number of tokens that can be stored in KV cache (98304). Try "
        "increasing\n"
        + _CORE + "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the "
        "engine.\n",
        131072, 98304,
    ),
    (
        "w-c.log",
        _BANNER.format(ctx=131072)
        + "ERROR 03-10 15:07:41 engine.py:158] ValueError: The model's max seq len (131072) is "
        "larger than the maximum number\n"
        "ERROR 03-10 15:07:41 engine.py:158] of tokens that can be stored in KV cache (98304). "
        "Try increasing\n"
        "ERROR 03-10 15:07:41 engine.py:158] `gpu_memory_utilization` or decreasing "
        "`max_model_len` when initializing the engine.\n",
        131072, 98304,
    ),
    (
        "w-e.log",
        _BANNER.format(ctx=32768)
        + _CORE + "ValueError: No available memory for the cache\n"
        + _CORE + "blocks. Try increasing `gpu_memory_utilization` when initializing the engine.\n",
        32768, None,
    ),
    (
        "w-f.log",
        _prefixed(_BANNER.format(ctx=131072), "vllm-1  | ")
        + "vllm-1  | ValueError: The model's max seq len (131072) is larger than the maximum "
        "number\n"
        "vllm-1  | of tokens that can be stored in KV cache (98304). Try increasing\n"
        "vllm-1  | `gpu_memory_utilization` or decreasing `max_model_len` when initializing the "
        "engine.\n",
        131072, 98304,
    ),
    (
        "w-h.log",
        _prefixed(_BANNER.format(ctx=32768), "vllm-1  | ")
        + "vllm-1  | ValueError: No available memory for the cache\n"
        "vllm-1  | blocks. Try increasing `gpu_memory_utilization` when initializing the engine.\n",
        32768, None,
    ),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "asked", "holds"), ACC41_D2, ids=[r[0] for r in ACC41_D2])
def test_the_reviews_rewrapped_refusals(
    name: str, text: str, asked: int, holds: int | None
) -> None:
    _assert_refusal(text, name, asked, holds)


def test_no_kv_memory_fix_is_vllms_own_remedy_not_the_context_asked() -> None:
    """acc41 m6: 'Lower --max-model-len to at most <the context asked>' was no advice."""
    log = parse_text(ACC41_D2[2][1])
    result = check_deployment([NodeLog(name="n", source="w-e.log", parsed=log)])
    (refusal,) = [f for f in result.findings if f.id == "engine-refused-to-start"]
    fix = refusal.remediation
    assert "at most 32,768" not in fix
    assert fix.startswith("Raise --gpu-memory-utilization, as vLLM's message says")
    for remedy in ("--max-model-len", "--max-num-seqs", "quantized model", "more GPUs",
                   "--tensor-parallel-size", "Conserving memory"):  # fmt: skip
        assert remedy in fix


def test_v1_refusal_without_an_estimate_fixes_to_what_fits_not_to_the_context() -> None:
    """The same empty advice for V1 0.8.x (no token figure): the fix names the estimate."""
    text = (  # tests/deploy/test_refusals.py, "V1, 'GB', no estimate (0.8.2)"
        "ERROR 03-27 16:43:19 [core.py:343] ValueError: To serve at least one request with the "
        "models's max seq len (116160), (4.43 GB KV cache is needed, which is larger than the "
        "available KV cache memory (3.48 GB). Try increasing gpu_memory_utilization or "
        "decreasing max_model_len when initializing the engine."
    )
    result = check_deployment([NodeLog(name="n", source="t", parsed=parse_text(text))])
    (refusal,) = [f for f in result.findings if f.id == "engine-refused-to-start"]
    estimate = int(116160 * 3.48 / 4.43)
    assert f"Lower --max-model-len to at most {estimate:,}," in refusal.remediation
    assert "116,160" not in refusal.remediation


# issue 41 (accfinal minor 4): the prefix of the tool that pulled the log, on every line before
# vLLM's own. `kubectl logs --prefix`: "[pod/%s/%s] " (pod, container), kubernetes
# staging/src/k8s.io/kubectl/pkg/cmd/logs/logs.go addPrefixIfNeeded. journalctl's default output
# "short" ("mostly identical to the formatting of classic syslog files", journalctl(1)); the
# second journal prefix is verbatim from a vLLM unit's log, community-scripts/ProxmoxVED#2047.
OUTER_PREFIXES = [
    "[pod/vllm-0/vllm] ",
    "[pod/vllm-0/vllm] (VllmWorkerProcess pid=6499) ERROR 07-24 14:07:40 "
    "multiproc_worker_utils.py:226] ",
    "Dec 07 12:00:00 gpu-host-1 vllm[1234]: ",
    "Aug 19 18:34:27 vllm vllm[8727]: (EngineCore pid=8727) ERROR 08-19 18:34:27 [core.py:1349] ",
]
# (source, message, context asked, tokens the cache holds): V0's wording and V1's, verbatim.
OUTER_WORDINGS = [
    (V0_PREFIXED[0][0], V0_PREFIXED[0][2], 131072, 79392),
    (
        "https://github.com/lemonade-sdk/vllm-rocm/issues/5 (V1, with the estimate)",
        "ValueError: To serve at least one request with the models's max seq len (131072), "
        "(4.11 GiB KV cache is needed, which is larger than the available KV cache memory "
        "(4.0 GiB). Based on the available memory, the estimated maximum model length is "
        "127776. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
        "initializing the engine.",
        131072, 127776,
    ),
    (V0_PREFIXED[1][0], V0_PREFIXED[1][2], None, None),
]  # fmt: skip


@pytest.mark.parametrize("pieces", [2, 3])
@pytest.mark.parametrize("prefix", OUTER_PREFIXES)
@pytest.mark.parametrize(
    ("source", "message", "asked", "holds"), OUTER_WORDINGS, ids=["v0", "v1", "no-memory"]
)
def test_refusals_rewrapped_under_kubectl_or_journalctl_prefixes(
    pieces: int, prefix: str, source: str, message: str, asked: int | None, holds: int | None
) -> None:
    _assert_refusal(_prefixed(_wrapped(message, pieces), prefix), source, asked, holds)


def test_a_line_starting_with_another_bracket_keeps_it() -> None:
    """Only kubectl's exact '[pod/NAME/CONTAINER] ' is set aside: '[something] ' stays, in the
    de-prefixed view as in the reading as printed."""
    assert _LINE_PREFIX.sub("", "[something] The model's max seq len") == (
        "[something] The model's max seq len"
    )
    assert _LINE_PREFIX.sub("", "[pod/vllm-0/vllm] The model's max seq len") == (
        "The model's max seq len"
    )
    line = "[something] " + V0_PREFIXED[0][2]
    log = parse_text(_BANNER.format(ctx=131072) + line + "\n")
    assert (log.context_tokens, log.pool_tokens) == (131072, 79392)
    assert log.settings["refused_to_start"] is True
