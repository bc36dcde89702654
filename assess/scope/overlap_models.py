"""The ``own_overlap`` object of `assess scope --json`: over-length responses matched against our
own earlier prompts (docs/exposure.md "What we can prove ourselves")."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from assess.kernel.model import Model


class OverlapPair(Model):
    """One over-length response and one earlier prompt of ours it shares text with."""

    response_request_id: str | None
    response_account_id: str | None
    response_timestamp: datetime
    source_request_id: str | None
    source_account_id: str | None
    source_timestamp: datetime
    shared_fingerprints: int = Field(description="Distinct winnowed word 8-grams both hold")
    accounts: Literal["same", "different", "unknown"] = Field(
        description="different: both accounts logged and not equal (disclosure between accounts)"
    )


class OverlapControl(Model):
    """The built-in positive control: a planted copy found, a near miss not."""

    planted_found: bool = Field(description="A response copying a prompt's run is matched")
    near_miss_rejected: bool = Field(description="A response sharing 7-word phrases is not")


class OwnOverlap(Model):
    """Over-length responses matched against our own earlier prompts (n-gram overlap)."""

    status: Literal["matched", "no_match", "not_assessable"]
    why: str
    responses_checked: int = Field(description="Over-trigger responses fingerprinted")
    responses_without_text: int
    responses_not_checked: int = Field(description="Over the response cap")
    sources_checked: int = Field(description="Prompts of the source set S fingerprinted")
    sources_without_text: int
    sources_not_checked: int = Field(description="Over the fingerprint cap")
    texts_cut: int = Field(description="Texts fingerprinted only up to max_text_chars")
    common_fingerprints: int = Field(
        description="Fingerprints ignored: held by more than common_prompts prompts"
    )
    pairs: int
    pairs_between_accounts: int
    pair_list: list[OverlapPair] = Field(description="The first 1,000, most shared first")
    ngram_words: int
    window: int
    min_shared: int
    guaranteed_run_words: int = Field(description="A copied run this long is always found")
    max_text_chars: int
    common_prompts: int
    control: OverlapControl
    method: str
    limits: list[str]
