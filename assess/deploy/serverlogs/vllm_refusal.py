"""vLLM's refusal to start (the KV cache cannot hold one request), in every wording it has had.

Each pattern cites the upstream text. Pastes re-wrap the message: across lines, sometimes with the
log prefix (``(EngineCore_DP0 pid=1) ERROR 10-21 00:35:03 [core.py:708]``, V0's
``ERROR 11-18 18:07:28 engine.py:366]``, ``vllm-1  | ``, a timestamp) repeated on every line,
under kubectl's ``[pod/NAME/CONTAINER] `` or journalctl's ``Dec 07 12:00:00 HOST UNIT[PID]: ``
when the tool that pulled the log adds one, and re-typed ones drop the parenthesis before the GiB
figure. Every wording not found as printed is looked for again with those per-line prefixes
removed.
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
# Words of the refusals, two or more per wording (a wrap that cuts one leaves another): only the
# lines near one are re-read without their prefixes. Case-sensitive single words: a cheap test on
# a long log (re.I over alternatives costs seconds on 50 MB).
_ANCHOR = re.compile(r"seq|stored|needed|available|blocks")
# The longest refusal re-wrapped in a paste spans a few lines; a window this wide either side of
# an anchor holds it whole.
_WINDOW = 8

# One log line's prefix, as terminals, collectors and pastes repeat it on every line: a date and
# time ("2026-04-19 12:18:36.353 | ", "[2025-03-10T15:07:20Z] "), a compose service ("vllm-1  | "),
# a bare "| ", the process tag ("(EngineCore_DP0 pid=268) ": it names a letter, so a wrapped
# "(32768)," is never taken for one), "[rank0]: ", vLLM's "ERROR 10-21 00:35:03 " and
# "[core.py:708] ", and V0's unbracketed file and line after the level and time. V0's format,
# vllm/logger.py (vllm-project/vllm at 00656a8e): "%(levelname)s %(asctime)s %(filename)s:
# %(lineno)d] %(message)s", date "%m-%d %H:%M:%S"; its NewLineFormatter repeats that prefix on
# every line of a message. Real V0 lines: "vllm-1  | ERROR 11-18 18:07:28 engine.py:366] ValueError:
# No available memory ..." (vllm-project/vllm#10439), "(VllmWorkerProcess pid=6499) ERROR 07-24
# 14:07:40 multiproc_worker_utils.py:226] ValueError: The model's max seq len (131072) ..."
# (vllm-project/vllm#6746), "2024-06-28T06:11:52.685300953Z (LLMRayActor pid=20770) ERROR 06-28
# 06:11:45 worker_base.py:145] ..." (OpenRLHF/OpenRLHF#336). The bracketed form is later
# ("[core.py:302]", vllm-project/vllm#14574, 2025-03).
# Before those, the prefix the tool that pulled the log puts on every line: `kubectl logs --prefix`
# ("[pod/NAME/CONTAINER] ", kubernetes staging/src/k8s.io/kubectl/pkg/cmd/logs/logs.go
# addPrefixIfNeeded: fmt.Sprintf("[pod/%s/%s] ", ref.Name, containerName), the container name
# empty when the field path names none) and journalctl's default output, "short" ("mostly
# identical to the formatting of classic syslog files", journalctl(1)): "Aug 19 18:34:27 vllm
# vllm[8727]: (EngineCore pid=8727) ERROR 08-19 18:34:27 [core.py:1349] ..." (a vLLM unit's log,
# community-scripts/ProxmoxVED#2047); "short-precise" adds microseconds to the time. Only these
# exact forms: a line that merely starts with "[word] " keeps it.
_OUTER_PREFIX = (
    r"(?:\[pod/[\w.-]+/[\w.-]*\][ \t]"
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[ \t]+\d{1,2}[ \t]+\d\d:\d\d:\d\d"
    r"(?:\.\d+)?[ \t]+[^\s\[\]:]+[ \t]+[^\s\[\]:]+(?:\[\d+\])?:[ \t]*)"
)
_VLLM_PREFIX = (
    r"(?:"
    r"\d{4}-\d\d-\d\d[T ][\d:.,]+Z?[ \t]*\|?[ \t]*"
    r"|\[\d{4}-\d\d-\d\d[T ][^\]\n]*\][ \t]*"
    r"|[\w.-]+[ \t]+\|[ \t]*"
    r"|\|[ \t]*"
    r"|\((?=[^)\n]*[A-Za-z])[\w.-]+(?:[ \t]+pid=\d+)?\)[ \t]*"
    r"|\[rank\d+\]:[ \t]*"
    r"|(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)[ \t]+\d\d-\d\d[ \t]+[\d:.]+[ \t]*"
    r"(?:[\w.-]+\.py:\d+\][ \t]*)?"
    r"|\[[\w./-]+\.py:\d+\][ \t]*"
    r")"
)
_LINE_PREFIX = re.compile(rf"^[ \t]*(?:{_OUTER_PREFIX}{_VLLM_PREFIX}*|{_VLLM_PREFIX}+)", re.M)


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


def _deprefixed(log: LogText) -> LogText | None:
    """Return ``log`` with the log prefix removed from each line near a refusal's words and every
    other line left empty (same lines, same numbers), or None when no line needs it."""
    anchors = [log.line_of(m.start()) - log.first_line for m in _ANCHOR.finditer(log.text)]
    if not anchors:
        return None
    lines = log.text.split("\n")
    keep = [False] * len(lines)
    for at in anchors:
        low, high = max(0, at - _WINDOW), min(len(lines), at + _WINDOW + 1)
        keep[low:high] = [True] * (high - low)
    text = "\n".join(
        _LINE_PREFIX.sub("", line) if near else "" for line, near in zip(lines, keep, strict=True)
    )
    return LogText(text, log.first_line)


def refusal_under_prefixes(log: LogText) -> bool:
    """Return True when a refusal is found once the per-line prefixes are removed: a paste of
    the refusal alone, re-wrapped under its prefixes, names vLLM by nothing else."""
    view = _deprefixed(log)
    return view is not None and any(view.contains(pattern) for _, pattern in _WORDINGS)


#: The wordings in the order they are tried: V0, V1 with vLLM's estimate (a prefix or a wrap must
#: not hide it), V1 without, no memory at all.
_WORDINGS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("v0", REFUSAL_V0),
    ("v1", REFUSAL_V1[0]),
    ("v1", REFUSAL_V1[1]),
    (NO_KV_MEMORY_WORDING, NO_KV_MEMORY),
)


def find_refusal(log: LogText) -> Refusal | None:
    """Return the refusal to start in ``log``, in whichever wording it has, or None. Each wording
    is looked for as printed, then with the per-line log prefixes removed."""
    stripped: LogText | None = None
    built = False
    for wording, pattern in _WORDINGS:
        hit = log.find_last(pattern)
        if hit is None:
            if not built:  # the de-prefixed view: built once, when first needed
                stripped, built = _deprefixed(log), True
            hit = stripped.find_last(pattern) if stripped is not None else None
        if hit is None:
            continue
        groups = hit.groups
        if wording == "v0":
            return Refusal(to_int(groups[0] or ""), to_int(groups[1] or ""), None, None, wording,
                           hit)  # fmt: skip
        if wording == "v1":
            return Refusal(to_int(groups[0] or ""), to_int(groups[3] or ""),
                           float(groups[1] or 0), float(groups[2] or 0), wording, hit)  # fmt: skip
        return Refusal(None, None, None, None, wording, hit)
    return None
