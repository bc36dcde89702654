"""Turn a finished (or interrupted) run into the versioned evidence document (pure)."""

from __future__ import annotations

import threading
from datetime import datetime

from assess.probe.models import EchoControl, Hit, MarkerRecord, ProbeResult, ProbeStats, Verdict
from assess.probe.run import (
    ProbeAccount,
    ProbeConfig,
    ProbeRunner,
    RunState,
    new_run_id,
    now_utc,
)
from assess.probe.stats import METHOD, clopper_pearson_upper, rule_of_three, wilson_upper


def compute_stats(hits: int, probes: int, rejected: int = 0, unusable: int = 0) -> ProbeStats:
    """Return hits/probes with the one-sided 95% upper bounds (null bounds when probes == 0)."""
    if probes == 0:
        return ProbeStats(
            probes=0,
            hits=0,
            rejected=rejected,
            unusable=unusable,
            leak_rate_observed=None,
            leak_rate_upper_95=None,
            method=METHOD,
        )
    return ProbeStats(
        probes=probes,
        hits=hits,
        rejected=rejected,
        unusable=unusable,
        leak_rate_observed=round(hits / probes, 6),
        leak_rate_upper_95=round(clopper_pearson_upper(hits, probes), 6),
        method=METHOD,
        rule_of_three=round(rule_of_three(probes), 6) if hits == 0 else None,
        wilson_upper_95=round(wilson_upper(hits, probes), 6),
    )


def too_few_answers(stats: ProbeStats) -> str | None:
    """Return why the probe answers cannot support "no leak", or None when they can.

    The positive control of a clean run: a probe counts only when its answer held text a marker
    could have shown in. No such answer, or fewer of them than answers without (at least half
    must be usable), and nothing can be said about isolation.
    """
    answered = stats.probes + stats.unusable
    if stats.probes == 0:
        if stats.unusable:
            return (
                f"none of the probe answers could be scanned: {stats.unusable} held no text a "
                "marker could have shown in (empty streams, error events, no choices or empty "
                "content)"
            )
        return "no probe response could be scanned"
    if stats.unusable * 2 > answered:
        return (
            f"only {stats.probes} of {answered} probe answers held text a marker could have "
            f"shown in (at least half must); the other {stats.unusable} were empty"
        )
    return None


def control_failed(control: EchoControl | None) -> str | None:
    """Return why the echo control backs no "no leak" (not sent, or not echoed), else None."""
    if control is None:
        return "the control request (repeat a random code) was not sent"
    return None if control.echoed else control.why


def _summary(
    result_hits: int, stats: ProbeStats, complete: bool, first_hit: str, control: str | None
) -> str:
    tail = "" if complete else " The run did not finish: results are partial."
    if result_hits:
        return (
            f"LEAK FOUND: {stats.hits} of {stats.probes} probe responses carried a marker "
            f"planted by another request ({first_hit}).{tail}"
        )
    short = too_few_answers(stats) or control
    if short is not None:
        return f"INCONCLUSIVE: {short}; nothing can be said about isolation.{tail}"
    bound = stats.leak_rate_upper_95 or 0.0
    return (
        f"No leak found in {stats.probes} probes. With 95% confidence the leak rate is below "
        f"{bound:.1%} ({stats.method}; rule of three {stats.rule_of_three or 0:.1%}). A clean "
        f"result is a bound, not proof of isolation.{tail}"
    )


def build_result(
    config: ProbeConfig,
    runner: ProbeRunner,
    run_id: str,
    started_at: datetime,
    finished_at: datetime,
) -> ProbeResult:
    """Assemble the evidence document from the runner's state.

    ``probes`` counts every scanned response (HTTP 200 or a 4xx rejection) that could have shown
    a marker from another request; ``hits`` counts those that did.
    """
    state = runner.state
    requests = sorted(state.requests, key=lambda r: r.id)
    hits = sorted(state.hits, key=lambda h: (h.request_id, h.marker_id, h.location, h.offset))
    by_id = {r.id: r for r in requests}
    scanned = state.scanned
    stats = compute_stats(
        hits=sum(1 for had in scanned.values() if had),
        probes=len(scanned),
        rejected=sum(1 for rid in scanned if by_id[rid].outcome == "rejected"),
        unusable=len(state.unusable),
    )
    complete = not runner.should_stop()
    first = _first_hit(hits[0]) if hits else ""
    return ProbeResult(
        run_id=run_id,
        endpoint=config.endpoint,
        model=config.model,
        started_at=started_at,
        finished_at=finished_at,
        complete=complete,
        leak_found=bool(hits),
        mode="boundary" if config.long_prompt_tokens else "standard",
        accounts=runner.account_info(),
        settings=config.settings(),
        markers=[
            MarkerRecord(
                id=m.id,
                value=m.value,
                random_part=m.random_part,
                bits=m.bits,
                planted_in=planted_in,
                account=acc,
            )
            for m, planted_in, acc in state.markers
        ],
        requests=requests,
        hits=hits,
        errors=list(state.errors),
        stats=stats,
        summary=_summary(len(hits), stats, complete, first, control_failed(state.control)),
        control=state.control,
        verdict=_verdict(bool(hits), stats, complete, runner),
    )


def _first_hit(h: Hit) -> str:
    return (
        f"first: {h.request_id} (account {h.account}) showed {h.match} marker {h.marker_id} "
        f"planted by account {h.planted_by} in {h.planted_in}, in {h.location}"
    )


def _verdict(leak: bool, stats: ProbeStats, complete: bool, runner: ProbeRunner) -> Verdict:
    if leak:
        return "leak"
    clean = complete and runner.state.fatal is None and too_few_answers(stats) is None
    clean = clean and control_failed(runner.state.control) is None
    return "no-leak" if clean else "inconclusive"


def probe_endpoint(
    config: ProbeConfig,
    account_a: ProbeAccount,
    account_b: ProbeAccount,
    stop: threading.Event | None = None,
) -> tuple[ProbeResult, RunState, ProbeRunner]:
    """Run the whole protocol and return the evidence document, the raw state and the runner.

    The runner is returned for :meth:`ProbeRunner.redact` (apply it to anything written out).
    Never raises for endpoint trouble: check ``state.fatal`` and ``result.complete``.

    Example (the lab on a thread, one key)::

        with run_lab_server(LabConfig()) as url:
            a = ProbeAccount("A", "ASSESS_API_KEY", "any-key")
            b = ProbeAccount("B", "ASSESS_API_KEY", "any-key", "fresh client")
            result, _, _ = probe_endpoint(
                ProbeConfig(url, "lab-glm-5.3", long_prompt_tokens=400), a, b
            )
    """
    runner = ProbeRunner(config, account_a, account_b)
    run_id, started = new_run_id(), now_utc()
    state = runner.run(stop)
    return build_result(config, runner, run_id, started, now_utc()), state, runner
