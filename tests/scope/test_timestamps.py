"""Timestamps become UTC nanoseconds; no zone means UTC; epoch units by magnitude."""

from __future__ import annotations

from datetime import UTC, datetime

import pyarrow as pa
import pytest

from assess.scope.logs.timestamps import (
    datetime_to_ns,
    ns_to_datetime,
    parse_array,
    parse_timestamp,
)

END = datetime_to_ns(datetime(2026, 9, 9, 23, 59, 59, tzinfo=UTC))


@pytest.mark.parametrize(
    "value",
    [
        "2026-09-09T23:59:59Z",
        "2026-09-09T23:59:59",
        "2026-09-09 23:59:59",
        "2026-09-09T23:59:59+00:00",
        "2026-09-10T01:59:59+02:00",
        "2026-09-09T19:59:59-0400",
        "2026-09-09T23:59:59.000000000Z",
        1788998399,
        1788998399000,
        1788998399000000,
        1788998399000000000,
        "1788998399",
        1788998399.0,
    ],
)
def test_the_same_instant_in_every_spelling(value: object) -> None:
    assert parse_timestamp(value) == END


def test_fractions_are_kept_to_the_nanosecond() -> None:
    assert parse_timestamp("2026-09-09T23:59:59.5Z") == END + 500_000_000
    assert parse_timestamp("2026-09-09T23:59:59.000000001Z") == END + 1
    assert parse_timestamp("2026-09-09T23:59:59,25Z") == END + 250_000_000


@pytest.mark.parametrize(
    ("value", "fmt", "expected"),
    [
        (1788998399, "epoch_s", END),
        (1788998399000, "epoch_ms", END),
        (1788998399000000, "epoch_us", END),
        (1788998399, "epoch_ms", END // 1000),
    ],
)
def test_explicit_epoch_units(value: int, fmt: str, expected: int) -> None:
    assert parse_timestamp(value, fmt) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "value",
    [
        "",
        "yesterday",
        "2026-13-01T00:00:00Z",
        "2026-09-31",
        "2026-09-09T25:00:00Z",
        "2026-09-09T10:00:00+25:00",
        None,
        True,
        {"a": 1},
        [1],
    ],
)
def test_unparseable_values_are_none(value: object) -> None:
    assert parse_timestamp(value) is None


def test_iso_format_refuses_numbers() -> None:
    assert parse_timestamp(1788998399, "iso") is None


def test_vectorised_parse_agrees_with_scalar_parse() -> None:
    strings = ["2026-09-09T23:59:59Z", "2026-09-09T23:59:59.5Z", "2026-08-27T00:00:00.000001Z"]
    for kind in (pa.string(), pa.large_string()):  # polars hands over large_string
        parsed = parse_array(pa.array(strings, kind))
        assert parsed is not None
        assert parsed.to_pylist() == [parse_timestamp(s) for s in strings]
    numbers = [1788998399, 1788998399000, 1788998399000000]
    parsed = parse_array(pa.array(numbers))
    assert parsed is not None
    assert parsed.to_pylist() == [END, END, END]


def test_mixed_zone_column_falls_back() -> None:
    assert parse_array(pa.array(["2026-09-09T23:59:59Z", "2026-09-09 23:59:59"])) is None


def test_round_trip_to_datetime() -> None:
    assert ns_to_datetime(END + 500_000_000) == datetime(2026, 9, 9, 23, 59, 59, 500000, tzinfo=UTC)
