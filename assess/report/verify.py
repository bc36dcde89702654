"""Check a review folder as an auditor would: hashes, the PDF's attachment, the score.

:func:`verify_review` re-hashes every file ``manifest.json`` lists (the outputs in the folder,
the inputs where they are found), compares the ``report.json`` attached to the PDF with
``report.json``, re-adds the findings' points, and recomputes the score from the recorded inputs
with the options the manifest's ``command`` recorded. It returns every check with whether it holds;
it never prints or exits (``assess verify`` does).
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from assess.kernel.errors import AssessError, UsageError
from assess.report.bundle import bundle_file, input_checks, output_checks, resolve_input
from assess.report.files import MANIFEST_JSON, REPORT_JSON, REPORT_PDF
from assess.report.models import Manifest, Report
from assess.report.signing import PublicKey
from assess.report.verify_model import Check, Signature, VerifyResult


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def load_manifest(folder: Path) -> Manifest:
    """Return the folder's manifest.

    Raises:
        UsageError: no such folder, or no manifest.json in it.
        InputError: a manifest that is not one (names file, line and field).
    """
    if not folder.is_dir():
        raise UsageError(
            f"verify: {folder}: no such folder", "Give the folder `assess report` wrote."
        )
    path = folder / MANIFEST_JSON
    if path.is_symlink():
        raise UsageError(
            f"verify: {path}: a symlink, refused: verify reads nothing outside the review folder",
            "Give the folder `assess report` wrote, with its own manifest.json.",
        )
    if not path.is_file():
        raise UsageError(
            f"verify: {folder}: no {MANIFEST_JSON} in it, so there is nothing to verify against",
            "Give the folder `assess report --out DIR` wrote (it always writes the manifest).",
        )
    return Manifest.from_path(path, "manifest.json is written by `assess report`.")


def _report_of(data: bytes, what: str) -> tuple[Report | None, Check | None]:
    try:
        return Report.model_validate(json.loads(data)), None
    except (ValueError, ValidationError) as exc:
        first = str(exc).splitlines()[0]
        return None, Check(what=what, status="differs", detail=f"not a review: {first}")


def pdf_attachment(pdf: bytes) -> bytes | None:
    """Return the ``report.json`` attached to a review PDF, or None when there is none.

    Raises:
        ValueError: when the PDF cannot be read.
    """
    import pypdf

    try:
        found = pypdf.PdfReader(io.BytesIO(pdf)).attachments.get(REPORT_JSON)
    except Exception as exc:  # pypdf raises many kinds on a damaged file
        raise ValueError(str(exc) or type(exc).__name__) from exc
    return found[0] if found else None


def _attachment_check(folder: Path, json_bytes: bytes | None) -> tuple[Check, bytes | None]:
    what = "PDF attachment report.json"
    try:
        attached = pdf_attachment((folder / REPORT_PDF).read_bytes())
    except (OSError, ValueError) as exc:
        return Check(what=what, status="differs", detail=f"the PDF cannot be read: {exc}"), None
    if attached is None:
        return Check(
            what=what, status="differs", detail="the PDF has no report.json attached"
        ), None
    if json_bytes is None:
        return Check(
            what=what, status="ok", detail="attached (no report.json to compare)"
        ), attached
    if attached != json_bytes:
        return Check(
            what=what,
            status="differs",
            detail=f"the PDF's report.json (sha256 {_hash(attached)[:16]}...) is not report.json "
            f"({_hash(json_bytes)[:16]}...)",
        ), attached
    return Check(what=what, status="ok", detail="identical to report.json"), attached


def arithmetic_checks(report: Report) -> list[Check]:
    """Return whether report.json adds up: points to ``points_total``, findings to the counts."""
    out = []
    points = sum(f.points or 0 for f in report.findings)
    total = report.scoring.points_total
    if total is not None:
        ok = points == total
        out.append(
            Check(
                what="points add up",
                status="ok" if ok else "differs",
                detail=f"the findings' points sum to {points}; points_total says {total}",
            )
        )
    counts = dict.fromkeys(report.scoring.severity_counts, 0)
    for f in report.findings:
        counts[f.severity.value] = counts.get(f.severity.value, 0) + 1
    stated = report.scoring.severity_counts
    out.append(
        Check(
            what="severity counts",
            status="ok" if counts == stated else "differs",
            detail="match the findings" if counts == stated else f"{stated} stated, {counts} found",
        )
    )
    return out


@dataclass(frozen=True)
class _Recorded:
    """The options of the recorded `assess report` command that bear on the score."""

    questionnaire: str | None = None
    probes: list[str] = field(default_factory=list)
    deploy_check: str | None = None
    deploy_logs: list[str] = field(default_factory=list)
    evidence_for_vendor: bool = False
    period: str | None = None
    review: str | None = None  # its scope.period is the period when --period is absent


_REPEATED = {"--probe": "probes", "--deploy-log": "deploy_logs"}
_SINGLE = {"--questionnaire": "questionnaire", "-q": "questionnaire",
           "--deploy-check": "deploy_check", "--period": "period",
           "--review": "review"}  # fmt: skip
_FLAGS = {"--include-prompts", "--evidence-for-vendor"}


def recorded_command(command: Sequence[str]) -> _Recorded:
    """Return the score-bearing options of the manifest's canonical ``assess report`` command.

    Options it does not know (added by later versions) are skipped with their value.
    """
    values: dict[str, Any] = {"probes": [], "deploy_logs": []}
    words = list(command[2:]) if list(command[:2]) == ["assess", "report"] else list(command)
    i = 0
    while i < len(words):
        word, nxt = words[i], (words[i + 1] if i + 1 < len(words) else None)
        if word in _FLAGS:
            values["evidence_for_vendor"] = values.get("evidence_for_vendor", False) or (
                word == "--evidence-for-vendor"
            )
            i += 1
        elif word in _REPEATED and nxt is not None:
            values[_REPEATED[word]].append(nxt)
            i += 2
        elif word in _SINGLE and nxt is not None:
            values[_SINGLE[word]] = nxt
            i += 2
        else:  # an option of a later version: skip it and its value, if it has one
            i += 2 if nxt is not None and not nxt.startswith("-") else 1
    return _Recorded(**values)


def _rescored(recorded: _Recorded, base: Path, generated_at: str) -> Report:
    """Return the review rebuilt from the recorded inputs (request logs left out: they do not
    bear on the score).

    Raises:
        AssessError: an input that cannot be found or read.
    """
    from assess.report.build import build_report
    from assess.report.inputs import ReportRequest, gather

    def found(path: str) -> Path:
        where = resolve_input(path, base)
        if where is None:
            raise UsageError(f"{path}: not found", "")
        return where

    if recorded.questionnaire is None:
        raise UsageError("the recorded command names no --questionnaire", "")
    req = ReportRequest(
        questionnaire=found(recorded.questionnaire),
        probes=[found(p) for p in recorded.probes],
        deploy_check=found(recorded.deploy_check) if recorded.deploy_check else None,
        deploy_logs=[str(found(p)) for p in recorded.deploy_logs],
        evidence_for_vendor=recorded.evidence_for_vendor,
        period=recorded.period,
        review=found(recorded.review) if recorded.review else None,
        cwd=base,
    )
    return build_report(gather(req).sources, generated_at)


def _findings(report: Report) -> list[tuple[str, str, str, int | None]]:
    return [(f.ref, f.id, f.severity.value, f.points) for f in report.findings]


def score_check(report: Report, manifest: Manifest, base: Path) -> Check:
    """Return whether the score recomputed from the recorded inputs is the stated one."""
    what = "score recomputed from the inputs"
    try:
        again = _rescored(recorded_command(manifest.command), base, report.generated_at)
    except AssessError as exc:
        return Check(what=what, status="differs", detail=f"cannot be recomputed: {exc.message}")
    except (ValueError, OSError) as exc:  # a damaged input the readers did not expect
        return Check(what=what, status="differs", detail=f"cannot be recomputed: {exc}")
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
        return Check(what=what, status="differs", detail="; ".join(problems))
    return Check(
        what=what,
        status="ok",
        detail=f"score {again.score}, tier {again.tier}, {len(again.findings)} findings as stated",
    )


def verify_review(
    folder: Path,
    inputs: Path | None = None,
    check_inputs: bool = True,
    keys: Sequence[PublicKey] | None = None,
) -> VerifyResult:
    """Verify the review in ``folder``; inputs are looked for under ``inputs`` (default: the
    current folder; shipped samples are found in the installation).

    With ``keys`` (trusted public keys) the signed statement is checked first: a signature by
    none of them, or a changed, added or removed file, fails whatever the manifest says.
    ``check_inputs=False`` checks the folder alone: input hashes and the recomputed score are
    'not-checked'.

    Raises:
        UsageError: no such folder, or no manifest.json in it (and no signature that fails).
        InputError: a manifest.json that is not one.
    """
    if not folder.is_dir():
        raise UsageError(
            f"verify: {folder}: no such folder", "Give the folder `assess report` wrote."
        )
    first, signature, signed_by = _signature(folder, keys)
    try:
        manifest = load_manifest(folder)
    except UsageError:
        if signature != "failed":
            raise
        return VerifyResult(folder=str(folder), checks=first, signature=signature)
    checks = first + _review_checks(folder, manifest, inputs, check_inputs)
    return VerifyResult(folder=str(folder), checks=checks, signature=signature, signed_by=signed_by)


def _signature(
    folder: Path, keys: Sequence[PublicKey] | None
) -> tuple[list[Check], Signature, str | None]:
    """Return the signature's checks, its status and the keyid that verified it."""
    from assess.report.attest import ENVELOPE, signature_checks

    if keys:
        checks, keyid = signature_checks(folder, keys)
        if keyid is not None and all(c.status == "ok" for c in checks):
            return checks, "verified", keyid
        return checks, "failed", None
    if (folder / ENVELOPE).is_file():
        detail = (f"{ENVELOPE} is there but was not checked: give --key PUB or "
                  "--trusted-keys FILE")  # fmt: skip
        return [Check(what="signature", status="not-checked", detail=detail)], "not-checked", None
    detail = "unsigned: no " + ENVELOPE + " (sign with `assess report --sign KEY`)"
    return [Check(what="signature", status="not-checked", detail=detail)], "unsigned", None


def _review_checks(
    folder: Path, manifest: Manifest, inputs: Path | None, check_inputs: bool
) -> list[Check]:
    """Return the checks against the manifest: hashes, the PDF's report.json, the score."""
    base = inputs if inputs is not None else Path.cwd()
    checks = output_checks(folder, manifest) + input_checks(manifest, base, check_inputs)
    listed = {e.path for e in manifest.outputs}
    json_path, _ = bundle_file(folder, REPORT_JSON)
    json_bytes = (
        json_path.read_bytes()
        if REPORT_JSON in listed and json_path is not None and json_path.is_file()
        else None
    )
    source = json_bytes
    pdf_path, _ = bundle_file(folder, REPORT_PDF)
    if REPORT_PDF in listed and pdf_path is not None and pdf_path.is_file():
        check, attached = _attachment_check(folder, json_bytes)
        checks.append(check)
        source = source if source is not None else attached
    if source is None:
        checks.append(Check(what="report.json", status="differs", detail="neither report.json "
                            "nor a PDF carrying it is in the folder"))  # fmt: skip
        return checks
    report, problem = _report_of(source, "report.json")
    if report is None:
        checks.append(problem or Check(what="report.json", status="differs"))
        return checks
    checks += arithmetic_checks(report)
    if check_inputs:
        checks.append(score_check(report, manifest, base))
    else:
        checks.append(Check(what="score recomputed from the inputs", status="not-checked",
                            detail="--no-inputs"))  # fmt: skip
    return checks
