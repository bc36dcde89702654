"""The cache audit's JUnit XML (built with the canary probe's suite helpers, assess/probe/junit.py):
a case per level and a verdict case; sharing fails, an unseen control is skipped, an
inconclusive verdict is an error."""

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


def test_a_clean_run_passes() -> None:
    _, clean = _suite(NOT_SHARED)
    counts = ("tests", "failures", "errors", "skipped")
    assert tuple(clean.get(k) for k in counts) == ("4", "0", "0", "0")


def test_an_inconclusive_run_is_an_error_not_green() -> None:
    """acc40 #6: without a positive control nothing passes; the verdict case is an error with
    the reason, so a dashboard reading only JUnit does not show the audit as passing."""
    _, blind = _suite(NO_CONTROL)
    counts = ("tests", "failures", "errors", "skipped")
    assert tuple(blind.get(k) for k in counts) == ("3", "0", "1", "2")
    cases = {c.get("name"): c for c in blind.iter("testcase")}
    assert cases["same-account"].find("skipped") is not None
    other = cases["other-organisation"].find("skipped")
    assert other is not None and "positive control" in (other.get("message") or "")
    error = cases["verdict"].find("error")
    assert error is not None and error.get("message") == "inconclusive"
    assert "INCONCLUSIVE: no caching is visible even within one account" in (error.text or "")
    outcomes = ("failure", "error", "skipped")
    passed = [n for n, c in cases.items() if not any(e.tag in outcomes for e in c)]
    assert passed == []
