"""What the customer can prove itself: over-length responses matched against its own earlier
prompts by word n-gram overlap, per pair (docs/exposure.md "What we can prove ourselves").

A response to an over-trigger request was written from the stale pool: text it shares with an
earlier prompt of ours (a request of the source set S) is that prompt leaking. Each text is cut
into lower-case words (each CJK character one word), hashed as word 8-grams and reduced to its
winnowed fingerprints (the smallest hash of every 8 consecutive 8-grams; Schleimer, Wilkerson
and Aiken, SIGMOD 2003): a run of ``n - 1 + w * k`` words copied from a prompt always shares at
least k fingerprints with it, a run shorter than n words never shares one. Streaming: only the
fingerprints are kept (numpy arrays, capped), never the texts; the pairs are joined at the end.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from assess.scope.logs.timestamps import ns_to_datetime
from assess.scope.overlap_models import OverlapControl, OverlapPair, OwnOverlap

NGRAM_WORDS = 8
WINDOW = 8
MIN_SHARED = 2
GUARANTEED_RUN = NGRAM_WORDS - 1 + WINDOW * MIN_SHARED
MAX_TEXT_CHARS = 1_000_000
#: Fingerprints kept of the source prompts and of the responses (about 16 bytes each).
MAX_SOURCE_FINGERPRINTS = 4_000_000
MAX_RESPONSE_FINGERPRINTS = 1_000_000
#: A fingerprint held by more of our prompts than this is boilerplate (a shared system prompt,
#: a template): it says nothing about which prompt leaked and is ignored.
COMMON_PROMPTS = 20
PAIRS_LISTED = 1000
Status = Literal["matched", "no_match", "not_assessable"]
_CJK = r"([\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}])"
_MULT = np.uint64(0x9E3779B97F4A7C15)
METHOD = (
    f"each over-trigger response and each earlier prompt of the source set S is cut into "
    f"lower-case words (CJK characters one word each) and hashed as word {NGRAM_WORDS}-grams; "
    f"the smallest hash of every {WINDOW} consecutive {NGRAM_WORDS}-grams is a fingerprint "
    f"(winnowing); a response and a prompt logged at or before it that share at least "
    f"{MIN_SHARED} fingerprints are a pair: a run of {GUARANTEED_RUN} or more words copied "
    f"from the prompt always makes one, a run shorter than {NGRAM_WORDS} words never does"
)
LIMITS = (
    "only logged texts are compared: a prompt or response not logged (or logged truncated) "
    "can neither match nor be ruled out",
    "another tenant's data is not seen: a leak of someone else's prompt matches none of ours",
    f"copies shorter than {GUARANTEED_RUN} words, paraphrase and translated or re-tokenised "
    "text can be missed",
    f"text held by more than {COMMON_PROMPTS} of our prompts (system prompts, templates) is "
    "ignored: it cannot tell which prompt leaked",
    "a pair in one account can be a user quoting its own earlier text; only pairs between "
    "different accounts are disclosure between accounts",
    f"texts are compared up to their first {MAX_TEXT_CHARS:,} characters",
)


def _word_hashes(words: list[str]) -> np.ndarray:
    out = np.empty(len(words), np.uint64)
    for i, word in enumerate(words):
        out[i] = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "big")
    return out


def fingerprints(texts: Any) -> tuple[np.ndarray, np.ndarray, int]:
    """Return the winnowed fingerprints of ``texts`` (an Arrow string array; nulls hold none):
    (hashes, the index of the text each belongs to, texts cut at ``MAX_TEXT_CHARS``), unique
    per text, by text then hash."""
    texts = texts.combine_chunks() if isinstance(texts, pa.ChunkedArray) else texts
    cut = int(pc.sum(pc.greater(pc.utf8_length(texts), MAX_TEXT_CHARS)).as_py() or 0)
    lowered = pc.utf8_lower(pc.utf8_slice_codeunits(texts, 0, MAX_TEXT_CHARS))
    spaced = lowered
    if pc.any(pc.match_substring_regex(lowered, _CJK)).as_py():  # a pass only where needed
        spaced = pc.replace_substring_regex(lowered, _CJK, r" \1 ")
    lists = pc.split_pattern_regex(pc.fill_null(spaced, ""), r"[^\p{L}\p{N}]+")
    flat = pc.list_flatten(lists)
    owner = np.asarray(pc.list_parent_indices(lists), np.int64)
    keep = np.asarray(pc.not_equal(flat, ""), bool)
    flat, owner = flat.filter(pa.array(keep)), owner[keep]
    empty = (np.empty(0, np.uint64), np.empty(0, np.int64), cut)
    if len(flat) < NGRAM_WORDS:
        return empty
    encoded = pc.dictionary_encode(flat)
    words = _word_hashes(encoded.dictionary.to_pylist())[np.asarray(encoded.indices)]
    count = len(words) - NGRAM_WORDS + 1
    grams = np.zeros(count, np.uint64)
    with np.errstate(over="ignore"):
        for i in range(NGRAM_WORDS):
            grams = grams * _MULT + words[i : i + count]
    valid = owner[:count] == owner[NGRAM_WORDS - 1 :]  # the n-gram lies in one text
    found = [_windows(grams, owner), _short_texts(grams, owner[:count], valid)]
    hashes = np.concatenate([h for h, _ in found])
    texts_of = np.concatenate([t for _, t in found])
    if not len(hashes):
        return empty
    order = np.lexsort((hashes, texts_of))
    hashes, texts_of = hashes[order], texts_of[order]
    first = np.ones(len(hashes), bool)
    first[1:] = (hashes[1:] != hashes[:-1]) | (texts_of[1:] != texts_of[:-1])
    return hashes[first], texts_of[first], cut


def _windows(grams: np.ndarray, owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The smallest 8-gram of every window of ``WINDOW`` inside one text, and its text (the
    minimum by successive element-wise minima: no per-window Python or strided argmin)."""
    windows = len(grams) - WINDOW + 1
    if windows < 1:
        return np.empty(0, np.uint64), np.empty(0, np.int64)
    low = grams[:windows].copy()
    for i in range(1, WINDOW):
        np.minimum(low, grams[i : i + windows], out=low)
    starts = np.arange(windows)
    inside = owner[starts] == owner[starts + WINDOW - 1 + NGRAM_WORDS - 1]
    return low[inside], owner[:windows][inside]


def _short_texts(
    grams: np.ndarray, owner: np.ndarray, valid: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The smallest 8-gram of each text with fewer than ``WINDOW`` of them (no whole window)."""
    kept, texts = grams[valid], owner[valid]
    if not len(kept):
        return np.empty(0, np.uint64), np.empty(0, np.int64)
    starts = np.flatnonzero(np.concatenate(([True], texts[1:] != texts[:-1])))
    sizes = np.diff(np.append(starts, len(texts)))
    short = sizes < WINDOW
    return np.minimum.reduceat(kept, starts)[short], texts[starts][short]


@dataclass
class _Side:
    """Fingerprinted texts of one side: their rows (time, id, account, text) and the
    fingerprints of each distinct text of a batch (a prompt repeated is fingerprinted once)."""

    cap: int
    rows: list[pa.Table] = field(default_factory=list)
    hashes: list[np.ndarray] = field(default_factory=list)
    owners: list[np.ndarray] = field(default_factory=list)
    texts: list[int] = field(default_factory=list)
    kept = checked = without_text = not_checked = cut = 0

    def add(self, rows: pa.Table, column: str) -> None:
        texts = rows.column(column)
        has_text = pc.fill_null(pc.greater(pc.utf8_length(texts), 0), False)
        self.without_text += rows.num_rows - int(pc.sum(has_text).as_py() or 0)
        rows = rows.filter(has_text)
        if not rows.num_rows:
            return
        encoded = pc.dictionary_encode(rows.column(column).combine_chunks())
        distinct = encoded.dictionary
        hashes, owners, _ = fingerprints(distinct)
        # whole texts only (first seen first), while the fingerprints kept stay within the cap
        per_text = np.bincount(owners, minlength=len(distinct))
        fits = int(np.searchsorted(np.cumsum(per_text), self.cap - self.kept, "right"))
        index = np.asarray(encoded.indices, np.int64)
        if fits < len(distinct):
            inside = index < fits
            self.not_checked += int((~inside).sum())
            rows, index = rows.filter(pa.array(inside)), index[inside]
            hashes, owners = hashes[owners < fits], owners[owners < fits]
            distinct = distinct.slice(0, fits)
        self.cut += int(
            np.asarray(pc.greater(pc.utf8_length(distinct), MAX_TEXT_CHARS))[index].sum()
        )
        part = rows.select(["timestamp", "request_id", "account_id"])
        self.rows.append(part.append_column("text", pa.array(index, pa.int64())))
        self.hashes.append(hashes)
        self.owners.append(owners)
        self.texts.append(len(distinct))
        self.kept += len(hashes)
        self.checked += rows.num_rows

    def merge(self, other: _Side) -> None:
        self.rows.extend(other.rows)
        self.hashes.extend(other.hashes)
        self.owners.extend(other.owners)
        self.texts.extend(other.texts)
        for name in ("kept", "checked", "without_text", "not_checked", "cut"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def joined(self) -> tuple[pa.Table, np.ndarray, np.ndarray]:
        """(rows with a global ``text`` index, hashes, the text of each hash) over every part."""
        if not self.rows:
            kinds = (pa.int64(), pa.large_string(), pa.large_string(), pa.int64())
            columns = ("timestamp", "request_id", "account_id", "text")
            empty = pa.table({n: pa.array([], k) for n, k in zip(columns, kinds, strict=True)})
            return empty, np.empty(0, np.uint64), np.empty(0, np.int64)
        offsets = np.cumsum([0, *self.texts[:-1]]).tolist()
        rows = pa.concat_tables(
            t.set_column(3, "text", pc.add(t.column("text"), o))
            for t, o in zip(self.rows, offsets, strict=True)
        )
        owners = [o + offset for o, offset in zip(self.owners, offsets, strict=True)]
        return rows, np.concatenate(self.hashes), np.concatenate(owners)


def _text_pairs(
    sources: tuple[pa.Table, np.ndarray, np.ndarray],
    responses: tuple[pa.Table, np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Join fingerprints: (response text, source text, shared fingerprints) of each pair of
    texts sharing ``MIN_SHARED``, and the common fingerprints ignored (held by more than
    ``COMMON_PROMPTS`` source rows)."""
    (src_rows, src_h, src_o), (_, rsp_h, rsp_o) = sources, responses
    rows_per_text = np.bincount(np.asarray(src_rows.column("text").to_numpy(), np.int64))
    order = np.argsort(src_h, kind="stable")
    src_h, src_o = src_h[order], src_o[order]
    values, starts = np.unique(src_h, return_index=True)
    held = np.add.reduceat(rows_per_text[src_o], starts) if len(starts) else starts
    common = values[held > COMMON_PROMPTS]
    left = np.searchsorted(src_h, rsp_h, "left")
    hits = np.searchsorted(src_h, rsp_h, "right") - left
    hits[np.isin(rsp_h, common)] = 0
    total = int(hits.sum())
    start = np.repeat(left, hits) + np.arange(total) - np.repeat(np.cumsum(hits) - hits, hits)
    width = max(1, int(src_o.max()) + 1 if len(src_o) else 1)
    keys = np.repeat(rsp_o, hits) * width + src_o[start]
    pairs, shared = np.unique(keys, return_counts=True)
    kept = shared >= MIN_SHARED
    pairs, shared = pairs[kept], shared[kept]
    return pairs // width, pairs % width, shared, len(common)


def _pairs(
    sources: tuple[pa.Table, np.ndarray, np.ndarray],
    responses: tuple[pa.Table, np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(response row, source row, shared fingerprints) of each pair of rows whose texts share
    text, the source logged at or before the response; and the common fingerprints ignored."""
    rsp_t, src_t, shared, common = _text_pairs(sources, responses)
    src_rows, rsp_rows = sources[0], responses[0]
    src_text = np.asarray(src_rows.column("text").to_numpy(), np.int64)
    rsp_text = np.asarray(rsp_rows.column("text").to_numpy(), np.int64)
    src_ts = np.asarray(src_rows.column("timestamp").to_numpy(), np.int64)
    rsp_ts = np.asarray(rsp_rows.column("timestamp").to_numpy(), np.int64)
    out_r: list[np.ndarray] = []
    out_s: list[np.ndarray] = []
    out_n: list[np.ndarray] = []
    for r_text, s_text, n in zip(rsp_t.tolist(), src_t.tolist(), shared.tolist(), strict=True):
        r_rows = np.flatnonzero(rsp_text == r_text)
        s_rows = np.flatnonzero(src_text == s_text)
        earlier = src_ts[s_rows][None, :] <= rsp_ts[r_rows][:, None]
        r_idx, s_idx = np.nonzero(earlier)
        out_r.append(r_rows[r_idx])
        out_s.append(s_rows[s_idx])
        out_n.append(np.full(len(r_idx), n, np.int64))
    if not out_r:
        none = np.empty(0, np.int64)
        return none, none, none, common
    return np.concatenate(out_r), np.concatenate(out_s), np.concatenate(out_n), common


def _named(column: Any) -> Any:
    return pc.fill_null(pc.greater(pc.utf8_length(column), 0), False)


def _accounts(first: str | None, second: str | None) -> Literal["same", "different", "unknown"]:
    if not first or not second:
        return "unknown"
    return "same" if first == second else "different"


def match_texts(sources: list[str], responses: list[str], stamps: list[int] | None = None) -> int:
    """Return how many (response, source) pairs share text (all logged at one time unless
    ``stamps`` gives the sources' times, responses at 0): the positive control's path."""
    overlap = Overlap(unbounded=True)
    times = stamps or [0] * len(sources)
    src = pa.table({"timestamp": pa.array(times, pa.int64()), "text": sources})
    rsp = pa.table({"timestamp": pa.array([0] * len(responses), pa.int64()), "text": responses})
    for side, table in ((overlap.sources, src), (overlap.responses, rsp)):
        rows = table.append_column("request_id", pa.nulls(table.num_rows, pa.large_string()))
        side.add(
            rows.append_column("account_id", pa.nulls(rows.num_rows, pa.large_string())), "text"
        )
    return len(_pairs(overlap.sources.joined(), overlap.responses.joined())[2])


def control() -> OverlapControl:
    """Run the built-in positive control: a response copying a run of ``GUARANTEED_RUN`` words
    from a prompt must match it, and one sharing only 7-word phrases with it must not."""
    prompt = [f"alpha{i}" for i in range(80)]
    filler = [f"omega{i}" for i in range(40)]
    planted = " ".join(filler[:20] + prompt[30 : 30 + GUARANTEED_RUN] + filler[20:])
    phrases = [" ".join(prompt[i : i + NGRAM_WORDS - 1]) for i in range(0, 70, NGRAM_WORDS - 1)]
    near = " filler ".join(phrases)
    return OverlapControl(
        planted_found=match_texts([" ".join(prompt)], [planted]) == 1,
        near_miss_rejected=match_texts([" ".join(prompt)], [near]) == 0,
    )


class Overlap:
    """Over-length responses and the prompts of S, fingerprinted as they stream past."""

    def __init__(self, unbounded: bool = False) -> None:
        """``unbounded``: no fingerprint cap (the control's few texts)."""
        self.sources = _Side(1 << 62 if unbounded else MAX_SOURCE_FINGERPRINTS)
        self.responses = _Side(1 << 62 if unbounded else MAX_RESPONSE_FINGERPRINTS)

    def add(self, rows: pa.Table, source: Any, received: Any) -> None:
        """Fingerprint the prompts of ``source`` rows and the responses of ``received`` rows."""
        if pc.any(source).as_py():
            self.sources.add(rows.filter(source), "prompt")
        if pc.any(received).as_py():
            self.responses.add(rows.filter(received), "response")

    def merge(self, other: Overlap) -> None:
        """Keep ``other``'s fingerprints after these."""
        self.sources.merge(other.sources)
        self.responses.merge(other.responses)

    def result(self) -> OwnOverlap:
        """Return the ``own_overlap`` object: the pairs, what was checked, the control."""
        src, rsp = self.sources.joined(), self.responses.joined()
        rsp_i, src_i, shared, common = _pairs(src, rsp)
        order = np.lexsort((src_i, rsp_i, -shared))
        a = rsp[0].take(pa.array(rsp_i[order], pa.int64())) if len(order) else None
        b = src[0].take(pa.array(src_i[order], pa.int64())) if len(order) else None
        pairs: list[OverlapPair] = []
        between = 0
        if a is not None and b is not None:
            first, second = a.column("account_id"), b.column("account_id")
            differ = pc.and_(pc.not_equal(first, second), pc.and_(_named(first), _named(second)))
            between = int(pc.sum(pc.fill_null(differ, False)).as_py() or 0)
            listed_a = a.slice(0, PAIRS_LISTED).to_pylist()
            listed_b = b.slice(0, PAIRS_LISTED).to_pylist()
            for i, (r, s) in enumerate(zip(listed_a, listed_b, strict=True)):
                pairs.append(
                    OverlapPair(
                        response_request_id=r["request_id"],
                        response_account_id=r["account_id"],
                        response_timestamp=ns_to_datetime(r["timestamp"]),
                        source_request_id=s["request_id"],
                        source_account_id=s["account_id"],
                        source_timestamp=ns_to_datetime(s["timestamp"]),
                        shared_fingerprints=int(shared[order[i]]),
                        accounts=_accounts(r["account_id"], s["account_id"]),
                    )
                )
        checks = control()
        status, why = self._status(len(order), between, checks)
        return OwnOverlap(
            status=status,
            why=why,
            responses_checked=self.responses.checked,
            responses_without_text=self.responses.without_text,
            responses_not_checked=self.responses.not_checked,
            sources_checked=self.sources.checked,
            sources_without_text=self.sources.without_text,
            sources_not_checked=self.sources.not_checked,
            texts_cut=self.sources.cut + self.responses.cut,
            common_fingerprints=common,
            pairs=len(order),
            pairs_between_accounts=between,
            pair_list=pairs[:PAIRS_LISTED],
            ngram_words=NGRAM_WORDS,
            window=WINDOW,
            min_shared=MIN_SHARED,
            guaranteed_run_words=GUARANTEED_RUN,
            max_text_chars=MAX_TEXT_CHARS,
            common_prompts=COMMON_PROMPTS,
            control=checks,
            method=METHOD,
            limits=list(LIMITS),
        )

    def _status(self, pairs: int, between: int, checks: OverlapControl) -> tuple[Status, str]:
        r, s = self.responses, self.sources
        if not (checks.planted_found and checks.near_miss_rejected):
            return "not_assessable", "the built-in control failed: the matcher cannot be relied on"
        if pairs:
            return "matched", (
                f"{pairs:,} pairs of an over-trigger response and an earlier prompt of ours share "
                f"text; {between:,} between different accounts (disclosure between our accounts)"
            )
        if not r.checked:
            if not r.without_text:
                return "not_assessable", "no over-trigger request: no response to compare"
            return "not_assessable", (
                f"no over-trigger response text logged ({r.without_text:,} requests without it)"
            )
        if r.not_checked or s.not_checked:
            return "not_assessable", (
                f"fingerprint cap reached: {r.not_checked:,} responses and {s.not_checked:,} "
                "prompts not checked"
            )
        if not s.checked:
            return "not_assessable", "no prompt text of the source set S logged"
        return "no_match", (
            f"no over-trigger response shares {MIN_SHARED} fingerprints with an earlier logged "
            f"prompt of ours: no copy of {GUARANTEED_RUN}+ words of them, within the limits"
        )
