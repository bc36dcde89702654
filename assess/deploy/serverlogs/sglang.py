"""SGLang startup logs (``python -m sglang.launch_server`` / ``sglang serve``).

Every pattern says where its format comes from. None is anchored to a line start (prefixes vary),
and every space is ``[ \\t]*`` so a value wrapped across lines is found in the joined view.
"""

from __future__ import annotations

import re

from assess.deploy.models import ParsedServerLog, Role, Scalar
from assess.deploy.serverlogs.cache_settings import read_sglang
from assess.deploy.serverlogs.interface import (
    VERSION,
    ServerLogParser,
    normalise_version,
    smallest,
)
from assess.deploy.serverlogs.text import LogText, flex, keyed, to_int

_M = re.M

# python/sglang/srt/entrypoints/http_server.py (launch_server): logger.info(f"{server_args=}"),
# printed as "server_args=ServerArgs(model_path='...', ...)"; real paste: sgl-project/sglang#7883.
# Each startup prints it once, so it also marks where the last (re)start begins.
STARTUP = re.compile(r"server_args[ \t]*=[ \t]*ServerArgs[ \t]*\(")

# python/sglang/srt/managers/scheduler.py (Scheduler.__init__, "Print debug info", tp_rank 0):
#   f"max_total_num_tokens={self.max_total_num_tokens}, chunked_prefill_size=..., "
#   f"max_prefill_tokens=..., max_running_requests=..., context_len={...context_len}, "
#   f"available_gpu_mem={avail_mem:.2f} GB"
# real paste: sgl-project/sglang#21395 "max_total_num_tokens=105600, chunked_prefill_size=4096,
# max_prefill_tokens=16384, max_running_requests=2048, context_len=40960, available_gpu_mem=...".
# Values followed by their comma come first, so a number cut by a line wrap is never read short;
# older releases end the line at context_len, and bug reports paste the values as a listing
# ("- max_total_num_tokens=284928", "context_len: 1048576", "**context_len**: `1048576`",
# sgl-project/sglang#30233), which the second pattern accepts (value last on its line or before
# a separator). Neither is anchored to a line start.
MAX_TOTAL_NUM_TOKENS = (
    re.compile(r"(?<![\w])max_total_num_tokens[ \t]*=[ \t]*(\d+)[ \t]*,"),
    keyed("max_total_num_tokens"),
)
CONTEXT_LEN = (
    re.compile(r"(?<![\w])context_len[ \t]*=[ \t]*(\d+)[ \t]*,"),
    keyed("context_len"),
)
# Hybrid sliding-window pools (sgl-project/sglang#24523: "DSv4 memory calculation: ...,
# full_token=186368", swa_max_total_num_tokens): a prefill node admits min(max_total_num_tokens,
# swa_max_total_num_tokens), so these alone are never taken as the pool.
_SWA_ONLY = re.compile(r"swa_max_total_num_tokens[ \t]*[=:]|(?<![\w])full_token[ \t]*=")
# Role in a listing or any paste ("- disaggregation_mode=prefill", "disaggregation_mode: decode").
_LISTED_MODE = keyed("disaggregation_mode", r"(prefill|decode|null)\b")

# python/sglang/srt/mem_cache/memory_pool.py (MHATokenToKVPool.__init__):
#   f"KV Cache is allocated. #tokens: {size}, K size: {k_size / GB:.2f} GB, V size: ... GB"
# MLA pools print "#tokens: N, KV size: X GB"; some builds insert "dtype: ..., " before #tokens.
# real pastes: sgl-project/sglang#21395 ("#tokens: 105600, K size: 7.26 GB, V size: 7.26 GB"),
# "[2025-11-04 05:27:13 DP0 TP0 EP0] KV Cache is allocated. #tokens: 524288, KV size: 17.16 GB".
KV_ALLOCATED = re.compile(
    flex("KV Cache is allocated.") + r"[^\n]{0,80}?#?[ \t]*tokens[ \t]*:[ \t]*(\d+)[ \t]*,"
)

# Version. SGLang's startup log does not print its own version (server_args has no version
# field; it is only served by /get_server_info, sgl-project/sglang#2206). We read it where
# operators' logs carry it: `python3 -m sglang.check_env` ("sglang: 0.5.21"), pip freeze
# ("sglang==0.5.21", "sglang[all]==0.5.21"), the image tag ("lmsysorg/sglang:v0.5.21-cu129"),
# and "SGLang version: 0.5.21" lines that launch scripts print.
VERSIONS = (
    re.compile(r"(?<![\w./-])sglang(?:\[[\w,]+\])?[ \t]*(?:==|:)[ \t]*" + VERSION, re.I),
    re.compile(r"lmsysorg/sglang:" + VERSION),
    re.compile(r"sglang[ \t]+version[ \t]*[:=]?[ \t]*" + VERSION, re.I),
)

# Command-line echo (set -x, k8s manifests pasted with the log): used only when the
# server_args printout is missing (e.g. a log whose head was cut off).
_CLI_CONTEXT = re.compile(r"--context-length[ \t]*[= \t][ \t]*(\d+)")
_CLI_MODE = re.compile(r"--disaggregation-mode[ \t]*[= \t][ \t]*(prefill|decode|null)")

# Environment variables of the article's isolation settings, as entrypoints echo them
# (`export X=1`, `env | grep SGLANG`): sgl-project/sglang#35049 and #32758.
_ENV = {
    "deferred_kv_release": re.compile(
        r"SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE[ \t]*=[ \t]*['\"]?([\w.]+)"
    ),
    "mooncake_max_transfer_batch_indices": re.compile(
        r"SGLANG_MOONCAKE_MAX_TRANSFER_BATCH_INDICES[ \t]*=[ \t]*['\"]?(\d+)"
    ),
}

# server_args fields read into a node's settings (ServerArgs field -> our settings key).
# disaggregation_enable_kv_checksum: sgl-project/sglang#39500; kv_canary: #26809 (takes a mode
# such as 'raise'; None when off).
_SETTINGS = {
    "disaggregation_transfer_backend": "transfer_backend",
    "mem_fraction_static": "mem_fraction_static",
    "disaggregation_enable_kv_checksum": "kv_checksum",
    "kv_canary": "kv_canary",
    "max_total_tokens": "max_total_tokens",
    "page_size": "page_size",
    "tp_size": "tp_size",
    "dp_size": "dp_size",
    "kv_cache_dtype": "kv_cache_dtype",
    "model_path": "model",
    "served_model_name": "served_model_name",
}
_ROLES = {"prefill": Role.PREFILL, "decode": Role.DECODE, "null": Role.AGGREGATED}
# server_args is one (often wrapped) record of ~5-15k characters right after the marker; its keys
# are looked up in this span only, which keeps a long log fast.
_ARGS_SPAN = 64_000


def server_arg(key: str) -> re.Pattern[str]:
    """Return a pattern for ``key=value`` (ServerArgs repr) or ``'key': value`` (dict dumps)."""
    value = r"('(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|[^,()\s{}]+)"
    name = rf"(?:(?<![\w.'\"]){key}|'{key}'|\"{key}\")"
    return re.compile(rf"{name}[ \t]*[=:][ \t]*{value}(?=[ \t]*[,)}}])")


def scalar(raw: str) -> Scalar:
    """Return a printed Python value as a scalar ('0.82' -> 0.82, 'False' -> False, 'None')."""
    text = raw.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    number = to_int(text)
    if number is not None and "," not in text:
        return number
    try:
        return float(text)
    except ValueError:
        return text


class SGLangParser(ServerLogParser):
    """SGLang: pool from max_total_num_tokens / KV Cache is allocated, role from server_args."""

    engine = "sglang"
    launch_markers = (STARTUP,)
    signatures = (
        (STARTUP, 5),
        (re.compile(r"(?<![\w])max_total_num_tokens[`*'\"]*[ \t]*[=:]"), 5),
        (re.compile(r"KV Cache is allocated"), 3),
        (_SWA_ONLY, 3),
        (re.compile(r"The server is fired up and ready to roll"), 3),
        (re.compile(r"sglang", re.I), 1),
    )

    def parse(self, log: LogText) -> ParsedServerLog:
        """Return what an SGLang log says about the last startup in it."""
        notes: list[str] = []
        evidence: dict[str, str] = {}
        last, startups = log.last_startup([STARTUP])
        if startups > 1:
            notes.append(f"the log shows {startups} startups; the last one is used")
        args = LogText(last.text[:_ARGS_SPAN], last.first_line) if startups else last
        # one launch: lines pasted before its server_args line (KV lines first) belong to it
        last = log if startups == 1 else last
        settings = self._settings(args, log, evidence)
        cache = read_sglang(args, last)
        pool = self._pool(last, evidence, notes)
        context = self._context(last, args, evidence, notes)
        role = self._role(args, last, evidence)
        version = None
        hit = log.find_first_of(VERSIONS)
        if hit is not None:
            version = normalise_version(hit.value, notes)
            evidence["version"] = hit.cite()
        if pool is None and last.contains(_SWA_ONLY):
            notes.append(
                "only the hybrid SWA pool figures (swa_max_total_num_tokens / full_token) are in "
                "the log; the pool that admits requests can be smaller than either, so it is not "
                "guessed: find the 'max_total_num_tokens=' line"
            )
        if startups and pool is None:
            notes.append("the log stops before the KV cache was allocated (truncated or crashed?)")
        return ParsedServerLog(
            engine="sglang",
            version=version,
            role=role,
            pool_tokens=pool,
            context_tokens=context,
            settings=settings,
            evidence=evidence | cache.evidence,
            **cache.node_fields("sglang"),
            hints={
                "pool_tokens": "a line 'max_total_num_tokens=N, ...' or 'KV Cache is allocated. "
                "#tokens: N, ...' (printed once the weights are loaded)",
                "context_tokens": "'context_len=N' on the max_total_num_tokens line, or "
                "'context_length=N' in server_args=ServerArgs(...)",
                "version": "'sglang: X.Y.Z' from `python3 -m sglang.check_env`, 'sglang==X.Y.Z' "
                "or the image tag 'lmsysorg/sglang:vX.Y.Z' (SGLang does not log its version)",
            },
            notes=notes + cache.notes,
        )

    def _pool(self, log: LogText, evidence: dict[str, str], notes: list[str]) -> int | None:
        for pattern in (*MAX_TOTAL_NUM_TOKENS, KV_ALLOCATED):
            value, hit = smallest(log.find_all(pattern), 0, notes, "the KV pool size")
            if value is not None and hit is not None:
                evidence["pool_tokens"] = hit.cite()
                return value
        return None

    def _context(
        self, log: LogText, args: LogText, evidence: dict[str, str], notes: list[str]
    ) -> int | None:
        hit = log.find_first_of(CONTEXT_LEN)
        configured = args.find_last(server_arg("context_length"))
        if hit is None:
            hit = configured if configured and to_int(configured.value) else None
        if hit is None:
            hit = log.find_last(_CLI_CONTEXT)
        if hit is None:
            return None
        evidence["context_tokens"] = hit.cite()
        if configured and to_int(configured.value) not in (None, to_int(hit.value)):
            notes.append(
                f"server_args asked for context_length={configured.value}, the scheduler serves "
                f"context_len={hit.value}"
            )
        return to_int(hit.value)

    def _role(self, args: LogText, log: LogText, evidence: dict[str, str]) -> Role | None:
        hit = (
            args.find_last(server_arg("disaggregation_mode"))
            or log.find_last(_CLI_MODE)
            or log.find_last(_LISTED_MODE)
        )
        if hit is None:
            return None
        mode = str(scalar(hit.value)).lower()
        evidence["role"] = hit.cite()
        return _ROLES.get(mode, Role.UNKNOWN)

    def _settings(
        self, last: LogText, whole: LogText, evidence: dict[str, str]
    ) -> dict[str, Scalar]:
        settings: dict[str, Scalar] = {}
        for field, key in _SETTINGS.items():
            hit = last.find_last(server_arg(field))
            if hit is not None:
                settings[key] = scalar(hit.value)
                evidence[f"settings.{key}"] = hit.cite()
        for key, pattern in _ENV.items():  # exported before the launch: read the whole log
            hit = whole.find_last(pattern)
            if hit is not None:
                settings[key] = scalar(hit.value)
                evidence[f"settings.{key}"] = hit.cite()
        return settings
