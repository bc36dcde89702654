"""vLLM startup logs (``vllm serve`` / the OpenAI API server), V1 and V0 engines.

Every pattern says where its format comes from. None is anchored to a line start ("(APIServer
pid=1) INFO 09-03 16:28:10 [api_server.py:1882] ..." prefixes vary by version and deployment).
"""

from __future__ import annotations

import re

from assess.deploy.models import ParsedServerLog, Role, Scalar
from assess.deploy.serverlogs.cache_settings import read_vllm
from assess.deploy.serverlogs.interface import (
    VERSION,
    ServerLogParser,
    normalise_version,
    smallest,
)
from assess.deploy.serverlogs.sglang import scalar
from assess.deploy.serverlogs.text import NUMBER, Hit, LogText, flex, to_int
from assess.deploy.serverlogs.vllm_refusal import (
    NO_KV_MEMORY,
    NO_KV_MEMORY_WORDING,
    REFUSAL_V0,
    Refusal,
    find_refusal,
    refusal_under_prefixes,
)

_M = re.M
_NUM = NUMBER

# vllm/entrypoints/openai/api_server.py: logger.info("vLLM API server version %s", VLLM_VERSION)
# real paste: vllm-project/vllm#24162 "vLLM API server version 0.10.2.dev378+g4d7fe40fc.d20250829"
API_VERSION = re.compile(flex("vLLM API server version") + r"[ \t]*" + VERSION)
# vllm/v1/engine/core.py (EngineCore.__init__):
#   logger.info("Initializing a V1 LLM engine (v%s) with config: %s", VLLM_VERSION, vllm_config)
# V0 vllm/engine/llm_engine.py: "Initializing an LLM engine (v%s) with config: ..." (early 2025:
# "Initializing a V0 LLM engine (v0.6.4.post2.dev395+g02222a02.d20241217)", vllm-project/vllm#13027;
# early 2024 without a version: "Initializing an LLM engine with config:", vllm-project/vllm#2418)
# real paste: "Initializing a V1 LLM engine (v0.10.2) with config: model='TinyLlama/...', ...,
# max_seq_len=2048, download_dir=None, ..." (vllm-project/vllm#24162 and others)
ENGINE_VERSION = re.compile(
    r"Initializing[ \t]*an?[ \t]*(?:V[01][ \t]*)?LLM[ \t]*engine[ \t]*\(" + VERSION + r"\)"
)
# Builds without version metadata print "v999.999.999" (vllm/version.py's fallback; real paste:
# vllm-project/vllm#9532 "Initializing an LLM engine (v999.999.999) with config: ...").
DEV_PLACEHOLDER = "999.999.999"
# Newer servers print the version in an ASCII-art banner instead (vllm/entrypoints/utils.py
# log_version_and_model, logo_template: " ▄▄ ▄█ █     █     █ ▀▄▀ █  version %s" over four
# lines), or with VLLM_DISABLE_LOG_LOGO / no formatter: "vLLM server version %s, serving model
# %s". real paste: "(APIServer pid=1) INFO 04-03 15:05:37 [utils.py:299]  ▄▄ ▄█ █     █     █
# ▀▄▀ █  version 0.19.0" (code search; tests/deploy/test_refusal_pastes.py).
SERVER_VERSION = re.compile(
    r"(?:█[ \t]+version|" + flex("vLLM server version") + r")[ \t]+" + VERSION + r"(?![\w.+])"
)
# A startup begins at the API server banner, or (offline / engine-only logs) at the engine line.
STARTUPS = (API_VERSION, SERVER_VERSION, ENGINE_VERSION)

# Context length, most authoritative first:
#   the engine config ("..., max_seq_len=131072, download_dir=None, ...", same line as above);
#   vllm/config/model.py: logger.info("Using max model len %s", max_model_len);
#   the refusals below; then what was asked ('max_model_len': N in "non-default args: {...}",
#   vllm/entrypoints/utils.py log_non_default_args; or --max-model-len on a command line).
MAX_SEQ_LEN = re.compile(r"(?<![\w])max_seq_len[ \t]*=[ \t]*(\d+)[ \t]*,")
USING_MAX_MODEL_LEN = re.compile(flex("Using max model len") + r"[ \t]*(\d+)[ \t]*$", _M)
ARGS_MAX_MODEL_LEN = re.compile(r"['\"]max_model_len['\"][ \t]*:[ \t]*(\d+)[ \t]*[,}]")
CLI_MAX_MODEL_LEN = re.compile(r"--max[-_]model[-_]len[ \t]*[= \t][ \t]*(\d+)(?![\w.])")

# Pool. vllm/v1/core/kv_cache_utils.py (vllm-project/vllm#13596):
#   logger.info("GPU KV cache size: %s tokens", f"{num_tokens:,}")
#   logger.info("Maximum concurrency for %s tokens per request: %.2fx", f"{max_model_len:,}", c)
# real paste: vllm-project/vllm#20707 "GPU KV cache size: 922,496 tokens" / "Maximum concurrency
# for 40,000 tokens per request: 23.06x"
GPU_KV_CACHE_SIZE = re.compile(flex("GPU KV cache size:") + r"[ \t]*" + _NUM + r"[ \t]*tokens")
MAX_CONCURRENCY = re.compile(
    flex("Maximum concurrency for") + r"[ \t]*" + _NUM + r"[ \t]*" + flex("tokens per request:")
    + r"[ \t]*(\d+(?:\.\d+)?)[ \t]*x"
)  # fmt: skip
# Older engines count blocks: V0 vllm/executor/executor_base.py "# %s blocks: %d, # CPU blocks: %d"
# (device name: GPU, cuda, rocm, xpu...), early V1 kv_cache_utils "# GPU blocks: %d".
# real paste: vllm-project/vllm#10517 "# GPU blocks: 1478, # CPU blocks: 2048"
# The "# " is often lost to markdown (a heading marker): vllm-project/vllm#10517 "GPU blocks: 1952,
# # CPU blocks: 2048".
_DEVICE_BLOCKS = (
    r"(?<![\w])#?[ \t]*(?:GPU|cuda|rocm|xpu|hpu|tpu|npu|neuron)[ \t]*blocks[ \t]*:[ \t]*(\d+)"
)
GPU_BLOCKS = (  # "..., # CPU blocks" first: a number cut by a wrap is never read short
    re.compile(_DEVICE_BLOCKS + r"[ \t]*,", re.I),
    re.compile(_DEVICE_BLOCKS + r"[ \t]*$", re.I | _M),
)
# Block size for the above: 'block_size': N in non-default args, --block-size N, or the platform
# override "Forcing kv cache block size to 64 for FlashMLA backend." / "Setting attention block
# size to 528 tokens" (vllm/platforms/cuda.py, vllm/model_executor/models/config.py).
BLOCK_SIZES = (
    re.compile(r"['\"]block_size['\"][ \t]*:[ \t]*(\d+)"),
    re.compile(r"--block[-_]size[ \t]*[= \t][ \t]*(\d+)"),
    re.compile(r"block[ \t]*size[ \t]*to[ \t]*(\d+)"),
)
DEFAULT_BLOCK_SIZE = 16  # vllm CacheConfig.block_size default on CUDA

# Disaggregation: KVTransferConfig(kv_connector='MooncakeConnector', ..., kv_role='kv_producer')
# in "non-default args", or '{"kv_connector":"NixlConnector","kv_role":"kv_both"}' on the command
# line (vllm/config/kv_transfer.py; real paste: "'kv_transfer_config': KVTransferConfig(
# kv_connector='P2pNcclConnector', ..., kv_role='kv_producer', ...").
KV_ROLE = re.compile(r"kv_role['\"]?[ \t]*[=:][ \t]*['\"]?(kv_producer|kv_consumer|kv_both)")
KV_CONNECTOR = re.compile(r"kv_connector['\"]?[ \t]*[=:][ \t]*['\"]([\w.]+)['\"]")
GPU_MEMORY_UTILIZATION = re.compile(
    r"gpu_memory_utilization['\"]?[ \t]*[=:][ \t]*(\d*\.?\d+)(?=[ \t]*[,})])"
)
# What the node serves. The engine line "with config: model='Qwen/Qwen3-30B-A3B', ...,
# served_model_name=Qwen/Qwen3-30B-A3B, ..." (vllm/config/vllm.py __str__; real pastes in
# vllm-project/vllm#24162 and others: the served name is printed unquoted; the speculative
# config's own model='...' comes later on that line, so the model is read right after "config:");
# "non-default args: {'model': '...', 'served_model_name': ['...']}" (log_non_default_args).
CONFIG_MODEL = re.compile(r"with[ \t]*config:[ \t]*model[ \t]*=[ \t]*'([^'\n]+)'")
ARGS_MODEL = re.compile(r"['\"]model['\"][ \t]*:[ \t]*['\"]([^'\"\n]+)['\"]")
SERVED_NAME = (
    re.compile(r"(?<![\w.'\"])served_model_name[ \t]*=[ \t]*\[?'?([^,\s)\]']+)"),
    re.compile(r"['\"]served_model_name['\"][ \t]*:[ \t]*\[?[ \t]*['\"]([^'\"\n]+)['\"]"),
)
_ROLES = {"kv_producer": Role.PREFILL, "kv_consumer": Role.DECODE, "kv_both": Role.UNKNOWN}


class VLLMParser(ServerLogParser):
    """vLLM: pool from 'GPU KV cache size' (or blocks x block size), role from kv_role."""

    engine = "vllm"
    launch_markers = STARTUPS
    signatures = (
        (API_VERSION, 5),
        (SERVER_VERSION, 5),
        (ENGINE_VERSION, 5),
        (GPU_KV_CACHE_SIZE, 5),
        (re.compile(r"Maximum concurrency for"), 3),
        (REFUSAL_V0, 3),
        (re.compile(r"Initializing[ \t]*an?[ \t]*(?:V[01][ \t]*)?LLM[ \t]*engine"), 3),
        (GPU_BLOCKS[0], 2),
        (re.compile(flex("To serve at least one request with the model")), 3),
        (re.compile(flex("larger than the available KV cache memory")), 3),
        (NO_KV_MEMORY, 3),
        (re.compile(r"EngineCore|vllm\.entrypoints|\[api_server\.py"), 2),
        (re.compile(r"vllm", re.I), 1),
    )

    def score(self, log: LogText) -> int:
        """Return the signatures' weight; a refusal re-wrapped under a per-line log prefix (and
        nothing else of vLLM) counts as its signature would (looked for only then)."""
        score = super().score(log)
        if score < 3 and refusal_under_prefixes(log):
            score += 3
        return score

    def parse(self, log: LogText) -> ParsedServerLog:
        """Return what a vLLM log says about the last startup in it."""
        notes: list[str] = []
        evidence: dict[str, str] = {}
        last, startups = log.last_startup(STARTUPS)
        if startups > 1:
            notes.append(f"the log shows {startups} startups; the last one is used")
        # one launch: lines pasted before its banner (KV lines first) belong to it
        last = log if startups == 1 else last
        cache = read_vllm(last, log)
        settings: dict[str, Scalar] = {}
        refusal = self._refusal(last, settings, evidence, notes)
        pool = self._pool(last, settings, evidence, notes, refusal)
        context = self._context(last, evidence, refusal)
        version = None
        # the engine line's version ends at ')', so a wrapped one is never read short
        hit = log.find_first_of((ENGINE_VERSION, API_VERSION, SERVER_VERSION))
        if hit is not None and hit.value.startswith(DEV_PLACEHOLDER):
            notes.append(f"version {hit.value} is vLLM's placeholder for a build without version "
                         "metadata: the version is unknown")  # fmt: skip
            evidence["version"] = hit.cite()
        elif hit is not None:
            version = normalise_version(hit.value, notes)
            evidence["version"] = hit.cite()
        role = self._role(last, settings, evidence)
        self._settings(last, settings, evidence)
        if role is Role.UNKNOWN:
            notes.append(
                "kv_role='kv_both' does not say whether this node prefills or decodes; "
                "pass --node prefill=LOG or --node decode=LOG"
            )
        return ParsedServerLog(
            engine="vllm",
            version=version,
            role=role,
            pool_tokens=pool,
            context_tokens=context,
            settings=settings,
            evidence=evidence | cache.evidence,
            **cache.node_fields("vllm"),
            hints={
                "pool_tokens": "a line 'GPU KV cache size: N tokens' (older: '# GPU blocks: N'), "
                "printed after the memory profiling run",
                "context_tokens": "'max_seq_len=N' on the 'Initializing a V1 LLM engine' line, "
                "'Using max model len N', or 'Maximum concurrency for N tokens per request'",
                "version": "'vLLM API server version X.Y.Z' or 'Initializing a V1 LLM engine "
                "(vX.Y.Z)'",
            },
            notes=notes + cache.notes,
        )

    def _refusal(
        self,
        log: LogText,
        settings: dict[str, Scalar],
        evidence: dict[str, str],
        notes: list[str],
    ) -> Refusal | None:
        """Return the refusal to start (every wording), recording it in ``settings``."""
        refusal = find_refusal(log)
        if refusal is None:
            return None
        if refusal.holds is not None and refusal.wording == "v1":
            notes.append("the pool is vLLM's own estimate of the longest request that fits")
        if refusal.needed_gib is not None and refusal.available_gib is not None:
            settings["kv_cache_needed_gib"] = refusal.needed_gib
            settings["kv_cache_available_gib"] = refusal.available_gib
        if refusal.wording == NO_KV_MEMORY_WORDING:
            settings["refusal_wording"] = refusal.wording
            notes.append("vLLM found no memory at all for the KV cache; the refusal prints no "
                         "figures (pool unknown)")  # fmt: skip
        settings["refused_to_start"] = True
        evidence["settings.refused_to_start"] = refusal.hit.cite()
        return refusal

    def _pool(
        self,
        log: LogText,
        settings: dict[str, Scalar],
        evidence: dict[str, str],
        notes: list[str],
        refusal: Refusal | None,
    ) -> int | None:
        concurrency = log.find_last(MAX_CONCURRENCY)
        if concurrency is not None:
            settings["max_concurrency"] = float(concurrency.groups[1] or 0)
            evidence["settings.max_concurrency"] = concurrency.cite()
        hits = log.find_all(GPU_KV_CACHE_SIZE)
        value, hit = smallest(hits, 0, notes, "the KV pool size")
        if value is not None and hit is not None:
            evidence["pool_tokens"] = hit.cite()
            return value
        blocks = log.find_all(GPU_BLOCKS[0]) or log.find_all(GPU_BLOCKS[1])
        count, hit = smallest(blocks, 0, notes, "the number of GPU blocks")
        if count is not None and hit is not None:
            size_hit = log.find_first_of(BLOCK_SIZES)
            block_size = to_int(size_hit.value) if size_hit else None
            settings["gpu_blocks"] = count
            if block_size is None:
                return self._assumed_block_size(count, hit, concurrency, settings, evidence, notes)
            settings["block_size"] = block_size
            evidence["pool_tokens"] = f"{hit.cite()} (x block size {block_size})"
            return count * block_size
        if refusal is not None and refusal.holds is not None:
            evidence["pool_tokens"] = refusal.hit.cite()
            return refusal.holds
        return None

    def _assumed_block_size(
        self,
        count: int,
        hit: Hit,
        concurrency: Hit | None,
        settings: dict[str, Scalar],
        evidence: dict[str, str],
        notes: list[str],
    ) -> int:
        """Return blocks x the default block size, unless 'Maximum concurrency' contradicts it.

        'Maximum concurrency for N tokens per request: X.XXx' is pool / N to two decimals; when
        blocks x 16 is more than 2% off that, the block size was not the default (FlashMLA
        forces 64, hybrid models more) and the concurrency-derived pool is the better estimate.
        """
        pool = count * DEFAULT_BLOCK_SIZE
        if concurrency is not None:
            per_request = to_int(concurrency.groups[0] or "") or 0
            derived = round(float(concurrency.groups[1] or 0) * per_request)
            if derived and abs(derived - pool) > 0.02 * derived:
                notes.append(
                    f"pool derived from 'Maximum concurrency' ({concurrency.groups[1]}x "
                    f"{per_request:,} tokens): {count:,} blocks x {DEFAULT_BLOCK_SIZE} disagrees "
                    "and the block size is not in the log"
                )
                evidence["pool_tokens"] = concurrency.cite()
                return derived
        notes.append(
            f"no block size in the log; assumed vLLM's default {DEFAULT_BLOCK_SIZE} tokens "
            "per block"
        )
        settings["block_size"] = DEFAULT_BLOCK_SIZE
        evidence["pool_tokens"] = f"{hit.cite()} (x assumed block size {DEFAULT_BLOCK_SIZE})"
        return pool

    def _context(
        self,
        log: LogText,
        evidence: dict[str, str],
        refusal: Refusal | None,
    ) -> int | None:
        hit = log.find_first_of((MAX_SEQ_LEN, USING_MAX_MODEL_LEN, MAX_CONCURRENCY))
        if hit is None and refusal is not None and refusal.asked is not None:
            evidence["context_tokens"] = refusal.hit.cite()
            return refusal.asked
        if hit is None:
            hit = log.find_first_of((ARGS_MAX_MODEL_LEN, CLI_MAX_MODEL_LEN))
        if hit is None:
            return None
        evidence["context_tokens"] = hit.cite()
        return to_int(hit.value)

    def _role(
        self, log: LogText, settings: dict[str, Scalar], evidence: dict[str, str]
    ) -> Role | None:
        hit = log.find_last(KV_ROLE)
        if hit is None:
            # no KV transfer configured: a plain vLLM server serves prefill and decode itself
            return Role.AGGREGATED if log.contains(ENGINE_VERSION) else None
        settings["kv_role"] = hit.value
        evidence["role"] = hit.cite()
        return _ROLES[hit.value]

    def _settings(
        self, log: LogText, settings: dict[str, Scalar], evidence: dict[str, str]
    ) -> None:
        for key, patterns in (
            ("transfer_backend", (KV_CONNECTOR,)),
            ("gpu_memory_utilization", (GPU_MEMORY_UTILIZATION,)),
            ("model", (CONFIG_MODEL, ARGS_MODEL)),
            ("served_model_name", SERVED_NAME),
        ):
            hit = log.find_first_of(patterns)
            if hit is not None:
                settings[key] = scalar(hit.value)
                evidence[f"settings.{key}"] = hit.cite()
