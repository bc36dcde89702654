"""What a run is asked to do: its accounts and options, the unrelated prompts, and its cost.

The prompts and the estimate are pure: :func:`estimate_cost` tells what a run will send before
anything is sent.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Literal

from assess.probe.markers import new_marker, plant_prompt
from assess.probe.models import Account, ProbeSettings
from assess.probe.transport.interface import strip_credentials

StreamMode = Literal["both", "on", "off"]

_TOPICS = [
    "how tides form",
    "why bread rises",
    "how a bicycle gear works",
    "what makes a good map",
    "how bees find flowers",
    "why the sky is blue",
    "how a lighthouse lens works",
    "what a compost heap needs",
]
_FILLER = (
    "the a of and to in is it that for on with as at by from this be are was or an which "
    "all one two new old good day time year way man work world life hand part place case "
    "week point home water room money story fact month lot right study book eye job word"
).split()


@dataclass(frozen=True)
class ProbeAccount:
    """An account: label, the env var its key came from, and the key (never printed)."""

    label: Account
    key_env: str
    api_key: str = field(repr=False)
    note: str = ""


@dataclass(frozen=True)
class ProbeConfig:
    """Everything a run needs besides the accounts."""

    base_url: str
    model: str
    rounds: int = 3
    probes_per_round: int = 4
    concurrency: int = 4
    timeout_s: float = 60.0
    fragment_chars: int = 8
    long_prompt_tokens: int | None = None
    max_tokens: int = 64
    stream: StreamMode = "both"
    max_retries: int = 3
    max_errors: int = 5
    transport: str = "httpx"

    @property
    def endpoint(self) -> str:
        """Return the base URL as every output shows it: without credentials."""
        return strip_credentials(self.base_url)

    def settings(self) -> ProbeSettings:
        """Return the options as recorded in the evidence document."""
        return ProbeSettings(
            rounds=self.rounds,
            probes_per_round=self.probes_per_round,
            concurrency=self.concurrency,
            timeout_s=self.timeout_s,
            fragment_chars=self.fragment_chars,
            long_prompt_tokens=self.long_prompt_tokens,
            max_tokens=self.max_tokens,
            stream=self.stream,
            max_retries=self.max_retries,
            transport=self.transport,
        )


def estimate_tokens(text: str) -> int:
    """Return the prompt size estimate: words (a common English word is about one token)."""
    return len(text.split())


def unrelated_prompt(index: int, long_tokens: int | None) -> str:
    """Return an unrelated prompt; in boundary mode about ``long_tokens`` tokens of filler."""
    topic = _TOPICS[index % len(_TOPICS)]
    if not long_tokens:
        return f"Write two plain sentences about {topic} for a school newsletter."
    tail = f"Summarise the text above in one sentence about {topic}."
    rng = random.Random(index)  # deterministic filler; no security role
    body_words = max(0, long_tokens - len(tail.split()))
    return " ".join(rng.choice(_FILLER) for _ in range(body_words)) + " " + tail


@dataclass(frozen=True)
class CostEstimate:
    """What a run will send, before it is sent."""

    requests: int
    input_tokens: int
    max_output_tokens: int

    def describe(self, input_price: float | None, output_price: float | None) -> str:
        """Return a one-paragraph estimate; dollars when prices (USD per 1M tokens) are given."""
        text = (
            f"{self.requests} requests, about {self.input_tokens:,} input tokens and at most "
            f"{self.max_output_tokens:,} output tokens"
        )
        if input_price is None and output_price is None:
            return text + " (give --input-price/--output-price in USD per 1M tokens for dollars)"
        usd = (self.input_tokens * (input_price or 0.0)) / 1e6 + (
            self.max_output_tokens * (output_price or 0.0)
        ) / 1e6
        return text + f", at most ${usd:,.4f}"


def estimate_cost(config: ProbeConfig) -> CostEstimate:
    """Return how many requests and tokens ``config`` will send."""
    per_round_in = estimate_tokens(plant_prompt(new_marker(0), 0))
    per_round_in += sum(
        estimate_tokens(unrelated_prompt(i, config.long_prompt_tokens))
        for i in range(config.probes_per_round)
    )
    per_round_in += estimate_tokens(unrelated_prompt(0, None))
    requests = config.rounds * (config.probes_per_round + 2)
    return CostEstimate(requests, config.rounds * per_round_in, requests * config.max_tokens)
