"""JUnit XML for CI dashboards: one test case per scanned probe response, plus the verdict."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime

from assess.probe.models import ProbeResult


def probe_junit(result: ProbeResult) -> str:
    """Return ``result`` as a JUnit XML document (UTF-8 text, one ``testsuite``).

    Each request is a test case: a hit is a ``failure``, a transport error an ``error``; a final
    ``isolation`` case carries the verdict and the statistics so a dashboard shows the bound.
    """
    hits_by_request: dict[str, list[str]] = {}
    for hit in result.hits:
        hits_by_request.setdefault(hit.request_id, []).append(
            f"{hit.match} marker {hit.marker_id} (planted by {hit.planted_by} in "
            f"{hit.planted_in}) in {hit.location}: {hit.text}"
        )
    suite = open_suite(
        f"assess.probe {result.endpoint} {result.model}", result.started_at, result.finished_at
    )
    failures = errors = 0
    for req in result.requests:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"probe.round{req.round}",
            name=f"{req.id} {req.role} account {req.account}" + (" stream" if req.stream else ""),
            time=f"{(req.latency_ms or 0) / 1000:.3f}",
        )
        if req.id in hits_by_request:
            failures += 1
            lines = hits_by_request[req.id]
            ET.SubElement(case, "failure", message=f"{len(lines)} marker hit(s)").text = "\n".join(
                lines
            )
        elif req.outcome == "error":
            errors += 1
            ET.SubElement(case, "error", message=req.error or "request failed")
    verdict = ET.SubElement(suite, "testcase", classname="probe", name="isolation")
    stats = result.stats
    detail = (
        f"{stats.hits} hits in {stats.probes} probes; 95% upper bound on the leak rate "
        f"{stats.leak_rate_upper_95} ({stats.method}); complete={str(result.complete).lower()}"
    )
    outcome = _verdict_outcome(result)
    if outcome is not None:
        kind, message = outcome
        ET.SubElement(verdict, kind, message=message).text = result.summary
        failures += kind == "failure"
        errors += kind == "error"
    ET.SubElement(verdict, "system-out").text = detail
    return close_suite(suite, len(result.requests) + 1, failures, errors, 0)


def open_suite(name: str, started: datetime, finished: datetime) -> ET.Element:
    """Return an empty ``testsuite`` named ``name``, stamped with the run's start and length."""
    return ET.Element(
        "testsuite",
        name=name,
        # the JUnit schema's timestamp: ISO 8601 without a zone (here UTC) or fractions
        timestamp=started.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S"),
        time=f"{(finished - started).total_seconds():.3f}",
    )


def close_suite(suite: ET.Element, tests: int, failures: int, errors: int, skipped: int) -> str:
    """Return ``suite`` with its counts as a JUnit XML document (UTF-8 text)."""
    for key, value in (("tests", tests), ("failures", failures), ("errors", errors),
                       ("skipped", skipped)):  # fmt: skip
        suite.set(key, str(value))
    ET.indent(suite)
    body = ET.tostring(suite, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"


def _verdict_outcome(result: ProbeResult) -> tuple[str, str] | None:
    """Return the isolation case's element and message; None for a clean verdict."""
    if result.leak_found:
        return "failure", "cross-request leak found"
    if not result.complete:
        return "error", "run incomplete"
    if result.stats.probes == 0:
        return "error", "nothing scanned"
    if result.verdict == "inconclusive":
        return "error", "inconclusive"
    return None
