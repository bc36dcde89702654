"""Response parsing and Retry-After handling of the httpx transport."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from assess.probe.transport.interface import MAX_RETRY_WAIT_S, parse_completion, retry_after_seconds


def test_every_text_field_of_a_completion_is_collected() -> None:
    body = {
        "choices": [
            {
                "message": {
                    "content": "answer",
                    "reasoning_content": "thinking",
                    "reasoning": "more thinking",
                    "tool_calls": [
                        {"id": "c1", "function": {"name": "lookup", "arguments": '{"q": 1}'}}
                    ],
                }
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2},
    }
    fields: dict[str, str] = {}
    assert parse_completion(body, fields) == (5, 2)
    assert fields == {
        "content": "answer",
        "reasoning_content": "thinking",
        "reasoning": "more thinking",
        "tool_calls[0].function.name": "lookup",
        "tool_calls[0].function.arguments": '{"q": 1}',
    }


def test_streamed_tool_call_deltas_join_by_index() -> None:
    fields: dict[str, str] = {}
    for piece in ('{"q"', ': "ab', 'c"}'):
        chunk = {
            "choices": [{"delta": {"tool_calls": [{"index": 2, "function": {"arguments": piece}}]}}]
        }
        parse_completion(chunk, fields)
    assert fields == {"tool_calls[2].function.arguments": '{"q": "abc"}'}


def test_a_body_without_choices_is_refused() -> None:
    with pytest.raises(ValueError, match="'choices'"):
        parse_completion({"data": []}, {})


@pytest.mark.parametrize(
    "header,attempt,expected",
    [("0", 0, 0.0), ("2.5", 0, 2.5), ("9999", 0, MAX_RETRY_WAIT_S), (None, 0, 1.0), (None, 3, 8.0)],
)
def test_retry_after_seconds(header: str | None, attempt: int, expected: float) -> None:
    assert retry_after_seconds(header, attempt) == expected


def test_retry_after_http_date_in_the_past_means_now() -> None:
    past = format_datetime(datetime.now(UTC) - timedelta(hours=1), usegmt=True)
    assert retry_after_seconds(past, 0) == 0.0
