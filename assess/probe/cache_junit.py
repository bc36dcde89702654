"""JUnit XML of a cache audit: one test case per level, failed when a tenant's cache is shared."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from assess.probe.cache_models import CacheProbeResult
from assess.probe.junit import close_suite, open_suite


def cache_junit(result: CacheProbeResult) -> str:
    """Return ``result`` as a JUnit XML document: the same-account level is the positive control
    (skipped when no caching is visible), a cross-tenant level with caching visible a failure."""
    suite = open_suite(
        f"assess.cache-probe {result.endpoint} {result.model}",
        result.started_at,
        result.finished_at,
    )
    failures = skipped = 0
    for lv in result.levels:
        case = ET.SubElement(suite, "testcase", classname="cache-isolation", name=lv.level)
        text = f"p={lv.p_value} D+={lv.ks_statistic} cached_tokens={lv.cached_tokens_seen}"
        if lv.level == "same-account":
            if not lv.caching_visible:
                skipped += 1
                ET.SubElement(case, "skipped", message="positive control: no caching visible")
        elif lv.caching_visible:
            failures += 1
            ET.SubElement(case, "failure", message=f"{lv.level}: cache shared").text = text
        ET.SubElement(case, "system-out").text = f"{text}; {lv.power_note}"
    verdict = ET.SubElement(suite, "testcase", classname="cache-isolation", name="verdict")
    if result.verdict == "inconclusive":
        skipped += 1
        ET.SubElement(verdict, "skipped", message=result.summary)
    elif result.verdict != "not-shared":
        failures += 1
        ET.SubElement(verdict, "failure", message=result.verdict).text = result.summary
    return close_suite(suite, len(result.levels) + 1, failures, 0, skipped)
