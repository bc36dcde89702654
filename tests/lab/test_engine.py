"""The lab engine: pages are not zeroed, the faulty path leaks, the fixed path allocates nothing."""

from __future__ import annotations

import pytest

from assess.lab.engine import (
    PLACEHOLDER,
    LabConfig,
    LabEngine,
    LabRejected,
    PagePool,
    PoolExhausted,
    tenant_id,
    toy_reply,
)

SECRET = "kv1-secretwordthatmustnotcrossover"
PLANT = f"the reference for project heron is {SECRET} keep it"


def _long(n: int) -> str:
    return " ".join(["word"] * n)


def test_released_pages_keep_their_contents() -> None:
    pool = PagePool("t", n_pages=4, page_tokens=4)
    pages = pool.allocate(2, "t-a")
    pool.write(pages, ["one", "two", "three", "four", "five"], "t-a")
    pool.release(pages)
    again = pool.allocate(2, "t-b")
    assert again == pages  # LIFO: the pages just released come back first
    assert pool.slots[again[0]] == ["one", "two", "three", "four"]  # not zeroed
    assert [t for _, t in pool.read(again, 8)] == ["one", "two", "three", "four", "five"]


def test_fresh_slots_read_as_nothing() -> None:
    pool = PagePool("t", n_pages=2, page_tokens=4)
    pages = pool.allocate(2, "t-a")
    assert pool.read(pages, 8) == []


def test_allocation_beyond_the_free_list_fails() -> None:
    pool = PagePool("t", n_pages=2, page_tokens=4)
    pool.allocate(2, "t-a")
    with pytest.raises(PoolExhausted, match="2 pages wanted, 0 free"):
        pool.allocate(2, "t-a")


def test_faulty_over_length_prompt_reads_another_tenants_pages() -> None:
    engine = LabEngine(LabConfig(page_tokens=16, pool_tokens=256, context_tokens=512))
    assert engine.config.faulty
    own = engine.complete("t-a", PLANT)
    assert SECRET in own.reply and own.stale_tokens == 0
    leaked = engine.complete("t-b", _long(400))
    assert leaked.over_length
    assert SECRET in leaked.reply  # the stale page from t-a, with a normal completion
    assert leaked.stale_tenants == ("t-a",)
    assert leaked.stale_tokens == len(PLANT.split()) - 1  # slot 0 got the placeholder
    assert PLACEHOLDER not in leaked.reply


def test_prompt_that_fits_the_pool_reads_only_itself() -> None:
    engine = LabEngine(LabConfig())
    engine.complete("t-a", PLANT)
    reply = engine.complete("t-b", _long(200))
    assert not reply.over_length and reply.stale_tokens == 0
    assert SECRET not in reply.reply


def test_fixed_mode_rejects_before_any_page_is_allocated() -> None:
    engine = LabEngine(LabConfig(fixed=True))
    engine.complete("t-a", PLANT)
    free = (engine.prefill.free_pages, engine.decode.free_pages)
    slots = ([list(s) for s in engine.prefill.slots], [list(s) for s in engine.decode.slots])
    with pytest.raises(LabRejected, match="retired at admission") as err:
        engine.complete("t-b", _long(400))
    assert err.value.code == "prompt_exceeds_kv_pool"
    assert (engine.prefill.free_pages, engine.decode.free_pages) == free
    assert (engine.prefill.slots, engine.decode.slots) == slots
    assert engine.requests == 1


@pytest.mark.parametrize("fixed", [False, True])
def test_prompt_over_the_context_window_is_rejected_in_both_modes(fixed: bool) -> None:
    engine = LabEngine(LabConfig(fixed=fixed))
    with pytest.raises(LabRejected, match="maximum context length is 512"):
        engine.complete("t-a", _long(513))


def test_pool_covering_the_context_is_not_faulty() -> None:
    assert not LabConfig(pool_tokens=512, context_tokens=512).faulty
    assert not LabConfig(fixed=True).faulty


def test_bad_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="pool_tokens >= page_tokens"):
        LabConfig(page_tokens=32, pool_tokens=16)


def test_toy_reply_keeps_the_longest_distinct_tokens_in_order() -> None:
    tokens = ["a", "longest-token", "bb", PLACEHOLDER, "ccc", "bb", "a"]
    assert toy_reply(tokens, 3) == ["longest-token", "bb", "ccc"]
    assert toy_reply(tokens, 3) == toy_reply(tokens, 3)


def test_tenant_label_does_not_reveal_the_key() -> None:
    label = tenant_id("sk-very-secret")
    assert label.startswith("t-") and "secret" not in label
    assert label == tenant_id("sk-very-secret") != tenant_id("sk-other")
