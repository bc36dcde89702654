"""The cache audit's JUnit XML (built with the canary probe's suite helpers, assess/probe/junit.py):
a case per level and a verdict case; sharing fails, an unseen control is skipped."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from assess.probe.cache_junit import cache_junit
from tests.score.cache_docs import NO_CONTROL, NOT_SHARED, SHARED, cache_result


def _suite(shared: dict[str, bool]) -> tuple[str, ET.Element]:
    text = cache_junit(cache_result(shared))
    return text, ET.fromstring(text.encode("utf-8"))


def test_shared_fails_the_cross_tenant_level_and_the_verdict() -> None:
    text, suite = _suite(SHARED)
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    assert (
        suite.get("name")
        == "assess.cache-probe https://api.edge-inference.example/v1 @cf/zai-org/glm-5.3"
    )
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "2", "0")
    failed = [c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None]
    assert failed == ["other-organisation", "verdict"]
    assert suite.get("timestamp") == "2026-09-02T10:00:00"


def test_a_clean_run_passes_and_no_control_is_skipped() -> None:
    _, clean = _suite(NOT_SHARED)
    assert (clean.get("tests"), clean.get("failures"), clean.get("skipped")) == ("4", "0", "0")
    _, blind = _suite(NO_CONTROL)
    skipped = [c.get("name") for c in blind.iter("testcase") if c.find("skipped") is not None]
    assert skipped == ["same-account", "verdict"] and blind.get("skipped") == "2"
