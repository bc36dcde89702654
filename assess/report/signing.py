"""Ed25519 keys and DSSE envelopes: how a review bundle is signed and its signature checked.

A key pair is two PEM files: the private key (PKCS#8, optionally encrypted with a passphrase,
file mode 0600) and the public key (SubjectPublicKeyInfo), the formats ``openssl`` and every
crypto library read. A key is named by its *keyid*, computed as securesystemslib (the in-toto
and TUF reference implementation) computes it: the SHA-256 of the canonical JSON
``{"keytype": "ed25519", "keyval": {"public": HEX}, "scheme": "ed25519"}``, so a third party
using that library finds the same id. The envelope is DSSE v1
(https://github.com/secure-systems-lab/dsse/blob/master/envelope.md): the signature is over the
pre-authentication encoding ``PAE(payloadType, payload)``, never over the raw payload.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from assess.kernel.errors import InputError, OutputError

#: The DSSE payload type of an in-toto Statement.
INTOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json"
_PEM_PUBLIC = b"-----BEGIN PUBLIC KEY-----"
_PEM_PUBLIC_END = b"-----END PUBLIC KEY-----"


@dataclass(frozen=True)
class PublicKey:
    """A trusted Ed25519 public key, its keyid and where it came from."""

    key: Ed25519PublicKey
    keyid: str
    source: str

    @property
    def pem(self) -> bytes:
        """Return the key as PEM (SubjectPublicKeyInfo)."""
        return self.key.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )


def keyid_of(key: Ed25519PublicKey) -> str:
    """Return the securesystemslib keyid of ``key`` (SHA-256 of its canonical JSON)."""
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    doc = {"keytype": "ed25519", "keyval": {"public": raw.hex()}, "scheme": "ed25519"}
    canonical = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def pae(payload_type: str, payload: bytes) -> bytes:
    """Return DSSE's pre-authentication encoding of ``payload`` (what is signed)."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %b %d %b" % (len(kind), kind, len(payload), payload)


def new_key_pair(private_path: Path, public_path: Path, passphrase: bytes | None) -> str:
    """Write a new Ed25519 key pair and return its keyid. The private key is created with mode
    0600 and never replaces a file (``O_EXCL``); it is encrypted when ``passphrase`` is given.

    Raises:
        OutputError: a file exists already, or cannot be written.
    """
    for path in (private_path, public_path):
        if path.exists():
            raise OutputError(
                f"{path}: exists already", "Give another name, or remove the old key first."
            )
    key = Ed25519PrivateKey.generate()
    encryption: serialization.KeySerializationEncryption = (
        serialization.BestAvailableEncryption(passphrase)
        if passphrase
        else serialization.NoEncryption()
    )
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    try:
        fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(private)
        os.chmod(private_path, 0o600)  # whatever the umask
        fd = os.open(public_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(public)
    except OSError as exc:
        raise OutputError(f"{exc.filename}: cannot write the key ({exc.strerror or exc})") from exc
    return keyid_of(key.public_key())


def private_key_is_encrypted(path: Path) -> bool:
    """True when the PEM private key at ``path`` needs a passphrase.

    Raises:
        InputError: the file cannot be read.
    """
    return b"ENCRYPTED" in _read(path, "private key").split(b"\n", 1)[0]


def load_private_key(path: Path, passphrase: bytes | None) -> Ed25519PrivateKey:
    """Return the Ed25519 private key in the PEM file ``path``.

    Raises:
        InputError: unreadable, not an Ed25519 private key, or a wrong or missing passphrase.
    """
    data = _read(path, "private key")
    try:
        key = serialization.load_pem_private_key(data, password=passphrase or None)
    except TypeError as exc:  # a passphrase given for a plain key, or none for an encrypted one
        raise InputError(f"{path}: {exc}", _PASSPHRASE_ADVICE) from exc
    except ValueError as exc:
        raise InputError(
            f"{path}: not a readable private key, or a wrong passphrase ({exc})",
            _PASSPHRASE_ADVICE,
        ) from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise InputError(f"{path}: not an Ed25519 key", "Make one with `assess keys new`.")
    return key


_PASSPHRASE_ADVICE = (
    "An encrypted key needs its passphrase: set it in the variable --passphrase-env names, "
    "or type it at the prompt."
)


def load_public_keys(path: Path) -> list[PublicKey]:
    """Return every Ed25519 public key in the PEM file ``path`` (one key, or a trusted-keys
    file of several PEM blocks; lines outside the blocks are comments).

    Raises:
        InputError: unreadable, no public key in it, or a key that is not Ed25519.
    """
    data = _read(path, "public key")
    keys = []
    for n, block in enumerate(_pem_blocks(data), start=1):
        try:
            key = serialization.load_pem_public_key(block)
        except ValueError as exc:
            raise InputError(f"{path}: key {n}: not a PEM public key ({exc})") from exc
        if not isinstance(key, Ed25519PublicKey):
            raise InputError(f"{path}: key {n}: not an Ed25519 key", "Use `assess keys new`.")
        keys.append(PublicKey(key=key, keyid=keyid_of(key), source=f"{path}#{n}"))
    if not keys:
        raise InputError(
            f"{path}: no public key in it",
            "Give the .pub file `assess keys new` wrote (PEM: -----BEGIN PUBLIC KEY-----).",
        )
    return keys


def _pem_blocks(data: bytes) -> list[bytes]:
    blocks, start = [], data.find(_PEM_PUBLIC)
    while start >= 0:
        end = data.find(_PEM_PUBLIC_END, start)
        if end < 0:
            break
        blocks.append(data[start : end + len(_PEM_PUBLIC_END)] + b"\n")
        start = data.find(_PEM_PUBLIC, end)
    return blocks


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from exc


def sign_envelope(payload: bytes, key: Ed25519PrivateKey, payload_type: str) -> bytes:
    """Return the DSSE envelope of ``payload`` signed by ``key``, as one line of JSON."""
    signature = key.sign(pae(payload_type, payload))
    envelope = {
        "payload": base64.b64encode(payload).decode("ascii"),
        "payloadType": payload_type,
        "signatures": [
            {
                "keyid": keyid_of(key.public_key()),
                "sig": base64.b64encode(signature).decode("ascii"),
            }
        ],
    }
    return (json.dumps(envelope, separators=(",", ":")) + "\n").encode("ascii")


@dataclass(frozen=True)
class Opened:
    """An envelope read: its payload, type, the keyids it names, and the key that verified it
    (None when no trusted key did)."""

    payload: bytes
    payload_type: str
    keyids: tuple[str, ...]
    verified_by: PublicKey | None


def open_envelope(data: bytes, trusted: Sequence[PublicKey]) -> Opened:
    """Parse a DSSE envelope and check its signatures against every trusted key (a keyid is
    only a hint: each signature is tried with each key).

    Raises:
        ValueError: not a DSSE envelope (named part).
    """
    try:
        doc: Any = json.loads(data.decode("utf-8").strip().splitlines()[0])
        payload = base64.b64decode(doc["payload"], validate=True)
        payload_type = str(doc["payloadType"])
        signatures = [
            (str(s.get("keyid", "")), base64.b64decode(s["sig"], validate=True))
            for s in doc["signatures"]
        ]
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        raise ValueError(f"not a DSSE envelope ({type(exc).__name__}: {exc})") from exc
    signed = pae(payload_type, payload)
    for _, sig in signatures:
        for trusted_key in trusted:
            try:
                trusted_key.key.verify(sig, signed)
            except InvalidSignature:
                continue
            return Opened(payload, payload_type, tuple(k for k, _ in signatures), trusted_key)
    return Opened(payload, payload_type, tuple(k for k, _ in signatures), None)
