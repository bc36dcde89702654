"""Whether a piece of evidence is about the vendor assessed: its endpoint and model against the
vendor's answers (``vendor.models``). Evidence about the lab, another host or another model is
shown, labelled, and does not score unless the user says it is for this vendor."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from assess.kernel.model import Model
from assess.kernel.model_ids import normalise_model_id
from assess.vendor.answers import AnswerSet

MODELS = "vendor.models"
_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


class EvidenceBinding(Model):
    """What one evidence item is about, and whether it counts for this vendor."""

    kind: str
    endpoint: str = ""
    model: str = ""
    about_vendor: bool
    reason: str
    scored: bool


def _loopback(endpoint: str) -> bool:
    host = (urlsplit(endpoint).hostname or "").lower()
    if host in _LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind_probe(
    answers: AnswerSet, endpoint: str, model: str, evidence_for_vendor: bool
) -> EvidenceBinding:
    """Return the binding of a probe run of ``model`` at ``endpoint`` to the vendor's answers.

    Not about the vendor: a loopback endpoint (a lab), or a model the vendor does not list in
    ``vendor.models``. ``evidence_for_vendor`` makes it score anyway (the user vouches for it).
    """
    served = answers.value(MODELS)
    names = {normalise_model_id(m) for m in served} if isinstance(served, list) else set()
    if endpoint and _loopback(endpoint):
        about, reason = (
            False,
            (f"loopback host ({urlsplit(endpoint).hostname}): a lab or simulation, not the vendor"),
        )
    elif names and model and normalise_model_id(model) not in names:
        about, reason = False, f"another model ({model} is not in vendor.models)"
    elif not names:
        about, reason = True, "vendor.models is not answered: assumed about this vendor"
    else:
        about, reason = True, f"model {model or '?'} is served by this vendor"
    if not about and evidence_for_vendor:
        reason += "; counted for this vendor (--evidence-for-vendor)"
    return EvidenceBinding(
        kind="probe",
        endpoint=endpoint,
        model=model,
        about_vendor=about,
        reason=reason,
        scored=about or evidence_for_vendor,
    )
