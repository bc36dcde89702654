"""Markers are high-entropy; the scan finds them whole, in fragments, in every field."""

from __future__ import annotations

import pytest

from assess.probe.markers import (
    MIN_BITS,
    Marker,
    new_marker,
    plant_prompt,
    scan_fields,
    scan_text,
)

M = Marker(
    id="m01",
    value="kv1-abcdefghijklmnopqrstuvwxyz234567",
    random_part="abcdefghijklmnopqrstuvwxyz234567",
)


def test_markers_are_random_unique_and_at_least_128_bits() -> None:
    markers = [new_marker(i) for i in range(50)]
    assert len({m.random_part for m in markers}) == 50
    for m in markers:
        assert m.bits >= MIN_BITS
        assert len(m.random_part) == 32
        assert set(m.random_part) <= set("abcdefghijklmnopqrstuvwxyz234567")
        assert m.value.endswith(m.random_part)


def test_plant_prompt_wraps_the_marker_in_natural_text() -> None:
    text = plant_prompt(M, 1)
    assert M.value in text
    assert len(text.split()) > 20


def test_full_marker_found_case_insensitively_with_offset() -> None:
    (hit,) = scan_text(f"Sure: {M.value.upper()}!", "content", [M], 8)
    assert hit.full and hit.text == M.value and hit.offset == 6 and hit.location == "content"


def test_fragment_of_the_random_part_is_a_hit_and_reported_maximal() -> None:
    (hit,) = scan_text("it said ...hijklmnopq... then stopped", "content", [M], 8)
    assert not hit.full
    assert hit.text == "hijklmnopq"


@pytest.mark.parametrize("k,found", [(8, False), (7, True)])
def test_fragments_shorter_than_the_threshold_are_ignored(k: int, found: bool) -> None:
    assert bool(scan_text("xx defghij xx", "content", [M], k)) is found


def test_two_separate_fragments_are_both_reported() -> None:
    hits = scan_text("abcdefghij and uvwxyz2345", "content", [M], 8)
    assert [h.text for h in hits] == ["abcdefghij", "uvwxyz2345"]


def test_every_field_is_scanned_and_named() -> None:
    fields = {
        "content": "nothing here",
        "reasoning_content": f"I recall {M.value}",
        "tool_calls[0].function.arguments": '{"q": "mnopqrstuv"}',
    }
    hits = scan_fields(fields, raw="", markers=[M], fragment_chars=8)
    assert {(h.location, h.full) for h in hits} == {
        ("reasoning_content", True),
        ("tool_calls[0].function.arguments", False),
    }


def test_raw_body_catches_fields_the_scanner_does_not_know() -> None:
    raw = '{"choices": [], "vendor_debug": "' + M.value + '"}'
    (hit,) = scan_fields({"content": "clean"}, raw, [M], 8)
    assert hit.location == "raw body" and hit.full


def test_clean_text_gives_no_hits() -> None:
    assert (
        scan_fields({"content": "The sky is blue because of Rayleigh scattering."}, "", [M], 8)
        == []
    )
