"""vLLM's refusal to start (the KV cache cannot hold one request), in every wording it has had.

Each pattern cites the upstream text. Pastes re-wrap the message: across lines, sometimes with the
log prefix (``(EngineCore_DP0 pid=1) ERROR 10-21 00:35:03 [core.py:708]``, ``vllm-1  | ``, a
timestamp) repeated on every line, and re-typed ones drop the parenthesis before the GiB figure.
A refusal not found as printed is looked for again with those per-line prefixes removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assess.deploy.serverlogs.text import Hit, LogText, flex, to_int

# V0 vllm/worker/worker.py raise_if_cache_size_invalid:
#   f"The model's max seq len ({max_model_len}) is larger than the maximum number of tokens that
#   can be stored in KV cache ({max_seq_len}). Try increasing `gpu_memory_utilization` ..."
# real paste: vllm-project/vllm#10517 "... max seq len (29000) is larger than the maximum number
# of tokens that can be stored in KV cache (23648)."
REFUSAL_V0 = re.compile(
    flex("max seq len (") + r"(\d+)\)[ \t]*"
    + flex("is larger than the maximum number of tokens that can be stored in KV cache (")
    + r"(\d+)\)"
)  # fmt: skip
# V1 vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory:
#   f"To serve at least one request with the models's max seq len ({max_model_len}), "
#   f"({needed:.2f} GiB KV cache is needed, which is larger than the available KV cache memory "
#   f"({available:.2f} GiB). Based on the available memory, the estimated maximum model length is "
#   f"{estimated}. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` ..."
# (older builds say "GB" and omit the estimate; newer ones spell it "model's"). real pastes:
# vllm-project/tpu-inference#223 ("models's ... (131072), (16.00 GiB ... (0.71 GiB) ... 5632"),
# SergiioB/intel-arc-pro-b70-inference-cookbook#4 ("model's max seq len (100000), (4.26 GiB").
# Re-typed pastes drop the "(" before the GiB figure ("(131072),\n  3.79 GiB KV cache is needed")
# or the "'s" ("with the model max seq len (250000), 3.19 GiB"): both read.
_REFUSAL_V1 = (
    flex("To serve at least one request with the") + r"[ \t]*models?(?:[ \t]*'[ \t]*s)?[ \t]*"
    + flex("max seq len (") + r"(\d+)\)[ \t]*,"
    + r"[ \t]*\(?[ \t]*(\d+(?:\.\d+)?)[ \t]*GI?B[ \t]*" + flex("KV cache is needed,")
    + r"[^\n]{0,80}?" + flex("available KV cache memory (") + r"(\d+(?:\.\d+)?)[ \t]*GI?B\)"
)  # fmt: skip
_ESTIMATE = (
    r"[ \t]*\.[ \t]*" + flex("Based on the available memory, the estimated maximum model")
    + r"[ \t]*" + flex("length is") + r"[ \t]*(\d+)[ \t]*\."
)  # fmt: skip
# With the estimate first: a line wrap between the two halves must not hide the estimate.
REFUSAL_V1 = (re.compile(_REFUSAL_V1 + _ESTIMATE, re.I), re.compile(_REFUSAL_V1 + r"()", re.I))
# No memory at all for the KV cache: V0 vllm/worker/worker.py raise_if_cache_size_invalid and
# vllm/engine/llm_engine.py, V1 kv_cache_utils.py check_enough_kv_cache_memory:
#   "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when
#   initializing the engine." (V1 later adds " See https://docs.vllm.ai/en/latest/configuration/
#   conserving_memory/ for more details."; later still "... the engine (this flag also controls
#   CPU memory reservation on the CPU backend, despite its name). See ...").
# It prints no figures. real pastes: wyf3/llm_related#29, QwenLM/Qwen3#12, vllm-project/vllm#14574.
NO_KV_MEMORY = re.compile(flex("No available memory for the cache blocks"), re.I)
NO_KV_MEMORY_WORDING = "no-kv-memory"
_MENTION = re.compile(r"KV[ \t]*cache[ \t]*memory", re.I)

# One log line's prefix, as terminals, collectors and pastes repeat it on every line: a date and
# time ("2026-04-19 12:18:36.353 | ", "[2025-03-10T15:07:20Z] "), a compose service ("vllm-1  | "),
# a bare "| ", the process tag ("(EngineCore_DP0 pid=268) ": it names a letter, so a wrapped
# "(32768)," is never taken for one), "[rank0]: ", vLLM's "ERROR 10-21 00:35:03 " and
# "[core.py:708] ".
_LINE_PREFIX = re.compile(
    r"^[ \t]*(?:"
    r"\d{4}-\d\d-\d\d[T ][\d:.,]+Z?[ \t]*\|?[ \t]*"
    r"|\[\d{4}-\d\d-\d\d[T ][^\]\n]*\][ \t]*"
    r"|[\w.-]+[ \t]+\|[ \t]*"
    r"|\|[ \t]*"
    r"|\((?=[^)\n]*[A-Za-z])[\w.-]+(?:[ \t]+pid=\d+)?\)[ \t]*"
    r"|\[rank\d+\]:[ \t]*"
    r"|(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)[ \t]+\d\d-\d\d[ \t]+[\d:.]+[ \t]*"
    r"|\[[\w./-]+\.py:\d+\][ \t]*"
    r")+",
    re.M,
)


@dataclass(frozen=True)
class Refusal:
    """A refusal: the context asked, the tokens the cache holds, GiB needed / available (None when
    the wording prints none), the wording's kind and the hit."""

    asked: int | None
    holds: int | None
    needed_gib: float | None
    available_gib: float | None
    wording: str
    hit: Hit


def _deprefixed(log: LogText) -> LogText:
    """Return ``log`` with each line's log prefix removed (same lines, same numbers)."""
    return LogText(_LINE_PREFIX.sub("", log.text), log.first_line)


def find_refusal(log: LogText) -> Refusal | None:
    """Return the refusal to start in ``log``, in whichever wording it has, or None."""
    hit = log.find_last(REFUSAL_V0)
    if hit is not None:
        return Refusal(to_int(hit.groups[0] or ""), to_int(hit.groups[1] or ""), None, None,
                       "v0", hit)  # fmt: skip
    # the estimate first, in either view (a prefix must not hide it); de-prefixed only when the
    # log mentions the KV cache memory at all (a cheap test before re-writing a long log)
    views = [log, _deprefixed(log)] if _MENTION.search(log.text) else [log]
    hit = next(filter(None, (view.find_last(p) for p in REFUSAL_V1 for view in views)), None)
    if hit is not None:
        return Refusal(
            to_int(hit.groups[0] or ""),
            to_int(hit.groups[3] or ""),
            float(hit.groups[1] or 0),
            float(hit.groups[2] or 0),
            "v1",
            hit,
        )
    hit = log.find_first_of((NO_KV_MEMORY,))
    if hit is not None:
        return Refusal(None, None, None, None, NO_KV_MEMORY_WORDING, hit)
    return None
