"""The signed statement of a review bundle: an in-toto Statement v1 in a DSSE envelope.

``assess report --sign KEY`` writes ``review.intoto.jsonl`` beside ``manifest.json``: one DSSE
envelope (one line of JSON) whose payload is an in-toto Statement
(https://github.com/in-toto/attestation/blob/main/spec/v1/statement.md). Its subjects are every
file of the review (the manifest included) with its SHA-256; its predicate names the command,
the inputs with their hashes, the tool and version, the signer's keyid and the time. A manifest
anyone can rewrite proves nothing; this statement can only be rewritten by the key's holder.

:func:`signature_checks` checks a folder against it: the signature first (by a trusted key),
then every file: changed, added or removed files fail whatever the manifest says.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from assess import __version__
from assess.report.bundle import folder_files
from assess.report.files import SIGNED_STATEMENT
from assess.report.models import Manifest
from assess.report.signing import (
    INTOTO_PAYLOAD_TYPE,
    PublicKey,
    keyid_of,
    open_envelope,
    sign_envelope,
)
from assess.report.verify_model import Check

#: The envelope's file name (the ``.intoto.jsonl`` convention of in-toto attestations).
ENVELOPE = SIGNED_STATEMENT
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
#: What the predicate is: assess's review bundle, version 1 (a URN: it names, it does not fetch).
PREDICATE_TYPE = "urn:assess:predicate:review-bundle:v1"


def statement_bytes(
    files: Mapping[str, bytes], manifest: Manifest, keyid: str, signer: str | None
) -> bytes:
    """Return the in-toto Statement of the review ``files`` (name -> bytes), sorted, compact."""
    statement: dict[str, Any] = {
        "_type": STATEMENT_TYPE,
        "subject": [
            {"name": name, "digest": {"sha256": hashlib.sha256(data).hexdigest()}}
            for name, data in sorted(files.items())
        ],
        "predicateType": PREDICATE_TYPE,
        "predicate": {
            "command": list(manifest.command),
            "inputs": [
                {"path": e.path, "role": e.role, "bytes": e.bytes, "digest": {"sha256": e.sha256}}
                for e in manifest.inputs
            ],
            "tool": {"name": manifest.tool.name, "version": __version__},
            "generated_at": manifest.generated_at,
            "signer": {"keyid": keyid, **({"name": signer} if signer else {})},
        },
    }
    return json.dumps(statement, sort_keys=True, separators=(",", ":")).encode("utf-8")


def envelope_bytes(
    files: Mapping[str, bytes],
    manifest: Manifest,
    key: Ed25519PrivateKey,
    signer: str | None = None,
) -> bytes:
    """Return ``review.intoto.jsonl``: the statement of ``files`` signed by ``key``."""
    payload = statement_bytes(files, manifest, keyid_of(key.public_key()), signer)
    return sign_envelope(payload, key, INTOTO_PAYLOAD_TYPE)


def signature_checks(folder: Path, trusted: Sequence[PublicKey]) -> tuple[list[Check], str | None]:
    """Return the checks of ``folder`` against its signed statement and the ``trusted`` keys
    (the signature, then one check per file: changed, added, removed), and the keyid of the
    key that verified the signature (None when none did)."""
    what = f"signature {ENVELOPE}"
    path = folder / ENVELOPE
    if path.is_symlink() or not path.is_file():
        return [Check(what=what, status="differs", detail="the bundle is not signed (no "
                      f"{ENVELOPE}), though a key was given to check it")], None  # fmt: skip
    try:
        opened = open_envelope(path.read_bytes(), trusted)
    except (OSError, ValueError) as exc:
        return [Check(what=what, status="differs", detail=str(exc))], None
    if opened.verified_by is None:
        spoofed = sorted(set(opened.keyids) & {k.keyid for k in trusted})
        if spoofed:
            return [Check(what=what, status="differs", detail="the signature does not verify "
                          f"with the trusted key {spoofed[0][:16]}... that the envelope names: "
                          "the signed statement or its signature was changed")], None  # fmt: skip
        named = ", ".join(k[:16] + "..." for k in opened.keyids) or "no keyid"
        keys = ", ".join(k.keyid[:16] + "..." for k in trusted)
        return [Check(what=what, status="differs", detail=f"not signed by a trusted key: the "
                      f"envelope names {named}; trusted: {keys}")], None  # fmt: skip
    subjects, problem = _subjects(opened.payload, opened.payload_type)
    if problem:
        return [Check(what=what, status="differs", detail=problem)], None
    checks = [Check(what=what, status="ok", detail=f"signed by {opened.verified_by.keyid[:16]}... "
                    f"({opened.verified_by.source}); {len(subjects)} files listed")]  # fmt: skip
    return checks + _file_checks(folder, subjects), opened.verified_by.keyid


def _subjects(payload: bytes, payload_type: str) -> tuple[dict[str, str], str]:
    if payload_type != INTOTO_PAYLOAD_TYPE:
        return {}, f"payloadType {payload_type!r}, not {INTOTO_PAYLOAD_TYPE}"
    try:
        doc = json.loads(payload)
        if doc.get("_type") != STATEMENT_TYPE or doc.get("predicateType") != PREDICATE_TYPE:
            return {}, f"not a review statement (_type {doc.get('_type')!r})"
        return {s["name"]: s["digest"]["sha256"] for s in doc["subject"]}, ""
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return {}, f"the signed statement cannot be read ({type(exc).__name__}: {exc})"


def _file_checks(folder: Path, subjects: Mapping[str, str]) -> list[Check]:
    files, odd = folder_files(folder)
    files.pop(ENVELOPE, None)
    checks = []
    for name in sorted({*subjects, *files, *odd}):
        what = f"signed file {name}"
        if name in odd:
            checks.append(Check(what=what, status="differs", detail="a symlink or special "
                                "file: refused, not read"))  # fmt: skip
        elif name not in files:
            checks.append(Check(what=what, status="differs", detail="removed: signed, not in "
                                "the folder"))  # fmt: skip
        elif name not in subjects:
            checks.append(Check(what=what, status="differs", detail="added: in the folder, "
                                "not signed"))  # fmt: skip
        else:
            digest = hashlib.sha256(files[name].read_bytes()).hexdigest()
            ok = digest == subjects[name]
            checks.append(Check(what=what, status="ok" if ok else "differs", detail=(
                "as signed" if ok else f"changed: sha256 {digest[:16]}..., signed "
                f"{subjects[name][:16]}...")))  # fmt: skip
    return checks
