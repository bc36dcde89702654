"""Recompute a review from its recorded inputs, as `assess verify` does.

The manifest records the canonical `assess report` command. With every input at hand the whole
review is rebuilt (same ``generated_at``) and its outputs (report.json, report.html, report.pdf,
report.oscal.json, findings-register.xlsx, affected-requests.csv) are rendered again and compared
byte for byte, and every file the recorded ``--format`` writes must be listed; the score, the
exposure (counts and ids), the governance and the plan are compared by name, so a difference says
what moved. An input that is not at hand is never a difference: what needs it is "cannot check",
naming the input. Without the request logs (or the earlier review) the score alone is recomputed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assess.kernel.errors import AssessError
from assess.report.bundle import bundle_file, resolve_input, unsafe_reason
from assess.report.files import (
    AFFECTED_CSV,
    FINDINGS_XLSX,
    REPORT_HTML,
    REPORT_JSON,
    REPORT_OSCAL,
    REPORT_PDF,
)
from assess.report.models import Manifest, Report
from assess.report.verify_model import Check
from assess.scope.statement import INFLATE, NO_OWN_OVERLAP, PlatformStatement
from assess.scope.statement import OPTIONS as PLATFORM_OPTIONS

if TYPE_CHECKING:
    from assess.report.api import Review

#: The outputs rendered again, by the format that writes them.
RERENDERED = {
    REPORT_JSON: "json",
    REPORT_HTML: "html",
    REPORT_PDF: "pdf",
    REPORT_OSCAL: "oscal",
    FINDINGS_XLSX: "xlsx",
}
SCORE = "score recomputed from the inputs"


@dataclass(frozen=True)
class Recorded:
    """The options of the recorded `assess report` command that bear on the review."""

    questionnaire: str | None = None
    logs: list[str] = field(default_factory=list)
    incident: str | None = None
    preset: str | None = None
    probes: list[str] = field(default_factory=list)
    deploy_check: str | None = None
    deploy_logs: list[str] = field(default_factory=list)
    include_prompts: bool = False
    evidence_for_vendor: bool = False
    due_from_review_date: bool = False
    period: str | None = None
    review: str | None = None  # its scope.period is the period when --period is absent
    previous: str | None = None
    formats: str | None = None
    #: the platform statement's and reading options as recorded (option -> text, "" for a flag)
    platform: dict[str, str] = field(default_factory=dict)


_REPEATED = {"--probe": "probes", "--deploy-log": "deploy_logs", "--logs": "logs"}
_SINGLE = {"--answers": "questionnaire", "-a": "questionnaire",
           "--questionnaire": "questionnaire", "-q": "questionnaire",  # manifests before --answers
           "--deploy-check": "deploy_check", "--period": "period", "--review": "review",
           "--incident": "incident", "--preset": "preset", "--previous": "previous",
           "--format": "formats"}  # fmt: skip
_FLAGS = {"--include-prompts": "include_prompts", "--evidence-for-vendor": "evidence_for_vendor",
          "--due-from-review-date": "due_from_review_date"}  # fmt: skip


def recorded_command(command: Sequence[str]) -> Recorded:
    """Return the options of the manifest's canonical ``assess report`` command.

    Options it does not know (added by later versions) are skipped with their value.
    """
    values: dict[str, Any] = {"probes": [], "deploy_logs": [], "logs": []}
    words = list(command[2:]) if list(command[:2]) == ["assess", "report"] else list(command)
    i = 0
    while i < len(words):
        word, nxt = words[i], (words[i + 1] if i + 1 < len(words) else None)
        if word in _FLAGS:
            values[_FLAGS[word]] = True
            i += 1
        elif word == NO_OWN_OVERLAP:
            values.setdefault("platform", {})[word] = ""
            i += 1
        elif word in _REPEATED and nxt is not None:
            values[_REPEATED[word]].append(nxt)
            i += 2
        elif word in _SINGLE and nxt is not None:
            values[_SINGLE[word]] = nxt
            i += 2
        elif (word in PLATFORM_OPTIONS or word == INFLATE) and nxt is not None:
            values.setdefault("platform", {})[word] = nxt
            i += 2
        else:  # an option of a later version: skip it and its value, if it has one
            i += 2 if nxt is not None and not nxt.startswith("-") else 1
    return Recorded(**values)


def _found(path: str, base: Path) -> Path | None:
    where = resolve_input(path, base)
    if where is None and unsafe_reason(path) is None and (base / path).is_dir():
        return base / path  # --previous DIR: an earlier review's folder
    return where


def _request(rec: Recorded, base: Path, whole: bool) -> tuple[Any, list[str]]:
    """Return the ReportRequest of the recorded inputs found under ``base`` and the inputs that
    are not (the request is None then). ``whole``: the logs and the earlier review too."""
    from assess.report.inputs import ReportRequest

    wanted = [rec.questionnaire or "", *rec.probes, *rec.deploy_logs]
    wanted += [p for p in (rec.deploy_check, rec.review) if p]
    if whole:
        wanted += [*rec.logs, *([rec.previous] if rec.previous else [])]
    found = {p: _found(p, base) for p in wanted}
    missing = [p or "(no --answers recorded)" for p, where in found.items() if where is None]
    if missing:
        return None, missing

    def at(path: str | None) -> Path | None:
        return found[path] if path else None

    req = ReportRequest(
        questionnaire=found[rec.questionnaire or ""] or Path(),
        logs=[str(found[p]) for p in rec.logs] if whole else [],
        incident=rec.incident if whole else None,
        preset=rec.preset if whole else None,
        platform=PlatformStatement.from_words(rec.platform) if whole else PlatformStatement(),
        probes=[found[p] or Path() for p in rec.probes],
        deploy_check=at(rec.deploy_check),
        deploy_logs=[str(found[p]) for p in rec.deploy_logs],
        include_prompts=rec.include_prompts,
        evidence_for_vendor=rec.evidence_for_vendor,
        period=rec.period,
        review=at(rec.review),
        previous=at(rec.previous) if whole else None,
        due_from_review_date=rec.due_from_review_date,
        cwd=base,
    )
    return req, []


def recompute_checks(folder: Path, manifest: Manifest, report: Report, base: Path) -> list[Check]:
    """Return the checks of the review recomputed from its inputs under ``base``: the score,
    then (every input at hand) the exposure, governance, plan and each re-rendered output."""
    from assess.report.api import review

    rec = recorded_command(manifest.command)
    req, missing_whole = _request(rec, base, whole=True)
    if req is None:
        req, missing = _request(rec, base, whole=False)
        if req is None:
            why = _cannot(f"{', '.join(missing)} not present under {base}")
            return [Check(what=SCORE, status="not-checked", detail=why), _not_rendered(why)]
    try:
        again = review(req, report.generated_at)
    except AssessError as exc:
        return [Check(what=SCORE, status="differs", detail=f"cannot be recomputed: {exc.message}")]
    except (ValueError, OSError) as exc:  # a damaged input the readers did not expect
        return [Check(what=SCORE, status="differs", detail=f"cannot be recomputed: {exc}")]
    other = _other_questionnaire(report, again.report)
    if other is not None:
        return [other, _not_rendered(other.detail)]
    checks = [score_compare(report, again.report)]
    if missing_whole:
        why = _cannot(f"{', '.join(missing_whole)} not present under {base}")
        return [*checks, _not_rendered(why)]
    checks += section_checks(report, again.report)
    checks += _unlisted(rec, manifest, again.affected_rows is not None, again.notification_pack)
    return checks + _rerendered(folder, manifest, again)


def _unlisted(
    rec: Recorded, manifest: Manifest, has_csv: bool, pack: Mapping[str, str] | None
) -> list[Check]:
    """Return a difference per file the recorded command writes that the manifest does not list
    (a file deleted with its manifest entry)."""
    if rec.formats is None:
        return []
    from assess.report.files import FORMATS, parse_formats

    try:
        wanted = set(parse_formats(rec.formats))
    except AssessError:
        wanted = set(FORMATS)
    from assess.report.notification import notification_files

    names = [n for n, fmt in RERENDERED.items() if fmt in wanted] + ([AFFECTED_CSV] * has_csv)
    names += list(notification_files(pack))
    listed = {e.path for e in manifest.outputs}
    return [
        Check(
            what=f"output {n}",
            status="differs",
            detail=f"the recorded command (--format "
            f"{rec.formats}) writes it; the manifest does not list it",
        )  # fmt: skip
        for n in sorted(set(names) - listed)
    ]


def _not_rendered(why: str) -> Check:
    what = "exposure, governance, plan and outputs re-rendered from the inputs"
    return Check(what=what, status="not-checked", detail=why)


def _cannot(why: str) -> str:
    return f"cannot check: {why} (give --inputs FOLDER)"


def _findings(report: Report) -> list[tuple[str, str, str, int | None]]:
    return [(f.ref, f.id, f.severity.value, f.points) for f in report.findings]


def _other_questionnaire(report: Report, again: Report) -> Check | None:
    """Return a 'not-checked' score when the review was scored with another version of its
    questionnaire than this assess has (its rules, questions and weights differ: the recomputed
    score would differ for that reason alone), else None."""
    stated, now = report.scoring, again.scoring
    if (stated.questionnaire, stated.questionnaire_version) == (
        now.questionnaire,
        now.questionnaire_version,
    ) or not stated.questionnaire_version:
        return None
    return Check(
        what=SCORE,
        status="not-checked",
        detail=(
            f"cannot check: the review was scored with questionnaire {stated.questionnaire} "
            f"version {stated.questionnaire_version}; this assess scores with "
            f"{now.questionnaire} version {now.questionnaire_version}, whose rules and weights "
            f"differ (verify it with the assess that made it, or make the review again)"
        ),
    )


def score_compare(report: Report, again: Report) -> Check:
    """Return whether the recomputed score, tier, points and findings are the stated ones."""
    stated = (report.score, str(report.tier), report.scoring.points_total)
    found = (again.score, str(again.tier), again.scoring.points_total)
    problems = []
    if stated != found:
        problems.append(
            "score {}, tier {}, points {} stated; recomputed {}, {}, {}".format(*stated, *found)
        )
    if _findings(report) != _findings(again):
        changed = sorted(set(_findings(report)) ^ set(_findings(again)))
        shown = "; ".join(f"{r} {i} ({s}, {p} points)" for r, i, s, p in changed[:4])
        problems.append(f"findings differ: {shown}")
    if again.scoring != report.scoring:
        problems.append("the scoring section differs (formula, sections or decisive rules)")
    if problems:
        return Check(what=SCORE, status="differs", detail="; ".join(problems))
    return Check(
        what=SCORE,
        status="ok",
        detail=f"score {again.score}, tier {again.tier}, {len(again.findings)} findings as stated",
    )


def _accounts(report: Report) -> str:
    n = report.notification
    if n is None:
        return "none (no logs)"
    return f"{len(n.accounts)} account(s)" if n.available else "not available"


def section_checks(report: Report, again: Report) -> list[Check]:
    """Return the exposure, governance and plan of ``report`` against the recomputed ones."""
    exp, exp2 = report.exposure, again.exposure
    shown = f"{exp2.received} received" if exp2.assessed else "not assessed (no logs)"
    pairs = [
        ("exposure recomputed from the logs", exp == exp2, shown, f"{exp.received} received"),
        (
            "governance recomputed from the review file",
            report.governance == again.governance,
            f"status {again.governance.status}, decision {again.governance.decision or '-'}",
            f"status {report.governance.status}, decision {report.governance.decision or '-'}",
        ),
        (
            "notification appendix recomputed from the logs",
            report.notification == again.notification,
            _accounts(again),
            _accounts(report),
        ),
        (
            "plan recomputed from the review file",
            report.remediation == again.remediation and report.previous == again.previous,
            f"{len(again.remediation)} item(s)",
            f"{len(report.remediation)} item(s)",
        ),
    ]
    models = {
        "exposure recomputed from the logs": (exp, exp2),
        "notification appendix recomputed from the logs": (report.notification, again.notification),
    }
    return [
        Check(what=what, status="ok", detail=f"{found} as stated")
        if same
        else Check(
            what=what,
            status="differs",
            detail=f"{stated} stated; recomputed {found}"
            + (f"; {differences(*models[what])}" if what in models else ""),
        )
        for what, same, found, stated in pairs
    ]


def differences(stated: Any, again: Any, limit: int = 3) -> str:
    """Return the first ``limit`` values that differ between two models (or None), each by its
    dotted path with the stated and the recomputed value."""

    def plain(model: Any) -> Any:
        return model.model_dump(mode="json") if hasattr(model, "model_dump") else model

    found: list[str] = []

    def walk(a: Any, b: Any, path: str) -> None:
        if len(found) >= limit or a == b:
            return
        if isinstance(a, dict) and isinstance(b, dict):
            keys = [*a, *(k for k in b if k not in a)]
            for key in sorted(keys, key=lambda k: k == "platform_share"):  # superseded: last
                walk(a.get(key), b.get(key), f"{path}.{key}" if path else str(key))
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                walk(x, y, f"{path}[{i}]")
        else:
            found.append(f"{path or 'the section'}: {_short(a)} stated, {_short(b)} recomputed")

    walk(plain(stated), plain(again), "")
    return "; ".join(found) or "they differ"


def _short(value: Any) -> str:
    """A value as JSON, cut to 80 characters."""
    import json

    text = json.dumps(value, default=str)
    return text if len(text) <= 80 else f"{text[:77]}..."


def _rerendered(folder: Path, manifest: Manifest, review: Review) -> list[Check]:
    from assess.report.files import render_outputs

    listed = [e.path for e in manifest.outputs]
    formats = [RERENDERED[n] for n in listed if n in RERENDERED]
    rows = review.affected_rows if AFFECTED_CSV in listed else None
    fresh = render_outputs(review.report, formats, rows, review.notification_pack)
    checks = []
    for name in listed:
        what = f"output {name} re-rendered"
        path, reason = bundle_file(folder, name)
        data = path.read_bytes() if path is not None and path.is_file() else None
        if name not in fresh or data is None:
            detail = "the recorded command does not write it" if name not in fresh else reason
            checks.append(Check(what=what, status="differs", detail=detail or "no such file"))
        elif fresh[name] == data:
            checks.append(Check(what=what, status="ok", detail="byte for byte as written"))
        else:
            at = next(
                (i for i, (a, b) in enumerate(zip(fresh[name], data, strict=False)) if a != b), None
            )
            where = f"first at byte {at:,}" if at is not None else "lengths differ"
            checks.append(Check(what=what, status="differs", detail=f"{len(data):,} bytes "
                                f"written, {len(fresh[name]):,} rendered; {where}"))  # fmt: skip
    return checks
