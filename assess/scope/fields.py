"""The canonical fields of a request log record: the one list presets, readers, the fast path,
the batch schema and the accumulator share.

Pure data (no pyarrow), so loading a preset or the CLI's help costs nothing.
"""

from __future__ import annotations

#: Every field a preset may map, in the column order of a canonical batch.
CANONICAL_FIELDS = (
    "timestamp",
    "model",
    "prompt_tokens",
    "request_id",
    "account_id",
    "session_id",
    "status",
    "prompt",
    "response",
    "provider",
    "endpoint",
    "output_tokens",
    "cache_hit",
    "prompt_tokens_native",
)
#: Fields held as int64 (timestamps as UTC nanoseconds); every other field is text.
INTEGER_FIELDS = ("timestamp", "prompt_tokens")
#: The prompt and response texts: read only for the rows the accumulator keeps.
TEXT_FIELDS = ("prompt", "response")
#: What the exposure estimate needs of each in-window request (docs/exposure.md): who served it
#: (provider, endpoint), its output tokens, whether it was a cache replay, and the native prompt
#: count (null beside a known prompt_tokens: the count is a fallback). Read as text, like the
#: texts, only for the rows the accumulator keeps.
EXPOSURE_FIELDS = ("provider", "endpoint", "output_tokens", "cache_hit", "prompt_tokens_native")
#: Filled on demand by the reference path (its rows hold the other fields already).
LATE_FIELDS = (*EXPOSURE_FIELDS, *TEXT_FIELDS)
#: A request's values without its texts (the reference path's row; what the accumulator keeps).
ROW_FIELDS = tuple(name for name in CANONICAL_FIELDS if name not in LATE_FIELDS)
#: Parsed by the fast path for every row: what the filter and the disclosed counts need.
FAST_FIELDS = ("timestamp", "model", "prompt_tokens", "account_id")
#: Read, like the texts, only for the rows the accumulator keeps.
DETAIL_FIELDS = tuple(name for name in ROW_FIELDS if name not in FAST_FIELDS)
#: Loaded on demand for kept rows: ``DETAIL_FIELDS``, ``EXPOSURE_FIELDS``, then ``TEXT_FIELDS``.
LOADED_FIELDS = (*DETAIL_FIELDS, *LATE_FIELDS)
#: Identifiers and status, where "" means no value.
ID_FIELDS = ("request_id", "account_id", "session_id", "status")
