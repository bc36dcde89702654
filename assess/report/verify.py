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
from pathlib import Path

from pydantic import ValidationError

from assess.kernel.errors import UsageError
from assess.report.bundle import bundle_file, input_checks, output_checks
from assess.report.files import MANIFEST_JSON, REPORT_JSON, REPORT_PDF
from assess.report.models import Manifest, Report
from assess.report.recompute import recompute_checks
from assess.report.recompute import recorded_command as recorded_command  # re-exported
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
        if f.counted:  # a finding resting on evidence the scoring left out is listed only
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
        checks += recompute_checks(folder, manifest, report, base)
    else:
        checks.append(Check(what="score recomputed from the inputs", status="not-checked",
                            detail="--no-inputs"))  # fmt: skip
    return checks
