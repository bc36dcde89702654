"""Time to the first token of a streamed answer: when the first server-sent event carrying text
arrives (both transports read their streams through :func:`timed_first_text`)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any


def timed_first_text(lines: Iterator[str], first: list[float]) -> Iterator[str]:
    """Yield ``lines``; append to ``first`` the time the first event with text arrived."""
    for line in lines:
        if not first and line.startswith("data:"):
            try:
                event = json.loads(line[5:])
            except ValueError:
                event = None
            delta: Any = {}
            if isinstance(event, dict) and isinstance(event.get("choices"), list):
                for choice in event["choices"]:
                    if isinstance(choice, dict) and isinstance(choice.get("delta"), dict):
                        delta = choice["delta"]
            if any(isinstance(v, str) and v for k, v in delta.items() if k != "role"):
                first.append(time.monotonic())
        yield line
