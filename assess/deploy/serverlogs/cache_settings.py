"""The cache-isolation settings a startup log shows, per engine, under one set of names.

Where each comes from:

- SGLang prints every flag once per launch: ``logger.info(f"{server_args=}")`` in
  python/sglang/srt/entrypoints/http_server.py and engine.py, a dataclass repr
  ``server_args=ServerArgs(model_path='...', ..., disable_radix_cache=False, ...)``. A field
  missing from a repr read to its closing parenthesis does not exist in that release (kv_canary
  came with sgl-project/sglang#26809, disaggregation_enable_kv_checksum with #39500).
- vLLM prints only what differs from the defaults: ``log_non_default_args`` in
  vllm/entrypoints/utils.py, ``non-default args: {'model': '...', 'enable_prefix_caching': True}``;
  and the effective values on the engine line (vllm/config/vllm.py ``__str__``): ``Initializing
  an LLM engine (v0.6.3) with config: model='...', ..., enable_prefix_caching=True, ...``
  (vllm-project/vllm#9532). A flag absent from the non-default args holds its default; the
  prefix cache's default differs by version and model (vllm-project/vllm#29393), so it is not
  inferred; the transfer config's (none) and the scheduling policy's ('fcfs') are the same in
  every release, so they are.

A setting the log does not show is listed in ``not_shown``: coverage, never a risk.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from assess.deploy.models import Scalar
from assess.deploy.serverlogs.pyrepr import Record, flatten, read_call, read_dict, read_pairs
from assess.deploy.serverlogs.text import Hit, LogText

SERVER_ARGS = re.compile(r"server_args[ \t]*=[ \t]*ServerArgs[ \t]*\(")
NON_DEFAULT_ARGS = re.compile(r"non-default[ \t]*args:[ \t]*(?=\{)")
ENGINE_CONFIG = re.compile(
    r"LLM[ \t]*engine[ \t]*(?:\([ \t]*v[^)\n]*\))?[ \t]*with[ \t]*config:[ \t]*"
)
# older vLLM (before log_non_default_args): "args: Namespace(subparser='serve', ...)"
NAMESPACE_ARGS = re.compile(r"(?<![\w-])args:[ \t]*Namespace[ \t]*\(")
# python/sglang/srt/mem_cache/storage/backend_factory.py: "Creating storage backend '%s' (...)"
# real paste: sgl-project/sglang#21395 "Creating storage backend 'mooncake' (sglang.srt...)"
STORAGE_BACKEND = re.compile(r"Creating[ \t]*storage[ \t]*backend[ \t]*'([\w.-]+)'")
_CLI_STORAGE = re.compile(r"--hicache-storage-backend[ \t]*[= \t][ \t]*['\"]?([\w.-]+)")
_CLI_PREFIX = re.compile(r"(?<![\w-])--(no-enable-prefix-caching|enable-prefix-caching)(?![\w-])")
# vllm serve ... --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'
# (vllm-project/vllm#21348)
_CLI_TRANSFER = re.compile(r"--kv[-_]transfer[-_]config[ \t]*[= \t][ \t]*'?(?=\{)")
_CLI_RADIX = re.compile(r"(?<![\w-])--disable-radix-cache(?![\w-])")

#: The names shown per engine, in display order (an engine lacks the others altogether).
SGLANG_NAMES = (
    "prefix_cache", "schedule_policy", "kv_canary", "kv_transfer_checksum",
    "disaggregation_mode", "kv_transfer_backend", "hierarchical_cache", "external_kv_tier",
    "cache_report", "context_length", "max_total_tokens", "mem_fraction_static",
)  # fmt: skip
VLLM_NAMES = (
    "prefix_cache", "prefix_cache_hash", "schedule_policy", "disaggregation_mode",
    "kv_transfer_backend", "external_kv_tier", "max_model_len", "gpu_memory_utilization",
)  # fmt: skip
#: vLLM connectors that keep KV outside the GPU, keyed by tokens (LMCache, Mooncake store,
#: vLLM's own CPU offloading); the others only move KV between prefill and decode.
EXTERNAL_CONNECTORS = ("lmcache", "mooncakestore", "offloading", "hf3fs", "kvbm")


#: Our name -> the engine's field, where the value is taken as printed.
_SGLANG_KEYS = {
    "schedule_policy": "schedule_policy",
    "kv_canary": "kv_canary",
    "kv_transfer_checksum": "disaggregation_enable_kv_checksum",
    "disaggregation_mode": "disaggregation_mode",
    "hierarchical_cache": "enable_hierarchical_cache",
    "cache_report": "enable_cache_report",
    "context_length": "context_length",
    "max_total_tokens": "max_total_tokens",
    "mem_fraction_static": "mem_fraction_static",
}
_VLLM_KEYS = {
    "prefix_cache": "enable_prefix_caching",
    "prefix_cache_hash": "prefix_caching_hash_algo",
    "schedule_policy": "scheduling_policy",
    "disaggregation_mode": "kv_transfer_config.kv_role",
    "kv_transfer_backend": "kv_transfer_config.kv_connector",
    "max_model_len": "max_model_len",
    "gpu_memory_utilization": "gpu_memory_utilization",
}


@dataclass
class CacheSettings:
    """What one launch's log shows: values by name, the line each came from, what is missing."""

    values: dict[str, Scalar] = field(default_factory=dict)
    evidence: dict[str, str] = field(default_factory=dict)
    source: str | None = None
    notes: list[str] = field(default_factory=list)
    #: The engine's own flags as read (dotted for nested records), the line of each, and whether
    #: a flag missing from them is known not to be set (a whole ServerArgs or Namespace repr: the
    #: release lacks it; vLLM's whole non-default args: it holds its default).
    raw: dict[str, Scalar] = field(default_factory=dict)
    raw_lines: dict[str, str] = field(default_factory=dict)
    raw_whole: bool = False

    def node_fields(self, engine: str) -> dict[str, Any]:
        """The ``ParsedServerLog`` fields these readings fill, for ``engine`` (one place for
        both engines' readers)."""
        return {
            "cache_settings": ordered(engine, self.values),
            "cache_settings_not_shown": not_shown(engine, self.values),
            "cache_settings_source": self.source,
            "engine_args": self.raw,
            "engine_arg_lines": self.raw_lines,
            "engine_args_whole": self.raw_whole,
        }

    def take(self, args: Mapping[str, Scalar], hit: Hit, line: str = "") -> None:
        """Keep the engine's flags ``args`` read from ``hit`` (first reading wins).

        ``line`` names a long record briefly ('line 21: server_args=ServerArgs(...)'); by
        default the hit's own excerpt is cited.
        """
        for key, value in args.items():
            if key not in self.raw:
                self.raw[key] = value
                self.raw_lines[key] = f"line {hit.line}: {line}" if line else hit.cite()

    def put(self, name: str, value: Scalar, hit: Hit, how: str = "") -> None:
        """Record ``name`` (first reading wins) with the line it was read from."""
        if name not in self.values:
            self.values[name] = value
            self.evidence[f"cache_settings.{name}"] = hit.cite() + how


def _record(
    log: LogText, pattern: re.Pattern[str], reader: Callable[[str], Record]
) -> tuple[dict[str, Scalar], bool, Hit] | None:
    """Return the flattened record after ``pattern``, whether it was read whole, and its line."""
    found = log.record_after(pattern)
    if found is None:
        return None
    text, hit = found
    record = reader(text)
    return flatten(record.values), record.complete, hit


def _copy(a: Mapping[str, Scalar], keys: Mapping[str, str], hit: Hit, out: CacheSettings) -> None:
    for name, key in keys.items():
        if key in a:
            out.put(name, a[key], hit)


def read_sglang(log: LogText, whole: LogText) -> CacheSettings:
    """Return the settings of SGLang's ``server_args=ServerArgs(...)`` line in ``log``."""
    out = CacheSettings()
    found = _record(log, SERVER_ARGS, read_call)
    if found is not None:
        args, complete, hit = found
        out.source = "server_args"
        if not complete:
            out.notes.append(
                f"the server_args line is cut short after {len(args)} fields; the settings "
                "after the cut are not shown in this log"
            )
        _sglang_values(args, hit, out, complete)
        out.take(args, hit, "server_args=ServerArgs(...)")
        out.raw_whole = complete
    _sglang_lines(whole, out)
    return out


def _sglang_values(a: dict[str, Scalar], hit: Hit, out: CacheSettings, complete: bool) -> None:
    if "disable_radix_cache" in a:
        out.put("prefix_cache", not a["disable_radix_cache"], hit, " (disable_radix_cache)")
    _copy(a, _SGLANG_KEYS, hit, out)
    mode = a.get("disaggregation_mode")
    if mode in ("prefill", "decode") and "disaggregation_transfer_backend" in a:
        out.put("kv_transfer_backend", a["disaggregation_transfer_backend"], hit)
    elif "disaggregation_mode" in a:
        out.put("kv_transfer_backend", None, hit, " (not disaggregated)")
    if a.get("enable_lmcache"):
        out.put("external_kv_tier", "lmcache", hit, " (enable_lmcache)")
    elif a.get("enable_hierarchical_cache") and "hicache_storage_backend" in a:
        out.put("external_kv_tier", a["hicache_storage_backend"], hit, " (hicache_storage_backend)")
    elif "enable_hierarchical_cache" in a and ("enable_lmcache" in a or complete):
        # a whole repr without enable_lmcache is a release without it
        out.put("external_kv_tier", None, hit)


def _sglang_lines(log: LogText, out: CacheSettings) -> None:
    """Settings other lines show: the storage backend created, a command line's flags."""
    hit = log.find_last(STORAGE_BACKEND) or log.find_last(_CLI_STORAGE)
    if hit is not None:
        out.put("external_kv_tier", hit.value, hit)
        out.put("hierarchical_cache", True, hit)
        out.take({"hicache_storage_backend": hit.value, "enable_hierarchical_cache": True}, hit)
    radix = log.find_last(_CLI_RADIX)
    if radix is not None:
        out.put("prefix_cache", False, radix, " (--disable-radix-cache on the command line)")
        out.take({"disable_radix_cache": True}, radix)


def read_vllm(log: LogText, whole: LogText) -> CacheSettings:
    """Return the settings of vLLM's engine config, non-default args and Namespace lines."""
    out = CacheSettings()
    sources = []
    engine = _record(log, ENGINE_CONFIG, read_pairs)
    if engine is not None:
        args, _, hit = engine
        sources.append("engine config")
        _vllm_values(args, hit, out)
        out.take(args, hit, "the engine's config line")
    for pattern, reader, label in (
        (NON_DEFAULT_ARGS, read_dict, "non-default args"),
        (NAMESPACE_ARGS, read_call, "args: Namespace"),
    ):
        found = _record(whole, pattern, reader)
        if found is None:
            continue
        args, complete, hit = found
        sources.append(label)
        _vllm_values(args, hit, out)
        out.take(args, hit, label)
        out.raw_whole = out.raw_whole or complete
        if label == "non-default args" and complete:
            _vllm_defaults(args, hit, out)
    cli = _record(whole, _CLI_TRANSFER, read_dict)
    if cli is not None:
        args, _, hit = cli
        transfer = {f"kv_transfer_config.{k}": v for k, v in args.items()}
        _vllm_values(transfer, hit, out)
        out.take(transfer, hit)
    flag = whole.find_last(_CLI_PREFIX)
    if flag is not None:
        out.put("prefix_cache", flag.value == "enable-prefix-caching", flag, " (command line)")
        out.take({"enable_prefix_caching": flag.value == "enable-prefix-caching"}, flag)
    out.source = " + ".join(sources) or None
    return out


def _vllm_values(a: dict[str, Scalar], hit: Hit, out: CacheSettings) -> None:
    _copy(a, _VLLM_KEYS, hit, out)
    connector = a.get("kv_transfer_config.kv_connector")
    if isinstance(connector, str) and any(
        tier in connector.lower() for tier in EXTERNAL_CONNECTORS
    ):
        out.put("external_kv_tier", connector, hit, " (kv_connector)")
    if a.get("kv_offloading_backend"):
        out.put("external_kv_tier", a["kv_offloading_backend"], hit, " (kv_offloading_backend)")


def _vllm_defaults(a: dict[str, Scalar], hit: Hit, out: CacheSettings) -> None:
    """Settings whose default is the same in every vLLM release, absent from non-default args."""
    how = " (default: not among the non-default args)"
    if not any(key.startswith("kv_transfer_config") for key in a):
        out.put("disaggregation_mode", None, hit, how)
        out.put("kv_transfer_backend", None, hit, how)
        if "kv_offloading_backend" not in a:
            out.put("external_kv_tier", None, hit, how)
    out.put("schedule_policy", "fcfs", hit, how)


def _names(engine: str) -> tuple[str, ...]:
    return SGLANG_NAMES if engine == "sglang" else VLLM_NAMES if engine == "vllm" else ()


def not_shown(engine: str, values: Mapping[str, Scalar]) -> list[str]:
    """Return the engine's setting names the log did not show."""
    return [name for name in _names(engine) if name not in values]


def ordered(engine: str, values: Mapping[str, Scalar]) -> dict[str, Scalar]:
    """Return ``values`` in the engine's display order."""
    return {name: values[name] for name in _names(engine) if name in values}
