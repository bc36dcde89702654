"""Write the review's files: report.html, report.pdf, report.json, the CSV and manifest.json.

Every file goes through :mod:`assess.kernel.atomic`. ``report.json`` and ``manifest.json`` are
reproducible: with ``SOURCE_DATE_EPOCH`` set, the same inputs give the same bytes (keys in a
fixed order, lists sorted, paths reduced to names, the date taken from the environment).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assess import __version__
from assess.kernel.atomic import write_bytes
from assess.kernel.atomic_dir import can_swap, swap_in
from assess.kernel.clock import generation_time as generation_time  # re-exported
from assess.kernel.errors import OutputError, UsageError
from assess.report.models import Manifest, ManifestEntry, Report, ReportInput, Tool

if TYPE_CHECKING:  # cryptography is imported only when a review is signed
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

#: Every format `--format` accepts, in the order the files are written.
FORMATS = ("html", "pdf", "json", "oscal", "xlsx")
#: What `assess report` writes without `--format` (the OSCAL and xlsx exports are asked for).
DEFAULT_FORMATS = ("html", "pdf", "json")
REPORT_JSON = "report.json"
REPORT_HTML = "report.html"
REPORT_PDF = "report.pdf"
AFFECTED_CSV = "affected-requests.csv"
MANIFEST_JSON = "manifest.json"
REPORT_OSCAL = "report.oscal.json"
FINDINGS_XLSX = "findings-register.xlsx"
#: The signed statement (`--sign`): the DSSE envelope of an in-toto Statement (attest.py).
SIGNED_STATEMENT = "review.intoto.jsonl"
#: assess's own file names in a review folder: replaced by a new review, other files kept.
REVIEW_FILES = (
    REPORT_JSON,
    REPORT_HTML,
    REPORT_PDF,
    REPORT_OSCAL,
    FINDINGS_XLSX,
    AFFECTED_CSV,
    "notification-accounts.csv",
    "notification-requests.csv",
    "notification-method.md",
    "notification-pack.json",
    SIGNED_STATEMENT,
    MANIFEST_JSON,
)


@dataclass(frozen=True)
class Signing:
    """The key that signs a review (``--sign``) and, optionally, the signer's name."""

    key: Ed25519PrivateKey
    name: str | None = None


@dataclass(frozen=True)
class WrittenReview:
    """The files written, in the order they were written, the manifest, and the review files of
    an earlier run that this one did not write and so removed."""

    paths: list[Path]
    manifest: Manifest
    removed: tuple[Path, ...] = ()


def parse_formats(value: str) -> tuple[str, ...]:
    """Parse ``--format html,pdf,json,oscal,xlsx`` (any subset, any order).

    Raises:
        UsageError: naming the allowed formats.
    """
    wanted = [part.strip().lower() for part in value.split(",") if part.strip()]
    unknown = [w for w in wanted if w not in FORMATS]
    if unknown or not wanted:
        raise UsageError(
            f"--format: '{value}' is not a list of formats",
            f"Use a comma-separated subset of: {','.join(FORMATS)}.",
        )
    return tuple(f for f in FORMATS if f in wanted)


def report_json_bytes(report: Report) -> bytes:
    """Return ``report.json`` exactly as written (and attached to the PDF)."""
    return (report.model_dump_json(indent=2) + "\n").encode("utf-8")


def affected_csv_bytes(rows: Sequence[Mapping[str, Any]]) -> bytes:
    """Return the affected requests as the scope's affected-ids CSV (:mod:`assess.scope.ids`:
    the `scope --ids-csv` layout, written through the kernel's one CSV writer)."""
    from assess.scope.ids import ids_csv_text

    return ids_csv_text(rows).encode("utf-8")


def write_review(
    report: Report,
    out_dir: Path,
    formats: Sequence[str],
    command: Sequence[str],
    affected_rows: Sequence[Mapping[str, Any]] | None = None,
    signing: Signing | None = None,
    force: bool = False,
    notification_pack: Mapping[str, str] | None = None,
) -> WrittenReview:
    """Write the review into ``out_dir`` and return what was written.

    The review is built in a staging folder beside ``out_dir`` and swapped in
    (:func:`assess.kernel.atomic_dir.swap_in`), so a crash leaves the old review or the new one;
    files of the old folder that are not assess's own are kept. ``affected_rows`` (given when
    logs were scoped) becomes ``affected-requests.csv``. The manifest is always written, last,
    and lists the SHA-256 of every input and every other output. With ``signing``, the signed
    statement of every file, the manifest included, is written beside it
    (:mod:`assess.report.attest`).

    Raises:
        UsageError: ``out_dir`` holds a review already and ``force`` is not set.
        OutputError: when a file cannot be written.
    """
    if not force:
        refuse_existing(out_dir)
    outputs = render_outputs(report, formats, affected_rows, notification_pack)
    manifest = build_manifest(report.inputs, outputs, command, report.generated_at)
    files = {**outputs, MANIFEST_JSON: manifest_bytes(manifest)}  # the manifest last
    if signing is not None:
        from assess.report.attest import envelope_bytes

        files[SIGNED_STATEMENT] = envelope_bytes(files, manifest, signing.key, signing.name)
    if not can_swap(out_dir):
        # A mount point or a folder whose parent is read-only: written file by file in place.
        paths = [write_bytes(out_dir / name, data) for name, data in outputs.items()]
        removed = _remove_stale(out_dir, set(files))
        paths += [write_bytes(out_dir / n, files[n]) for n in files if n not in outputs]
        return WrittenReview(paths=paths, manifest=manifest, removed=removed)
    stale = tuple(
        out_dir / name for name in REVIEW_FILES if name not in files and (out_dir / name).is_file()
    )

    def fill(staging: Path) -> None:
        for name, data in files.items():
            write_bytes(staging / name, data)

    swap_in(out_dir, fill, replaced=REVIEW_FILES)
    return WrittenReview(paths=[out_dir / name for name in files], manifest=manifest, removed=stale)


def refuse_existing(out_dir: Path) -> None:
    """Refuse to write over a review: ``out_dir`` holding any of assess's review files.

    Raises:
        UsageError: naming the files found and what to do.
    """
    if out_dir.is_symlink() or (out_dir.exists() and not out_dir.is_dir()):
        raise UsageError(f"--out {out_dir}: not a folder", "Give a new folder.")
    found = [n for n in REVIEW_FILES if (out_dir / n).exists() or (out_dir / n).is_symlink()]
    if found:
        raise UsageError(
            f"--out {out_dir}: holds a review already ({', '.join(found)}); it is not replaced",
            "Give a new folder, or --force to replace that review.",
        )


def render_outputs(
    report: Report,
    formats: Sequence[str],
    affected_rows: Sequence[Mapping[str, Any]] | None,
    notification_pack: Mapping[str, str] | None = None,
) -> dict[str, bytes]:
    """Return the review's files but the manifest, by name, in the order they are listed
    (``notification_pack``: the scope's notification files, under their review names)."""
    json_bytes = report_json_bytes(report)
    outputs: dict[str, bytes] = {}
    if "json" in formats:
        outputs[REPORT_JSON] = json_bytes
    if "html" in formats:
        from assess.report.html import render_html

        outputs[REPORT_HTML] = render_html(report).encode("utf-8")
    if "pdf" in formats:
        from assess.report.pdf import render_pdf

        outputs[REPORT_PDF] = render_pdf(report, json_bytes)
    if "oscal" in formats:
        from assess.report.oscal import oscal_bytes

        outputs[REPORT_OSCAL] = oscal_bytes(report)
    if "xlsx" in formats:
        from assess.report.register import register_bytes

        outputs[FINDINGS_XLSX] = register_bytes(report)
    if affected_rows is not None:
        outputs[AFFECTED_CSV] = affected_csv_bytes(affected_rows)
    from assess.report.notification import notification_files

    outputs.update(notification_files(notification_pack))
    return outputs


def _remove_stale(out_dir: Path, written: set[str]) -> tuple[Path, ...]:
    """Remove the review files an earlier run left in ``out_dir`` that this run did not write
    (a PDF from a run with ``--format pdf``, the affected requests of a run that had logs), so
    the folder holds one review, the one its manifest lists. Only assess's own file names.

    Raises:
        OutputError: when such a file cannot be removed.
    """
    removed = []
    for name in REVIEW_FILES[:-1]:  # all but the manifest
        path = out_dir / name
        if name in written or not path.is_file():
            continue
        try:
            path.unlink()
        except OSError as exc:
            raise OutputError(
                f"{path}: left by an earlier review and cannot be removed ({exc.strerror or exc})",
                "Remove it, or write the review into an empty folder.",
            ) from exc
        removed.append(path)
    return tuple(removed)


def build_manifest(
    inputs: Sequence[ReportInput],
    outputs: Mapping[str, bytes],
    command: Sequence[str],
    generated_at: str,
) -> Manifest:
    """Return the manifest: inputs and outputs (sorted, hashed), tool, command, time."""
    return Manifest(
        tool=Tool(version=__version__),
        command=list(command),
        generated_at=generated_at,
        inputs=sorted(
            (
                ManifestEntry(
                    path=i.path,
                    bytes=i.bytes,
                    sha256=i.sha256,
                    role=i.role,
                    engine=i.engine,
                    query_sha256=i.query_sha256,
                )
                for i in inputs
            ),
            key=lambda e: (e.role or "", e.path, e.sha256),
        ),
        outputs=[
            ManifestEntry(path=name, bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
            for name, data in sorted(outputs.items())
        ],
    )


def manifest_bytes(manifest: Manifest) -> bytes:
    """Return ``manifest.json`` as written."""
    return (manifest.model_dump_json(indent=2, exclude_none=True) + "\n").encode("utf-8")
