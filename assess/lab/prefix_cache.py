"""The lab's prompt prefix cache and its prefill-latency model (pure; the server sleeps).

Real engines (vLLM's automatic prefix caching, SGLang's radix cache, llama.cpp's prompt cache)
keep the KV pages of a prompt's prefix and skip prefill for them when a later prompt starts with
the same tokens. The second request is then faster, and providers often report the skipped part
as ``usage.prompt_tokens_details.cached_tokens``. Whose requests may reuse whose pages is the
isolation question (Gu et al., "Auditing Prompt Caching in Language Model APIs", ICML 2025):

* ``shared``: any tenant's prompt reuses pages another tenant's prompt left (the leak);
* ``per-key``: pages are keyed by a ``cache_salt`` derived from the API key, as vLLM does since
  CVE-2025-46570, so reuse happens only within one key;
* ``off``: nothing is ever reused.

Pages are whole: a prompt's cached prefix is the run of its leading full pages whose chained
hash (salt, every token so far) is in the cache. Latency is modelled in milliseconds:
``base + per_token * uncached tokens + noise`` with seeded uniform noise, so runs repeat.
"""

from __future__ import annotations

import hashlib
import random
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal

PrefixCacheMode = Literal["shared", "per-key", "off"]
PREFIX_CACHE_MODES: tuple[PrefixCacheMode, ...] = ("shared", "per-key", "off")


@dataclass(frozen=True)
class LatencyModel:
    """Modelled prefill time of one request, in milliseconds.

    Attributes:
        base_ms: fixed cost of any request (scheduling, the first decode step).
        per_token_ms: prefill cost of each token not served from the cache.
        noise_ms: width of the uniform noise added to every request (0 = none).
        seed: seed of the noise, so a run's latencies repeat.
    """

    base_ms: float = 1.0
    per_token_ms: float = 0.05
    noise_ms: float = 1.0
    seed: int = 0

    def __post_init__(self) -> None:
        if min(self.base_ms, self.per_token_ms, self.noise_ms) < 0:
            raise ValueError("latency figures must be >= 0 ms")


@dataclass(frozen=True)
class CacheOutcome:
    """What the cache did for one prompt: tokens reused and the modelled prefill time."""

    cached_tokens: int
    delay_ms: float


class PrefixCache:
    """A bounded LRU cache of prompt pages, keyed by a chained hash of (salt, tokens)."""

    def __init__(
        self,
        mode: PrefixCacheMode,
        page_tokens: int,
        latency: LatencyModel,
        max_pages: int = 65536,
    ) -> None:
        if mode not in PREFIX_CACHE_MODES:
            raise ValueError(f"prefix cache mode must be one of {', '.join(PREFIX_CACHE_MODES)}")
        self.mode = mode
        self.page_tokens = page_tokens
        self.latency = latency
        self.max_pages = max_pages
        self._pages: OrderedDict[bytes, None] = OrderedDict()
        self._rng = random.Random(latency.seed)
        self._lock = threading.Lock()

    def salt_for(self, tenant: str) -> str:
        """Return the ``cache_salt`` of ``tenant``: one for all in shared mode, else its own."""
        return "" if self.mode == "shared" else tenant

    def _page_hashes(self, salt: str, tokens: list[str]) -> list[bytes]:
        hashes: list[bytes] = []
        digest = hashlib.sha256(salt.encode("utf-8")).digest()
        for start in range(0, len(tokens) - self.page_tokens + 1, self.page_tokens):
            page = "\x00".join(tokens[start : start + self.page_tokens]).encode("utf-8")
            digest = hashlib.sha256(digest + b"\x01" + page).digest()
            hashes.append(digest)
        return hashes

    def admit(self, tenant: str, tokens: list[str]) -> CacheOutcome:
        """Look up and then store ``tokens``' full pages for ``tenant``; return the outcome."""
        with self._lock:
            cached = 0
            if self.mode != "off":
                hashes = self._page_hashes(self.salt_for(tenant), tokens)
                for digest in hashes:
                    if digest not in self._pages:
                        break
                    cached += self.page_tokens
                for digest in hashes:
                    self._pages[digest] = None
                    self._pages.move_to_end(digest)
                while len(self._pages) > self.max_pages:
                    self._pages.popitem(last=False)
            noise = self._rng.uniform(0.0, self.latency.noise_ms)
        lat = self.latency
        delay = lat.base_ms + lat.per_token_ms * (len(tokens) - cached) + noise
        return CacheOutcome(cached, round(delay, 3))
