"""Merge the findings of the questionnaire scoring and of the deployment check (pure)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from assess.controls.catalogue import load_crosswalk
from assess.controls.models import FRAMEWORK_KEYS
from assess.kernel.common import Severity
from assess.report.models import ControlView, FindingView, ReportFinding
from assess.vendor.scoring.refs import assign_refs, ref_number

#: Deploy-check finding ids that corroborate a questionnaire finding (by id prefix): the two are
#: one finding, backed by both the vendor's answer and the server logs.
CORROBORATES = {
    "engine-version-affected": "advisory.",
    "pool-smaller-than-context": "pool-smaller-than-context",
}


def merge_findings(
    score_findings: Iterable[FindingView], deploy_findings: Iterable[FindingView]
) -> list[ReportFinding]:
    """Return the findings of both checks without duplicates, worst first.

    Per-node findings of the deployment check with the same id become one finding naming every
    node. A deployment finding that corroborates a questionnaire finding (see
    :data:`CORROBORATES`) or repeats one (same id or title) is folded into it: the questionnaire's
    wording is kept, the nodes are added, the stronger evidence level and the worse severity win.
    A finding keeps the score's ``ref`` (a folded deployment finding that of the one it joins);
    the deployment check's own findings are numbered after the score's last ref
    (:func:`~assess.vendor.scoring.refs.assign_refs`), so a ref names one finding everywhere.
    Worst first; within a severity, by ref.
    """
    kept: dict[str, dict[str, Any]] = {}
    by_title: dict[str, str] = {}
    score_ids = [f.id for f in score_findings]
    for view in (*score_findings, *deploy_findings):
        title = _strip_node(view.title, view.node)
        key = _merge_key(view, title, kept, by_title, score_ids)
        if key not in kept:
            data = view.model_dump(exclude={"node"})
            data.update(title=title, nodes=[view.node] if view.node else [])
            kept[key] = data
            by_title.setdefault(title.strip().lower(), key)
        else:
            _fold(kept[key], view)
    merged = [with_controls(ReportFinding.model_validate(data)) for data in kept.values()]
    ordered = sorted(merged, key=lambda f: (-f.severity.rank, not f.contradiction, f.id))
    refs = assign_refs([f.ref for f in ordered])
    numbered = [f.model_copy(update={"ref": r}) for f, r in zip(ordered, refs, strict=True)]
    return sorted(numbered, key=lambda f: (-f.severity.rank, ref_number(f.ref) or 0))


def _strip_node(title: str, node: str | None) -> str:
    """Drop a leading ``"<node>: "`` (the node list is shown beside the finding)."""
    prefix = f"{node}: " if node else ""
    return title[len(prefix) :] if prefix and title.startswith(prefix) else title


def _merge_key(
    view: FindingView,
    title: str,
    kept: dict[str, dict[str, Any]],
    by_title: dict[str, str],
    score_ids: list[str],
) -> str:
    if view.id in kept:
        return view.id
    if view.ref:
        return view.id  # a scored finding (it has a ref) is one row of its own, never folded
    if title.strip().lower() in by_title:
        return by_title[title.strip().lower()]
    prefix = CORROBORATES.get(view.id)
    if prefix is not None and view.source != "score":
        for sid in score_ids:
            if sid.startswith(prefix) and sid in kept:
                return sid
    return view.id


def _fold(old: dict[str, Any], view: FindingView) -> None:
    old["nodes"] = sorted({*old["nodes"], *([view.node] if view.node else [])})
    old["contradiction"] = old["contradiction"] or view.contradiction
    old["rests_on"] = list(dict.fromkeys([*old["rests_on"], *view.rests_on]))
    old["controls"] = [*old["controls"], *(c.model_dump() for c in view.controls)]
    if view.source and view.source not in old["source"].split(", "):
        old["source"] = ", ".join(filter(None, [old["source"], view.source]))
    level = view.evidence_level
    if level is not None and (
        old["evidence_level"] is None or level.rank > old["evidence_level"].rank
    ):
        old["evidence_level"] = level
    if view.severity.rank > Severity(old["severity"]).rank:
        old["severity"] = view.severity


def with_controls(finding: ReportFinding) -> ReportFinding:
    """Return ``finding`` with the controls its id maps to (controls/crosswalk.yaml) added to
    those its score or deploy-check document carried (a merged finding's), each once, in
    framework order."""
    mapped = load_crosswalk().for_finding(finding.id)
    unique: dict[tuple[str, str], ControlView] = {}
    for control in [*finding.controls, *(ControlView(**c.model_dump()) for c in mapped)]:
        unique.setdefault((control.framework, control.id), control)
    order: dict[str, int] = {key: n for n, key in enumerate(FRAMEWORK_KEYS)}
    ordered = sorted(unique.values(), key=lambda c: order.get(c.framework, len(order)))
    return finding.model_copy(update={"controls": ordered})
