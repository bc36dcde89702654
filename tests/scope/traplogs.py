"""Generated request logs with traps, shared by the remote, parallel and SQL tests.

Two shapes: the canonical preset's records (assess/scope/logs/presets/canonical.yaml) and
LiteLLM's StandardLoggingPayload as our litellm preset reads it (field names from
https://docs.litellm.ai/docs/proxy/logging_spec, via assess/scope/logs/presets/litellm.yaml),
whose MCP tool-call rows are not requests. Traps: malformed and non-object lines, blank lines,
look-alike model ids, timestamps on and just past the advisory's window edges (ISO with zones,
epoch seconds and milliseconds), prompt tokens at the trigger, unknown tokens (null, missing, 0,
""), refused token counts, records that are not requests.
"""

from __future__ import annotations

import json
import random
from typing import Any

#: Match glm-5.3 after normalisation; the rest look alike but do not.
MATCHING = ["glm-5.3", "GLM-5.3", "zai-org/glm-5.3", "@cf/zai-org/glm-5.3", "us.zai.glm-5.3-v1:0"]
LOOK_ALIKE = ["glm-5.3-flash", "glm-5.2", "glm-5", "xglm-5.3", "glm-5.3.1", "openai/gpt-4o"]
# the window of glm-5.3-kv-leak: 2026-08-27T00:00:00Z .. the whole of 2026-09-09 (to .999999999)
EDGES = [
    "2026-08-27T00:00:00Z",  # first instant: in
    "2026-08-26T23:59:59.999Z",  # 1 ms before: out
    "2026-09-09T23:59:59Z",  # last second: in
    "2026-09-09T23:59:59.001Z",  # within the last second: in
    "2026-08-27T02:00:00+02:00",  # the first instant, with an offset: in
    "2026-09-10T01:59:59+02:00",  # the last second, with an offset: in
    "2026-09-01T12:00:00",  # no zone: UTC
    "2026-09-01 12:00:00.250Z",  # a space for the T
    1788220800,  # epoch seconds: 2026-09-01T00:00:00Z
    1788220800500,  # epoch milliseconds
    1787788799,  # epoch seconds, 1 s before the window
]
TOKENS: list[Any] = [
    681281,  # over
    681280,  # at the trigger: not over
    5,
    900000,
    "700000",  # a string count: over
    None,  # unknown
    0,  # unknown
    "",  # unknown
]
BROKEN_TOKENS: list[Any] = [-1, 1.5, "many", True]
JUNK = [
    '{"timestamp": "2026-09-01T00:00:00Z", "model": "glm-5.3", "prompt_tokens": 9',  # cut
    "not json at all",
    "[1, 2, 3]",
    "42",
    '{"error": {"message": "rate limited"}}',
    '{"hello": "world"}',
    '{"timestamp": "soon", "model": "glm-5.3", "prompt_tokens": 700000}',
    '{"model": "glm-5.3", "prompt_tokens": 700000, "request_id": "no-time"}',
    "binary \x01 junk \x00 with control bytes",  # a table of lines must keep it one record
]


def _record(rng: random.Random, index: int, litellm: bool) -> dict[str, Any]:
    model = rng.choice(MATCHING) if rng.random() < 0.6 else rng.choice(LOOK_ALIKE)
    stamp: Any = rng.choice(EDGES)
    tokens = rng.choice(TOKENS) if rng.random() < 0.97 else rng.choice(BROKEN_TOKENS)
    account = rng.choice(["acct-1", "acct-2", "acct-3", "", None])
    base: dict[str, Any] = {"model": model}
    prompt = "p" * rng.randint(0, 40) + (" mail x@corp.example" if rng.random() < 0.2 else "")
    response = rng.choice(["ok", "see https://leak.example/x", None, "token sk-abcdefghijklmnop"])
    if litellm:
        base.update(
            id=f"req-{index}",
            startTime=stamp,
            prompt_tokens=tokens,
            metadata={"user_api_key_hash": account},
            call_type="call_mcp_tool" if rng.random() < 0.05 else "completion",
            session_id=f"s-{index % 7}",
            status=rng.choice(["success", "failure"]),
            messages=prompt,
            response=response,
        )
    else:
        base.update(
            timestamp=stamp,
            prompt_tokens=tokens,
            request_id=f"req-{index}" if rng.random() < 0.98 else None,
            account_id=account,
            session_id=f"s-{index % 7}",
            status=rng.choice([200, 200, 429, "200"]),
            prompt=prompt,
            response=response,
        )
    if rng.random() < 0.05:
        base.pop("prompt_tokens")  # missing: unknown
    return base


def trap_lines(seed: int, count: int, litellm: bool = False) -> list[str]:
    """Return ``count`` NDJSON lines (plus junk and blank lines), deterministic for ``seed``."""
    rng = random.Random(seed)
    lines: list[str] = []
    for index in range(count):
        roll = rng.random()
        if roll < 0.03:
            lines.append(rng.choice(JUNK))
        elif roll < 0.04:
            lines.append("")
        else:
            lines.append(json.dumps(_record(rng, seed * 1_000_000 + index, litellm)))
    return lines


def trap_ndjson(seed: int, count: int, litellm: bool = False) -> bytes:
    """Return :func:`trap_lines` as NDJSON bytes."""
    return "\n".join(trap_lines(seed, count, litellm)).encode() + b"\n"
