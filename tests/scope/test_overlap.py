"""Over-length responses matched against our own earlier prompts (docs/exposure.md "What we can
prove ourselves"): generated logs with planted copies found per pair, near misses not matched.

The logs are canonical NDJSON written here; the words are drawn from a seeded vocabulary so two
texts share no 8-word run unless one is planted.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from assess.scope import overlap
from assess.scope.api import scope_run
from assess.scope.overlap import GUARANTEED_RUN, NGRAM_WORDS, fingerprints, match_texts

T = 681_280
RNG = random.Random(42)
VOCAB = [f"{a}{b}" for a in ("ka", "lo", "mi", "nu", "pe", "ro", "si", "tu") for b in range(60)]


def _words(count: int, rng: random.Random = RNG) -> list[str]:
    return [rng.choice(VOCAB) for _ in range(count)]


def _row(i: int, minute: int, account: str | None, tokens: int | None, **extra: Any) -> str:
    record = {
        "timestamp": f"2026-09-01T10:{minute:02d}:00Z",
        "model": "glm-5.3",
        "request_id": f"r{i}",
        "account_id": account,
        "prompt_tokens": tokens,
        "provider": "workers-ai",
        "status": 200,
        **extra,
    }
    return json.dumps({k: v for k, v in record.items() if v is not None})


def _scope(tmp_path: Path, lines: list[str]) -> Any:
    path = tmp_path / "log.ndjson"
    path.write_text("\n".join(lines) + "\n")
    return scope_run([path], preset="canonical").result.own_overlap


def test_a_planted_copy_between_accounts_is_found_per_pair(tmp_path: Path) -> None:
    secret = _words(200)
    lines = [
        # the source: account b's earlier prompt, under the trigger
        _row(1, 1, "b", 5000, prompt=" ".join(secret), response="fine"),
        # account a's over-length request received a run of b's prompt amid other text
        _row(2, 5, "a", T + 1, prompt="x", response=" ".join(_words(30) + secret[50:90])),
        # account c's over-length request received a run of a's own earlier prompt
        _row(3, 2, "c", 900, prompt=" ".join(secret[100:200]), response="ok"),
        _row(4, 6, "c", T + 9, prompt="x", response=" ".join(secret[120:160] + _words(20))),
    ]
    found = _scope(tmp_path, lines)
    assert found.status == "matched"
    got = {(p.response_request_id, p.source_request_id): p for p in found.pair_list}
    # r2 holds secret[50:90]: from r1 only (r3 holds secret[100:]); r4 holds secret[120:160]:
    # in r1 and in r3 (both earlier)
    assert set(got) == {("r2", "r1"), ("r4", "r1"), ("r4", "r3")}
    assert got[("r2", "r1")].accounts == "different"
    assert got[("r4", "r3")].accounts == "same"
    assert found.pairs == 3
    assert found.pairs_between_accounts == 2
    assert found.responses_checked == 2
    assert found.sources_checked == 2
    # a 40-word run shares at least floor((40 - 8 + 1) / 8) = 4 fingerprints
    assert all(p.shared_fingerprints >= 4 for p in found.pair_list)


@pytest.mark.parametrize(
    "case",
    [
        "seven_word_phrases",  # every 7 consecutive words shared, never 8
        "later_prompt",  # the copied prompt was logged after the response
        "over_trigger_prompt",  # the copied prompt was over the trigger: never in the pool
        "served_elsewhere",  # the copied prompt was served by another platform
        "cache_replay",  # the copied prompt never reached the model
        "boilerplate",  # the copied text is in more than COMMON_PROMPTS of our prompts
        "short_run",  # a run of 7 words copied
    ],
)
def test_near_misses_do_not_match(tmp_path: Path, case: str) -> None:
    secret = _words(120)
    response = " ".join(_words(20) + secret[10:70] + _words(20))
    minute, tokens, extra = 1, 4000, {}
    if case == "seven_word_phrases":
        phrases = [secret[i : i + NGRAM_WORDS - 1] for i in range(0, 112, NGRAM_WORDS - 1)]
        response = " zz ".join(" ".join(p) for p in phrases)
    if case == "short_run":
        response = " ".join(_words(20) + secret[10 : 10 + NGRAM_WORDS - 1] + _words(20))
    if case == "later_prompt":
        minute = 9
    if case == "over_trigger_prompt":
        tokens = T + 5
    if case == "served_elsewhere":
        extra = {"provider": "openai"}
    if case == "cache_replay":
        extra = {"cache_hit": True}
    lines = [_row(1, minute, "b", tokens, prompt=" ".join(secret), **extra)]
    if case == "boilerplate":
        lines += [
            _row(10 + i, 1, f"u{i}", 4000, prompt=" ".join(secret))
            for i in range(overlap.COMMON_PROMPTS)
        ]
    lines.append(_row(2, 5, "a", T + 1, prompt="x", response=response))
    found = _scope(tmp_path, lines)
    assert found.pairs == 0, found.pair_list
    assert found.responses_checked == 1
    if case == "boilerplate":
        assert found.common_fingerprints > 0
    if case in ("later_prompt", "seven_word_phrases", "short_run", "boilerplate"):
        assert found.status == "no_match"  # the sources were checked and cleared


def test_the_guaranteed_run_is_found_at_every_offset() -> None:
    # winnowing's guarantee: a run of GUARANTEED_RUN words always shares MIN_SHARED fingerprints
    rng = random.Random(7)
    for _ in range(60):
        prompt = _words(150, rng)
        start = rng.randrange(0, 150 - GUARANTEED_RUN)
        run = prompt[start : start + GUARANTEED_RUN]
        response = _words(rng.randrange(0, 30), rng) + run + _words(rng.randrange(0, 30), rng)
        assert match_texts([" ".join(prompt)], [" ".join(response)]) == 1


def test_text_is_compared_by_words_case_and_punctuation_aside() -> None:
    prompt = _words(60)
    shouted = ", ".join(w.upper() for w in prompt[5:45])
    assert match_texts([" ".join(prompt)], [f"Sure! {shouted}."]) == 1
    cjk = "".join(chr(0x4E00 + RNG.randrange(2000)) for _ in range(80))
    assert match_texts([cjk], [f"答：{cjk[10:50]}。"]) == 1  # CJK characters are words


def test_without_texts_it_is_not_assessable(tmp_path: Path) -> None:
    lines = [_row(1, 1, "b", 4000), _row(2, 5, "a", T + 1)]
    found = _scope(tmp_path, lines)
    assert found.status == "not_assessable"
    assert found.responses_without_text == 1
    lines = [_row(1, 1, "b", 4000), _row(2, 5, "a", T + 1, response=" ".join(_words(50)))]
    found = _scope(tmp_path, lines)
    assert found.status == "not_assessable"
    assert "no prompt text" in found.why


def test_the_fingerprint_cap_makes_it_not_assessable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(overlap, "MAX_SOURCE_FINGERPRINTS", 5)
    lines = [_row(i, 1, "b", 4000, prompt=" ".join(_words(80))) for i in range(3)]
    lines.append(_row(9, 5, "a", T + 1, response=" ".join(_words(50))))
    path = tmp_path / "log.ndjson"
    path.write_text("\n".join(lines) + "\n")
    found = scope_run([path], preset="canonical").result.own_overlap
    assert found.sources_not_checked > 0
    assert found.status == "not_assessable"
    assert "cap" in found.why


def test_fingerprints_are_a_bounded_sample_unique_per_text() -> None:
    texts = pa.array([" ".join(_words(2000)), None, "", " ".join(_words(9)), "a b c"])
    hashes, owners, cut = fingerprints(texts)
    assert cut == 0
    assert set(owners.tolist()) == {0, 3}  # no fingerprint for null, empty or < 8 words
    first = hashes[owners == 0]
    assert len(np.unique(first)) == len(first)
    # winnowing keeps about 2 / (w + 1) of the 8-grams, never more than one per position
    assert 0.1 * 1993 < len(first) < 0.4 * 1993


def test_the_control_passes_and_would_fail_on_a_broken_matcher(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert overlap.control().planted_found
    assert overlap.control().near_miss_rejected
    monkeypatch.setattr(overlap, "MIN_SHARED", 10**6)
    assert not overlap.control().planted_found


def test_parallel_files_give_the_same_pairs(tmp_path: Path) -> None:
    secret = _words(120)
    first = [_row(1, 1, "b", 4000, prompt=" ".join(secret))]
    second = [_row(2, 5, "a", T + 1, response=" ".join(secret[20:80]))]
    paths = []
    for name, lines in (("one.ndjson", first), ("two.ndjson", second)):
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    serial = scope_run(paths, preset="canonical", jobs=1).result.own_overlap
    parallel = scope_run(paths, preset="canonical", jobs=2).result.own_overlap
    assert serial.pairs == 1
    assert parallel == serial


def test_no_own_overlap_turns_the_matching_off_and_says_so(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    """The planted copy that matches above is not looked for with --no-own-overlap: the result
    is not assessable (never no_match), says why, and the filter records it."""
    secret = _words(200)
    lines = [
        _row(1, 1, "b", 5000, prompt=" ".join(secret), response="fine"),
        _row(2, 5, "a", T + 1, prompt="x", response=" ".join(_words(30) + secret[50:90])),
    ]
    assert _scope(tmp_path, lines).status == "matched"
    path = tmp_path / "log.ndjson"
    off = scope_run([path], preset="canonical", own_overlap=False).result
    assert off.own_overlap is not None
    assert off.own_overlap.status == "not_assessable" and off.own_overlap.pairs == 0
    assert off.own_overlap.why == "not checked: turned off with --no-own-overlap"
    assert off.filter.own_overlap is False
    shown = run_cli("scope", str(path), "--preset", "canonical", "--no-own-overlap")
    assert "our prompts in over-length responses: not assessable: not checked: turned off" in (
        shown.output
    )
