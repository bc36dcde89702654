"""The framework controls of ``report.oscal.json``'s findings (docs/controls.md).

OSCAL references a control by ``control-id`` in a catalog; CSA AICM, ISO/IEC 42001 and NIST AI
RMF have no OSCAL catalog assess could import, and their ids (``I&S-06``, ``MEASURE 2.7``) are
not OSCAL tokens. So each framework a finding maps to is a back-matter **resource** (its name,
version and the publisher's page), the result's ``reviewed-controls`` gets one
**control-selection** per framework listing the controls as tokens (``csa-aicm-I_S-06``), and
each finding carries its controls as **links** to the framework's resource (``rel: reference``,
the text the control's id and title) and as ``control-id`` **properties** holding the
framework's own id, the framework as the property's ``class``.
"""

from __future__ import annotations

from typing import Any

from assess.controls.catalogue import load_crosswalk
from assess.controls.models import Framework
from assess.report.models import ControlView, Report, ReportFinding
from assess.report.oscal_parts import Ids, one_line, props, token

#: Namespace of the control-id properties (the framework is the property's class).
CONTROLS_NS = "urn:assess:oscal:controls"


def _frameworks() -> dict[str, Framework]:
    return {str(key): fw for key, fw in load_crosswalk().frameworks.items()}


def _label(fw: Framework) -> str:
    """'CSA AI Controls Matrix (AICM) 1.0'; 'ISO/IEC 42001:2023 Annex A' (its version in it)."""
    return fw.name if fw.version in fw.name else f"{fw.name} {fw.version}"


def control_token(control: ControlView) -> str:
    """Return the OSCAL token standing for ``control``: ``csa-aicm-I_S-06``."""
    return token(f"{control.framework}-{control.id}")


def framework_resources(report: Report, ids: Ids) -> list[dict[str, Any]]:
    """One back-matter resource per framework the review's findings map to."""
    frameworks = _frameworks()
    used = dict.fromkeys(c.framework for f in report.findings for c in f.controls)
    out = []
    for key in used:
        fw = frameworks.get(key)
        if fw is None:
            continue
        out.append(
            {
                "uuid": ids("framework", key),
                "title": _label(fw),
                "description": f"Control ids and titles of {_label(fw)} "
                f"(published {fw.published}); licence: {fw.licence}. The ids and titles were "
                f"checked against {fw.list_from}; which control a finding maps to is assess's "
                "judgement (controls/crosswalk.yaml, each group's basis and source).",
                "props": props(role="framework", framework=key, version=fw.version),
                # the publisher's page, then the copy the ids and titles were checked against
                "rlinks": [{"href": fw.source}, {"href": fw.list_from}],
            }
        )
    return out


def control_selections(report: Report) -> list[dict[str, Any]]:
    """One control-selection per framework: the controls the non-informational findings map to."""
    frameworks = _frameworks()
    chosen: dict[str, dict[str, ControlView]] = {}
    for f in report.findings:
        if f.severity.value == "info":
            continue
        for c in f.controls:
            chosen.setdefault(c.framework, {}).setdefault(c.id, c)
    out = []
    for key, controls in chosen.items():
        fw = frameworks.get(key)
        name = _label(fw) if fw is not None else key
        out.append(
            {
                "description": f"{name}: the controls the findings show not satisfied "
                "(assess's crosswalk, controls/crosswalk.yaml). The ids are OSCAL tokens of "
                "the framework's own (each finding's control-id properties hold those).",
                "props": props(framework=key),
                "include-controls": [{"control-id": control_token(c)} for c in controls.values()],
            }
        )
    return out


def finding_controls(f: ReportFinding, ids: Ids) -> dict[str, Any]:
    """The ``links`` and ``props`` a finding gets for its controls ({} when it has none)."""
    if not f.controls:
        return {}
    known = _frameworks()
    return {
        "props": [
            {
                "name": "control-id",
                "ns": CONTROLS_NS,
                "value": one_line(c.id),
                "class": token(c.framework),
            }
            for c in f.controls
        ],
        "links": [
            {
                "href": f"#{ids('framework', c.framework)}",
                "rel": "reference",
                "text": one_line(f"{c.id} {c.title}"),
            }
            for c in f.controls
            if c.framework in known
        ],
    }


def with_controls(finding: dict[str, Any], f: ReportFinding, ids: Ids) -> dict[str, Any]:
    """Return the OSCAL ``finding`` with ``f``'s control properties and links, keys in the
    order OSCAL documents them (``props``, then ``links``, then the rest)."""
    extra = finding_controls(f, ids)
    if not extra:
        return finding
    out: dict[str, Any] = {}
    for key, value in finding.items():
        out[key] = value + extra["props"] if key == "props" else value
        if key == "props" and extra["links"]:
            out["links"] = extra["links"]
    return out
