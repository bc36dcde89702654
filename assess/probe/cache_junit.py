"""JUnit XML of a cache audit: one test case per level, failed when a tenant's cache is shared."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from assess.probe.cache_models import CacheProbeResult, LevelResult
from assess.probe.junit import close_suite, open_suite


def cache_junit(result: CacheProbeResult) -> str:
    """Return ``result`` as a JUnit XML document: the same-account level is the positive control
    (skipped when no caching is visible), a cross-tenant level with caching visible a failure,
    one that cannot say (its comparison invalid, or no control) skipped with the reason. The
    verdict case fails on sharing and is an *error* when the audit is inconclusive: a run that
    could not say anything must not look green to a dashboard that reads only JUnit."""
    suite = open_suite(
        f"assess.cache-probe {result.endpoint} {result.model}",
        result.started_at,
        result.finished_at,
    )
    failures = errors = skipped = 0
    for lv in result.levels:
        case = ET.SubElement(suite, "testcase", classname="cache-isolation", name=lv.level)
        text = f"p={lv.p_value} D+={lv.ks_statistic} cached_tokens={lv.cached_tokens_seen}"
        why = _cannot_say(result, lv)
        if lv.level == "same-account" and not lv.caching_visible and not lv.inconclusive_reason:
            skipped += 1
            ET.SubElement(case, "skipped", message="positive control: no caching visible")
        elif lv.level != "same-account" and lv.caching_visible and not lv.inconclusive_reason:
            failures += 1
            ET.SubElement(case, "failure", message=f"{lv.level}: cache shared").text = text
        elif why:
            skipped += 1
            ET.SubElement(case, "skipped", message=why)
        ET.SubElement(case, "system-out").text = f"{text}; {lv.power_note}"
    verdict = ET.SubElement(suite, "testcase", classname="cache-isolation", name="verdict")
    if result.verdict == "inconclusive":
        errors += 1
        ET.SubElement(verdict, "error", message="inconclusive").text = result.summary
    elif result.verdict != "not-shared":
        failures += 1
        ET.SubElement(verdict, "failure", message=result.verdict).text = result.summary
    return close_suite(suite, len(result.levels) + 1, failures, errors, skipped)


def _cannot_say(result: CacheProbeResult, lv: LevelResult) -> str | None:
    """Why a level's case can neither pass nor fail: its comparison is invalid, or the run is
    inconclusive (no positive control, stopped early) and the level shows nothing."""
    if lv.inconclusive_reason:
        return f"cannot compare: {lv.inconclusive_reason}"
    if result.verdict == "inconclusive" and not lv.caching_visible:
        return f"says nothing: {result.summary}"
    return None
