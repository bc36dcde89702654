"""``report.oscal.json``: the review as an OSCAL assessment-results document (NIST OSCAL 1.1.3).

One result holds what the review saw and concluded:

* **observations**, each with the method OSCAL names: ``EXAMINE`` for what was read (every
  questionnaire answer, every server startup log), ``TEST`` for what was done to the service (each
  canary probe run, the scoping of the request logs against the incident);
* **findings**, one per finding of the review (F-01 ...), the target being the questionnaire
  question it rests on, state ``not-satisfied``, linked to the observations behind it and to a
  **risk** carrying the severity and the recommended remediation;
* the inputs as **back-matter** resources with their SHA-256, the questionnaire standing for the
  assessment plan (``import-ap``: assess has no OSCAL plan to point at).

Every UUID is a UUID5 of the review's identity (:func:`document_uuid`: its report id, or for a
draft the vendor, service and questionnaire) and of the subject it names (a finding's id, a
question's id, an input's hash), never of the date or the content: a re-run a day later, or the
next revision of the same review, keeps every UUID, as OSCAL asks ("assigned per-subject ...
consistently used to identify the same subject across revisions of the document"). Informational
findings are observations, not findings: nothing failed, so no objective is ``not-satisfied``.
There is no OSCAL control catalog behind the questionnaire, so the reviewed controls are
described, never ``include-all``; the framework controls the findings map to (CSA AICM,
ISO/IEC 42001, NIST AI RMF) are referenced as :mod:`assess.report.oscal_controls` says.
"""

from __future__ import annotations

import json
import uuid
from typing import Any
from urllib.parse import quote

from assess.report.governance import Person
from assess.report.models import Report
from assess.report.oscal_controls import control_selections, framework_resources, with_controls
from assess.report.oscal_parts import (
    finding_risk,
    info_observation,
    observations,
    one_line,
    props,
)
from assess.report.oscal_schema import OSCAL_VERSION

#: Namespace of the review UUIDs. Never change it: every UUID of every review would change.
_ROOT = uuid.uuid5(uuid.NAMESPACE_URL, "urn:assess:oscal")


def review_identity(report: Report) -> str:
    """Return what names the review across runs and revisions: its report id (``--review``),
    else, for a draft, the vendor, service and questionnaire."""
    gov, vendor = report.governance, report.vendor
    if gov.report_id:
        return f"review/{gov.report_id}"
    return f"draft/{vendor.name}/{vendor.service}/{report.scoring.questionnaire}"


def document_uuid(report: Report) -> uuid.UUID:
    """Return the UUID of the document: a UUID5 of the review's identity, so the same review
    keeps its UUID whenever it is written, and another review has another."""
    return uuid.uuid5(_ROOT, review_identity(report))


def oscal_bytes(report: Report) -> bytes:
    """Return ``report.oscal.json`` as written: keys in the order OSCAL documents them."""
    text = json.dumps(oscal_document(report), indent=2, ensure_ascii=False)
    return (text + "\n").encode("utf-8")


def oscal_document(report: Report) -> dict[str, Any]:
    """Return the review as an OSCAL ``assessment-results`` document (a dict)."""
    ids = _Ids(document_uuid(report))
    resources = _resources(report, ids)
    plan = resources[0]["uuid"]
    return {
        "assessment-results": {
            "uuid": ids.root,
            "metadata": _metadata(report, ids),
            "import-ap": {
                "href": f"#{plan}",
                "remarks": "No OSCAL assessment plan: the plan was the questionnaire, the first "
                "back-matter resource.",
            },
            "results": [_result(report, ids, resources)],
            "back-matter": {"resources": resources},
        }
    }


class _Ids:
    """UUID5 names under the document's UUID."""

    def __init__(self, root: uuid.UUID) -> None:
        self._root = root
        self.root = str(root)

    def __call__(self, *parts: str) -> str:
        return str(uuid.uuid5(self._root, "/".join(parts)))


def _metadata(report: Report, ids: _Ids) -> dict[str, Any]:
    """The document's identity: the review's report id (``document-ids``) and version, its
    classification (OSCAL's ``marking``), the vendor and the people who signed it as parties
    with their roles (``responsible-parties``). A draft without a review file has no version of
    its own: its version is the generation time."""
    vendor, gov = report.vendor, report.governance
    meta: dict[str, Any] = {
        "title": f"Vendor review: {vendor.name}"
        + (f" ({vendor.service})" if vendor.service else ""),
        "last-modified": report.generated_at,
        "version": one_line(gov.version or "")
        or f"{report.generated_at} (assess {report.tool.version})",
        "oscal-version": OSCAL_VERSION,
    }
    if gov.report_id:
        meta["document-ids"] = [{"identifier": one_line(gov.report_id)}]
    meta["props"] = props(
        tier=report.tier, score=report.score, report_id=gov.report_id, status=gov.status
    )
    if gov.classification:
        meta["props"].append({"name": "marking", "value": one_line(gov.classification)})
    signed = [(role, who) for role, who in _signatures(report) if who is not None]
    if signed:
        meta["roles"] = [{"id": role, "title": role.capitalize()} for role, _ in signed]
    meta["parties"] = [
        {
            "uuid": ids("party", "vendor"),
            "type": "organization",
            "name": one_line(vendor.name) or "unnamed vendor",
        }
    ] + [
        {
            "uuid": ids("party", role),
            "type": "person",
            "name": one_line(who.name),
            "props": props(job_title=who.title, signed=who.date),
        }
        for role, who in signed
    ]
    if signed:
        meta["responsible-parties"] = [
            {"role-id": role, "party-uuids": [ids("party", role)]} for role, _ in signed
        ]
    return meta


def _signatures(report: Report) -> list[tuple[str, Person | None]]:
    gov = report.governance
    return [("assessor", gov.assessor), ("reviewer", gov.reviewer), ("approver", gov.approver)]


def _resources(report: Report, ids: _Ids) -> list[dict[str, Any]]:
    """The questionnaire (the plan), then one back-matter resource per input with its SHA-256."""
    name, version = report.scoring.questionnaire, report.scoring.questionnaire_version
    plan = {
        "uuid": ids("questionnaire", name, version),
        "title": f"Questionnaire {name}" + (f", version {version}" if version else ""),
        "description": "The questions the vendor answered and the rules that score them.",
        "props": props(role="plan"),
    }
    named: set[tuple[str, ...]] = set()

    def subject(role: str, sha256: str, path: str) -> str:
        key = (role, sha256) if (role, sha256) not in named else (role, sha256, path)
        named.add(key)
        return ids("input", *key)

    inputs = [
        {
            "uuid": subject(item.role, item.sha256, item.path),
            "title": item.path,
            "description": f"Input ({item.role}), {item.bytes} bytes",
            "props": props(role=item.role),
            "rlinks": [
                {
                    "href": quote(item.path),
                    "hashes": [{"algorithm": "SHA-256", "value": item.sha256}],
                }
            ],
        }
        for item in report.inputs
    ]
    return [plan, *inputs, *framework_resources(report, ids)]


def _start(report: Report) -> str:
    answered = report.vendor.answered_on
    start = f"{answered}T00:00:00Z" if answered else report.generated_at
    return min(start, report.generated_at)


def _result(report: Report, ids: _Ids, resources: list[dict[str, Any]]) -> dict[str, Any]:
    seen = observations(report, ids, resources)
    findings, risks = [], []
    for f in report.findings:
        if f.severity.value == "info":
            seen[f"finding:{f.id}"] = info_observation(report, f, ids, seen)
            continue
        finding, risk = finding_risk(report, f, ids, seen)
        findings.append(with_controls(finding, f, ids))
        risks.append(risk)
    result: dict[str, Any] = {
        "uuid": ids("result"),
        "title": f"Vendor review of {report.vendor.name}",
        "description": report.summary.tier_sentence,
        "start": _start(report),
        "end": report.generated_at,
        "props": props(
            tier=report.tier,
            score=report.score,
            points_total=report.scoring.points_total,
            coverage=None if report.coverage is None else f"{report.coverage:.3f}",
            evidence_verdict=report.evidence_verdict,
            questions_to_send=None if report.coverage is None else len(report.questions_to_send),
        ),
        "reviewed-controls": {
            "description": f"Every question of the questionnaire {report.scoring.questionnaire}.",
            "control-selections": [
                {
                    "description": "The questions of the questionnaire stand for the controls: "
                    "there is no OSCAL catalog behind them, so none is selected by control-id "
                    "(and not include-all)."
                },
                *control_selections(report),
            ],
        },
    }
    if seen:
        result["observations"] = list(seen.values())
    if risks:
        result["risks"] = risks
    if findings:
        result["findings"] = findings
    if report.not_assessed:
        result["remarks"] = " ".join(
            f"Not assessed ({n.section}): {n.reason}" for n in report.not_assessed
        )
    return result
