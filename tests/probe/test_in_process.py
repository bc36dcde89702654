"""The probe as a library: lab and probe in one process, as the report demo uses them."""

from __future__ import annotations

import threading

from assess.lab.engine import LabConfig
from assess.lab.server import run_lab_server
from assess.probe.result import probe_endpoint
from assess.probe.run import ProbeAccount, ProbeConfig

A = ProbeAccount("A", "ASSESS_API_KEY", "k-a")
B = ProbeAccount("B", "OTHER_KEY", "k-b")


def test_probe_endpoint_finds_the_lab_leak() -> None:
    with run_lab_server(LabConfig()) as url:
        config = ProbeConfig(url, "lab-glm-5.3", rounds=1, long_prompt_tokens=400)
        result, state, _ = probe_endpoint(config, A, B)
    assert result.leak_found and result.complete and state.fatal is None
    assert {h.marker_id for h in result.hits} == {"m01"}


def test_a_set_stop_event_ends_the_run_incomplete() -> None:
    stop = threading.Event()
    stop.set()
    with run_lab_server(LabConfig()) as url:
        result, state, _ = probe_endpoint(ProbeConfig(url, "lab-glm-5.3"), A, B, stop)
    assert state.interrupted and not result.complete and result.requests == []
    assert result.errors[0].kind == "interrupted"
