"""Whether a piece of evidence is about the vendor assessed, and of the time assessed.

A probe run names its endpoint and model; a deploy-check names the models its startup logs
serve, the nodes, the logs' time span and what the user stated (``deploy-check --service /
--model``). Both are matched against the vendor's answers (``vendor.models``, ``vendor.service``)
and dated against the answers' date (:mod:`assess.vendor.scoring.freshness`). Evidence about the
lab, another host, another model or service, or stale evidence, is shown, labelled, and does not
score unless the user says it is for this vendor (``--evidence-for-vendor``).
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from urllib.parse import urlsplit

from pydantic import Field

from assess.kernel.model import Model
from assess.kernel.model_ids import normalise_model_id
from assess.vendor.answers import AnswerSet
from assess.vendor.scoring.evidence import CacheProbeEvidence, DeployEvidence, ProbeEvidence
from assess.vendor.scoring.freshness import Freshness, Period, date_of, judge

MODELS = "vendor.models"
SERVICE = "vendor.service"
_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


class EvidenceBinding(Model):
    """What one evidence item is about, whether it is of the time assessed, whether it scored."""

    kind: str
    endpoint: str = ""
    model: str = ""
    about_vendor: bool
    reason: str
    scored: bool
    service: str = Field(default="", description="The service the evidence states it is from")
    models: list[str] = Field(default_factory=list, description="Every model the evidence names")
    nodes: list[str] = Field(default_factory=list, description="Nodes (deploy-check)")
    dates: str = Field(default="", description="First..last date of the evidence, as known")
    freshness: Freshness = Field(
        default="undated", description="current, stale (does not score) or undated"
    )
    freshness_reason: str = ""


def _loopback(endpoint: str) -> bool:
    host = (urlsplit(endpoint).hostname or "").lower()
    if host in _LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def model_key(model_id: str) -> str:
    """Return the comparable form of ``model_id``: normalised (build suffixes such as -FP8 and
    -AWQ dropped there) after trailing path slashes, so a vendor's 'zai-org/GLM-5.3' matches a
    log's '/models/GLM-5.3-FP8/'."""
    return normalise_model_id(model_id.strip().rstrip("/"))


def _served(answers: AnswerSet) -> set[str]:
    served = answers.value(MODELS)
    return (
        {model_key(m) for m in served if isinstance(m, str)} if isinstance(served, list) else set()
    )


def _same_service(a: str, b: str) -> bool:
    return " ".join(a.lower().split()) == " ".join(b.lower().split())


def _model_verdict(names: set[str], models: list[str]) -> tuple[bool, str]:
    if not names:
        return True, "vendor.models is not answered: assumed about this vendor"
    if not models:
        return True, "the evidence names no model: assumed about this vendor"
    if any(model_key(m) in names for m in models):
        return True, f"model {', '.join(models)} is served by this vendor (vendor.models)"
    return False, f"another model ({', '.join(models)} is not in vendor.models)"


def _finish(
    binding: dict[str, object],
    about: bool,
    reason: str,
    when: tuple[Freshness, str],
    evidence_for_vendor: bool,
) -> EvidenceBinding:
    freshness, why = when
    counts = about and freshness != "stale"
    if not counts and evidence_for_vendor:
        reason += "; counted for this vendor (--evidence-for-vendor)"
    return EvidenceBinding.model_validate(
        {
            **binding,
            "about_vendor": about,
            "reason": reason,
            "scored": counts or evidence_for_vendor,
            "freshness": freshness,
            "freshness_reason": why,
        }
    )


def _span(first: dt.date | None, last: dt.date | None) -> tuple[dt.date, dt.date] | None:
    if first is None and last is None:
        return None
    a, b = first or last, last or first
    assert a is not None and b is not None
    return (min(a, b), max(a, b))


def _shown(span: tuple[dt.date, dt.date] | None) -> str:
    if span is None:
        return ""
    first, last = span
    return first.isoformat() if first == last else f"{first.isoformat()}..{last.isoformat()}"


def bind_probe(
    answers: AnswerSet,
    probe: ProbeEvidence | CacheProbeEvidence,
    evidence_for_vendor: bool,
    max_age_days: int = 30,
    period: Period | None = None,
) -> EvidenceBinding:
    """Return the binding of a probe run to the vendor's answers.

    Not about the vendor: a loopback endpoint (a lab), or a model the vendor does not list in
    ``vendor.models``. Stale: dated (``started_at``/``finished_at``) outside ``period``, or more
    than ``max_age_days`` before the answers. ``evidence_for_vendor`` makes it score anyway.
    A cache-isolation audit (kind ``cache-probe``) is bound the same way.
    """
    endpoint, model = probe.endpoint, probe.model
    if endpoint and _loopback(endpoint):
        host = urlsplit(endpoint).hostname
        about, reason = False, f"loopback host ({host}): a lab or simulation, not the vendor"
    else:
        about, reason = _model_verdict(_served(answers), [model] if model else [])
    span = _span(date_of(probe.started_at), date_of(probe.finished_at))
    return _finish(
        {
            "kind": "cache-probe" if isinstance(probe, CacheProbeEvidence) else "probe",
            "endpoint": endpoint,
            "model": model,
            "models": [model] if model else [],
            "dates": _shown(span),
        },
        about,
        reason,
        judge(span, answers.date, max_age_days, period),
        evidence_for_vendor,
    )


def bind_deploy(
    answers: AnswerSet,
    deploy: DeployEvidence,
    evidence_for_vendor: bool,
    max_age_days: int = 30,
    period: Period | None = None,
) -> EvidenceBinding:
    """Return the binding of a deploy-check to the vendor's answers.

    The models its logs name decide (the model stated with ``deploy-check --model`` when they
    name none); a stated ``--service`` that differs from ``vendor.service`` is another service.
    Dated by the logs' timestamps when they print the year; otherwise undated.
    """
    about_doc = deploy.about
    seen = about_doc.models_seen or list(
        dict.fromkeys(m for node in deploy.nodes for m in node.models)
    )
    models = seen or ([about_doc.model] if about_doc.model else [])
    vendor_service = answers.value(SERVICE)
    stated = about_doc.service
    if stated and isinstance(vendor_service, str) and vendor_service not in ("", "unknown"):
        if not _same_service(stated, vendor_service):
            about, reason = False, f"another service ({stated}; the vendor's is {vendor_service})"
        else:
            about, reason = _model_verdict(_served(answers), models)
            reason = f"service {stated} is the vendor's; {reason}"
    else:
        about, reason = _model_verdict(_served(answers), models)
    if (
        seen
        and about_doc.model
        and not any(model_key(m) == model_key(about_doc.model) for m in seen)
    ):
        reason += f" (stated --model {about_doc.model}, but the logs name {', '.join(seen)})"
    period_doc = about_doc.period
    span = None
    if period_doc is not None and period_doc.dated:
        span = _span(date_of(period_doc.start), date_of(period_doc.end))
    when = judge(span, answers.date, max_age_days, period)
    if period_doc is not None and not period_doc.dated:
        when = (
            "undated",
            f"the logs' timestamps print no year ({period_doc.start} to {period_doc.end}), "
            "so their age is not known",
        )
    return _finish(
        {
            "kind": "deploy-check",
            "model": models[0] if models else "",
            "models": models,
            "service": stated,
            "nodes": about_doc.nodes or [n.name for n in deploy.nodes if n.name],
            "dates": _shown(span)
            or (f"{period_doc.start}..{period_doc.end}" if period_doc else ""),
        },
        about,
        reason,
        when,
        evidence_for_vendor,
    )
