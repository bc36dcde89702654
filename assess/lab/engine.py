"""A toy disaggregated inference engine with a shared paged KV cache (pure, no HTTP).

It reproduces the GLM-5.3 leak mechanism from the incident write-up in miniature:

* KV memory is split into fixed-size pages; a free list hands them out and takes them back
  **without zeroing them** (as SGLang does: bookkeeping, not wiped memory, keeps tenants apart).
* Prefill runs on a pool of ``pool_tokens``; decode on a pool sized for the advertised
  ``context_tokens``. When the prefill pool is smaller than the context window, a prompt can be
  accepted by the API yet not fit the prefill pool.
* Faulty mode (the disaggregation admission bug): such an over-length prompt is replaced by a
  one-token placeholder but not retired; decode still allocates pages for the whole prompt and
  attends over all of its positions, reading whatever earlier requests left there. The reply
  carries their words, with HTTP 200.
* Fixed mode (like SGLang 0.5.22): the over-length prompt is retired at admission with an error
  before any page is allocated.

The "model" is deterministic: it replies with the most salient distinct tokens (longest first,
ties by position) among the tokens it attends over, in their original order. Long random markers
are therefore always echoed when they are in view, which is what makes the leak observable.
"""

from __future__ import annotations

import hashlib
import math
import threading
from dataclasses import dataclass, field, replace

from assess.lab.prefix_cache import LatencyModel, PrefixCache, PrefixCacheMode

PLACEHOLDER = "<placeholder>"


@dataclass(frozen=True)
class LabConfig:
    """How the lab engine is sized and which fault is active.

    Attributes:
        page_tokens: tokens per KV page.
        pool_tokens: size of the prefill KV pool (the one the incident had too small).
        context_tokens: advertised context window; the decode pool is sized for it.
        fixed: retire over-length prompts at admission (HTTP 400) instead of the buggy path.
        model: the model id the lab serves.
        reply_tokens: most tokens a reply carries (a request's ``max_tokens`` can lower it).
        api_keys: when set, only these bearer keys are accepted; otherwise any non-empty key
            is a tenant.
        prefix_cache: None (no cache, no modelled latency: the lab as it always was), or how
            cached prompt pages are reused: ``shared``, ``per-key`` or ``off``.
        latency: the modelled prefill time when ``prefix_cache`` is set.
        report_cached_tokens: answer with ``usage.prompt_tokens_details.cached_tokens``.
    """

    page_tokens: int = 16
    pool_tokens: int = 256
    context_tokens: int = 512
    fixed: bool = False
    model: str = "lab-glm-5.3"
    reply_tokens: int = 24
    api_keys: frozenset[str] | None = None
    prefix_cache: PrefixCacheMode | None = None
    latency: LatencyModel = field(default_factory=LatencyModel)
    report_cached_tokens: bool = False

    def __post_init__(self) -> None:
        if self.page_tokens < 1 or self.pool_tokens < self.page_tokens:
            raise ValueError("page_tokens must be >= 1 and pool_tokens >= page_tokens")
        if self.context_tokens < 1 or self.reply_tokens < 1:
            raise ValueError("context_tokens and reply_tokens must be >= 1")

    @property
    def faulty(self) -> bool:
        """True when over-length prompts take the buggy admission path."""
        return not self.fixed and self.pool_tokens < self.context_tokens


class PoolExhausted(Exception):
    """Not enough free pages for an allocation."""


@dataclass
class PagePool:
    """Fixed-size KV pages with a LIFO free list; released pages keep their contents.

    A slot that was never written holds ``None`` (fresh memory); a released page keeps every
    token it held until another request overwrites that slot.
    """

    name: str
    n_pages: int
    page_tokens: int
    slots: list[list[str | None]] = field(init=False)
    owners: list[str | None] = field(init=False)
    writers: list[list[str | None]] = field(init=False)
    free: list[int] = field(init=False)

    def __post_init__(self) -> None:
        self.slots = [[None] * self.page_tokens for _ in range(self.n_pages)]
        self.owners = [None] * self.n_pages
        self.writers = [[None] * self.page_tokens for _ in range(self.n_pages)]
        # stack: pop() hands out page 0 first; released pages are reused first
        self.free = list(reversed(range(self.n_pages)))

    @property
    def free_pages(self) -> int:
        """Return how many pages are on the free list."""
        return len(self.free)

    def pages_for(self, tokens: int) -> int:
        """Return how many pages ``tokens`` positions need."""
        return max(1, math.ceil(tokens / self.page_tokens))

    def allocate(self, n: int, tenant: str) -> list[int]:
        """Take ``n`` pages off the free list for ``tenant``; their contents are untouched.

        Raises:
            PoolExhausted: when fewer than ``n`` pages are free.
        """
        if n > len(self.free):
            raise PoolExhausted(f"{self.name}: {n} pages wanted, {len(self.free)} free")
        pages = [self.free.pop() for _ in range(n)]
        for page in pages:
            self.owners[page] = tenant
        return pages

    def release(self, pages: list[int]) -> None:
        """Return ``pages`` to the free list without zeroing them (the next taker sees them)."""
        self.free.extend(reversed(pages))

    def write(self, pages: list[int], tokens: list[str], tenant: str) -> None:
        """Write ``tokens`` into consecutive slots of ``pages`` starting at position 0."""
        for pos, token in enumerate(tokens):
            page, slot = divmod(pos, self.page_tokens)
            self.slots[pages[page]][slot] = token
            self.writers[pages[page]][slot] = tenant

    def read(self, pages: list[int], length: int) -> list[tuple[str, str]]:
        """Return ``(writer, token)`` for the first ``length`` positions that hold anything."""
        out: list[tuple[str, str]] = []
        for pos in range(length):
            page, slot = divmod(pos, self.page_tokens)
            token = self.slots[pages[page]][slot]
            if token is not None:
                out.append((self.writers[pages[page]][slot] or "?", token))
        return out


def tokenize(text: str) -> list[str]:
    """Split ``text`` into the lab's tokens: whitespace-separated words."""
    return text.split()


def tenant_id(api_key: str) -> str:
    """Return a short, non-reversible tenant label for ``api_key`` (never the key itself)."""
    return "t-" + hashlib.sha256(api_key.encode("utf-8")).hexdigest()[:8]


def toy_reply(attended: list[str], limit: int) -> list[str]:
    """Return the ``limit`` most salient distinct tokens of ``attended`` in their order.

    Salience is token length (longer first), ties broken by earlier position; the placeholder
    token is never said.
    """
    first_pos: dict[str, int] = {}
    for pos, token in enumerate(attended):
        if token != PLACEHOLDER and token not in first_pos:
            first_pos[token] = pos
    ranked = sorted(first_pos, key=lambda t: (-len(t), first_pos[t]))[:limit]
    return sorted(ranked, key=first_pos.__getitem__)


class LabRejected(Exception):
    """The engine refuses a request (an HTTP 400 in the server)."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass(frozen=True)
class Completion:
    """What the engine produced for one request.

    Attributes:
        reply: the reply text.
        prompt_tokens: tokens in the submitted prompt.
        completion_tokens: tokens in the reply.
        over_length: the prompt did not fit the prefill pool.
        stale_tokens: tokens read from pages written by earlier requests.
        stale_tenants: tenants (hashed labels) whose pages were read.
        cached_tokens: prompt tokens served from the prefix cache (None without a cache).
        delay_ms: the modelled prefill time the server waits before answering.
    """

    reply: str
    prompt_tokens: int
    completion_tokens: int
    over_length: bool
    stale_tokens: int
    stale_tenants: tuple[str, ...]
    cached_tokens: int | None = None
    delay_ms: float = 0.0


class LabEngine:
    """The shared engine: one prefill pool, one decode pool, one request at a time."""

    def __init__(self, config: LabConfig) -> None:
        self.config = config
        page = config.page_tokens
        self.prefill = PagePool("prefill", config.pool_tokens // page, page)
        self.decode = PagePool("decode", math.ceil(config.context_tokens / page), page)
        self._lock = threading.Lock()
        self.requests = 0
        self.leaky_replies = 0
        self.prefix_cache = (
            None
            if config.prefix_cache is None
            else PrefixCache(config.prefix_cache, page, config.latency)
        )

    def complete(self, tenant: str, prompt: str, max_tokens: int | None = None) -> Completion:
        """Run one request for ``tenant`` and return its completion.

        Raises:
            LabRejected: when the prompt exceeds the context window, or (fixed mode) the prefill
                pool; nothing is allocated in either case.
        """
        cfg = self.config
        tokens = tokenize(prompt)
        n = len(tokens)
        if n > cfg.context_tokens:
            raise LabRejected(
                f"This model's maximum context length is {cfg.context_tokens} tokens; "
                f"the prompt has {n} tokens.",
                "context_length_exceeded",
            )
        over_length = n > self.prefill.n_pages * cfg.page_tokens
        if over_length and not cfg.faulty:
            raise LabRejected(
                f"The prompt has {n} tokens but the KV pool holds "
                f"{self.prefill.n_pages * cfg.page_tokens}; the request was retired at admission.",
                "prompt_exceeds_kv_pool",
            )
        limit = min(cfg.reply_tokens, max_tokens or cfg.reply_tokens)
        with self._lock:
            self.requests += 1
            done = self._run(tenant, tokens, over_length, limit)
        if self.prefix_cache is None:
            return done
        outcome = self.prefix_cache.admit(tenant, tokens)
        return replace(done, cached_tokens=outcome.cached_tokens, delay_ms=outcome.delay_ms)

    def _run(self, tenant: str, tokens: list[str], over_length: bool, limit: int) -> Completion:
        n = len(tokens)
        # Prefill: the buggy path swaps an over-length prompt for a one-token placeholder...
        prefill_tokens = [PLACEHOLDER] if over_length else tokens
        pre_pages = self.prefill.allocate(self.prefill.pages_for(len(prefill_tokens)), tenant)
        self.prefill.write(pre_pages, prefill_tokens, tenant)
        # ...but never retires the request: decode sizes its pages for the whole prompt,
        # receives only what prefill computed, and attends over all n positions.
        dec_pages = self.decode.allocate(self.decode.pages_for(n), tenant)
        self.decode.write(dec_pages, prefill_tokens, tenant)
        self.prefill.release(pre_pages)
        attended = self.decode.read(dec_pages, n)
        self.decode.release(dec_pages)
        fresh = len(prefill_tokens)
        stale = attended[fresh:]
        stale_tenants = sorted({writer for writer, _ in stale})
        reply = toy_reply([t for _, t in attended], limit)
        if stale:
            self.leaky_replies += 1
        return Completion(
            reply=" ".join(reply),
            prompt_tokens=n,
            completion_tokens=len(reply),
            over_length=over_length,
            stale_tokens=len(stale),
            stale_tenants=tuple(stale_tenants),
        )
