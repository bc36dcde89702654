"""Signed review bundles: `assess keys new`, `report --sign`, `verify --key`, and the forgeries of
issue 37 (each with the manifest re-hashed, as a forger would) failing against the signature."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.report.conftest import invoke

# verify re-renders the same review's PDF in most tests here: once per report (conftest.py)
pytestmark = pytest.mark.usefixtures("rerendered_pdf_once")
SAMPLES = REPO / "samples"
ENVELOPE = "review.intoto.jsonl"


@pytest.fixture(scope="module")
def signed(module_tmp: Path) -> Path:
    """The demo's inputs in every format, signed: keys in ROOT, the review in ROOT/review."""
    root = module_tmp / "signed"
    root.mkdir()
    for name in ("committee", "other"):
        result = invoke("keys", "new", str(root / name))
        assert result.exit_code == 0, result.output
    args = ["report", "-a", str(SAMPLES / "vendors/incident-like.yaml"), "--incident"]
    args += ["glm-5.3-kv-leak", "--logs", str(SAMPLES / "logs/cloudflare-ai-gateway.ndjson")]
    args += ["--probe", str(SAMPLES / "probes/leaky-lab.json")]
    args += ["--deploy-log", str(SAMPLES / "serverlogs/sglang-prefill.log")]
    args += ["--deploy-log", str(SAMPLES / "serverlogs/sglang-decode.log")]
    args += ["--review", str(SAMPLES / "reviews/incident-like.review.yaml")]
    args += ["--format", "html,pdf,json,oscal,xlsx", "--out", str(root / "review")]
    args += ["--sign", str(root / "committee.key"), "--signer", "Vendor risk committee"]
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    assert "Signed by " in result.output
    return root


def copy_of(signed: Path, dest: Path) -> Path:
    shutil.copytree(signed, dest)
    return dest / "review"


def verify(review: Path, *extra: str) -> Any:
    return invoke("verify", str(review), "--inputs", str(REPO), *extra)


def rehash(review: Path) -> None:
    """Rewrite manifest.json's outputs to match the folder, as a forger would: every listed file
    re-hashed, entries of removed files dropped."""
    path = review / "manifest.json"
    manifest = json.loads(path.read_text())
    kept = []
    for entry in manifest["outputs"]:
        file = review / entry["path"]
        if file.is_file():
            data = file.read_bytes()
            entry["sha256"], entry["bytes"] = hashlib.sha256(data).hexdigest(), len(data)
            kept.append(entry)
    manifest["outputs"] = kept
    path.write_text(json.dumps(manifest, indent=2) + "\n")


def edit_json(review: Path, name: str, change: Callable[[Any], None]) -> None:
    path = review / name
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc, indent=2) + "\n")


def _zero_exposure(review: Path) -> None:
    edit_json(review, "report.json", lambda d: d["exposure"].update(received=0))


def _approve(review: Path) -> None:
    def change(doc: Any) -> None:
        doc["governance"].update(status="approved", status_text="Approved", decision="approve")

    edit_json(review, "report.json", change)


def _rename_vendor(review: Path) -> None:
    edit_json(review, "report.json", lambda d: d["vendor"].update(name="Another Vendor Ltd."))


def _html_low(review: Path) -> None:
    path = review / "report.html"
    text = path.read_text().replace("CRITICAL", "LOW").replace("100/100", "10/100")
    path.write_text(text.replace("Rejected", "Approved"))


def _oscal_satisfied(review: Path) -> None:
    path = review / "report.oscal.json"
    path.write_text(path.read_text().replace('"not-satisfied"', '"satisfied"'))


def _empty_csv(review: Path) -> None:
    path = review / "affected-requests.csv"
    path.write_text(path.read_text().splitlines()[0] + "\n")


def _delete_two(review: Path) -> None:
    (review / "report.pdf").unlink()
    (review / "affected-requests.csv").unlink()


FORGERIES: dict[str, Callable[[Path], None]] = {
    "exposure zeroed": _zero_exposure,
    "decision changed to approved": _approve,
    "vendor renamed": _rename_vendor,
    "report.html reads LOW 10/100 Approved": _html_low,
    "OSCAL findings satisfied": _oscal_satisfied,
    "affected-requests.csv emptied": _empty_csv,
    "files deleted with their manifest entries": _delete_two,
    "a file added": lambda r: (r / "notes.txt").write_text("approved by email\n"),
}


def test_the_untouched_signed_bundle_passes(signed: Path) -> None:
    result = verify(signed / "review", "--key", str(signed / "committee.pub"))
    assert result.exit_code == 0, result.output
    assert "DIFFERS" not in result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("ok      signature review.intoto.jsonl: signed by ")
    assert "every check holds, signed by a trusted key" in lines[-1]


def test_the_private_key_is_0600_and_the_statement_lists_every_file(signed: Path) -> None:
    assert stat.S_IMODE((signed / "committee.key").stat().st_mode) == 0o600
    review = signed / "review"
    envelope = json.loads((review / ENVELOPE).read_text())
    assert envelope["payloadType"] == "application/vnd.in-toto+json"
    statement = json.loads(base64.b64decode(envelope["payload"]))
    assert statement["_type"] == "https://in-toto.io/Statement/v1"
    on_disk = {p.name for p in review.iterdir()} - {ENVELOPE}
    subjects = {s["name"]: s["digest"]["sha256"] for s in statement["subject"]}
    assert set(subjects) == on_disk and "manifest.json" in subjects
    for name, digest in subjects.items():
        assert hashlib.sha256((review / name).read_bytes()).hexdigest() == digest
    predicate = statement["predicate"]
    assert predicate["command"][:2] == ["assess", "report"]
    assert predicate["signer"]["name"] == "Vendor risk committee"
    assert {i["role"] for i in predicate["inputs"]} >= {"questionnaire", "logs", "review"}


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_each_forgery_with_the_manifest_rehashed_fails(
    signed: Path, tmp_path: Path, forgery: str
) -> None:
    review = copy_of(signed, tmp_path / "copy")
    FORGERIES[forgery](review)
    rehash(review)
    result = verify(review, "--key", str(tmp_path / "copy" / "committee.pub"))
    assert result.exit_code == 1, result.output
    assert "DIFFERS signed file " in result.output
    assert "every check holds" not in result.output
    # Without the key, with the inputs at hand, the review rebuilt from them disagrees too.
    unkeyed = verify(review)
    assert unkeyed.exit_code == 1, unkeyed.output
    assert "every check holds" not in unkeyed.output
    differs = [line for line in unkeyed.output.splitlines() if line.startswith("DIFFERS")]
    assert any(
        "re-rendered" in line
        or "not listed by manifest.json" in line
        or "the recorded command" in line
        for line in differs
    ), differs


def _files(signed: Path) -> list[str]:
    return sorted(p.name for p in (signed / "review").iterdir())


@pytest.mark.parametrize(
    "name",
    [
        "affected-requests.csv",
        "findings-register.xlsx",
        "manifest.json",
        "report.html",
        "report.json",
        "report.oscal.json",
        "report.pdf",
        ENVELOPE,
    ],
)
def test_one_byte_in_any_file_fails(signed: Path, tmp_path: Path, name: str) -> None:
    assert name in _files(signed)
    review = copy_of(signed, tmp_path / "copy")
    path = review / name
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    if name != "manifest.json":
        rehash(review)
    result = verify(review, "--key", str(tmp_path / "copy" / "committee.pub"))
    assert result.exit_code == 1, result.output
    assert "DIFFERS sign" in result.output


def test_a_removed_file_fails_even_if_the_manifest_never_listed_it(
    signed: Path, tmp_path: Path
) -> None:
    review = copy_of(signed, tmp_path / "copy")
    (review / "findings-register.xlsx").unlink()
    rehash(review)
    result = verify(review, "--key", str(tmp_path / "copy" / "committee.pub"))
    assert result.exit_code == 1
    assert (
        "DIFFERS signed file findings-register.xlsx: removed: signed, not in the folder"
        in result.output
    )


def test_a_bundle_signed_by_another_key_fails(signed: Path, tmp_path: Path) -> None:
    result = verify(signed / "review", "--key", str(signed / "other.pub"))
    assert result.exit_code == 1
    assert "DIFFERS signature review.intoto.jsonl: not signed by a trusted key" in result.output


def test_a_bundle_re_signed_by_a_forger_fails_against_the_committee_key(
    signed: Path, tmp_path: Path
) -> None:
    """The forger edits, re-hashes and re-signs with their own key: the trusted key says no."""
    root = tmp_path / "copy"
    review = copy_of(signed, root)
    _approve(review)
    rehash(review)
    from assess.report.attest import envelope_bytes
    from assess.report.files import MANIFEST_JSON
    from assess.report.models import Manifest
    from assess.report.signing import load_private_key

    files = {p.name: p.read_bytes() for p in review.iterdir() if p.name != ENVELOPE}
    manifest = Manifest.model_validate_json(files[MANIFEST_JSON])
    forged = envelope_bytes(files, manifest, load_private_key(root / "other.key", None))
    (review / ENVELOPE).write_bytes(forged)
    assert verify(review, "--key", str(root / "other.pub")).exit_code == 1  # score, PDF differ
    result = verify(review, "--key", str(root / "committee.pub"))
    assert result.exit_code == 1
    assert "not signed by a trusted key" in result.output


def test_a_forged_signature_under_the_trusted_keyid_says_it_does_not_verify(
    signed: Path, tmp_path: Path
) -> None:
    """A forger signs with their own key but names the committee's keyid: the message says the
    signature does not verify, not that the (trusted) keyid is untrusted."""
    root = tmp_path / "copy"
    review = copy_of(signed, root)
    original = json.loads((review / ENVELOPE).read_text(encoding="utf-8"))
    committee_keyid = original["signatures"][0]["keyid"]
    _approve(review)
    rehash(review)
    from assess.report.attest import envelope_bytes
    from assess.report.files import MANIFEST_JSON
    from assess.report.models import Manifest
    from assess.report.signing import load_private_key

    files = {p.name: p.read_bytes() for p in review.iterdir() if p.name != ENVELOPE}
    manifest = Manifest.model_validate_json(files[MANIFEST_JSON])
    forged = json.loads(envelope_bytes(files, manifest, load_private_key(root / "other.key", None)))
    forged["signatures"][0]["keyid"] = committee_keyid
    (review / ENVELOPE).write_text(json.dumps(forged) + "\n", encoding="utf-8")
    result = verify(review, "--key", str(root / "committee.pub"))
    assert result.exit_code == 1
    assert "the signature does not verify with the trusted key" in result.output
    assert "not signed by a trusted key" not in result.output


def test_a_trusted_keys_file_holds_several_keys(signed: Path, tmp_path: Path) -> None:
    trusted = tmp_path / "trusted.pem"
    trusted.write_text(
        "# other team\n"
        + (signed / "other.pub").read_text()
        + "# vendor risk committee\n"
        + (signed / "committee.pub").read_text()
    )
    result = verify(signed / "review", "--trusted-keys", str(trusted))
    assert result.exit_code == 0, result.output
    assert "trusted.pem#2" in result.output.splitlines()[0]


def test_without_a_key_verify_says_what_is_not_proven(signed: Path, tmp_path: Path) -> None:
    result = verify(signed / "review")
    assert result.exit_code == 2
    assert "skipped signature: review.intoto.jsonl is there but was not checked" in result.output
    assert "every check holds" not in result.output
    assert "not proven" in result.output.splitlines()[-1]
    review = copy_of(signed, tmp_path / "copy")
    (review / ENVELOPE).unlink()
    result = verify(review)
    assert result.exit_code == 2
    assert "The bundle is unsigned" in result.output
    keyed = verify(review, "--key", str(tmp_path / "copy" / "committee.pub"))
    assert keyed.exit_code == 1
    assert "the bundle is not signed" in keyed.output


def test_an_encrypted_key_takes_its_passphrase_from_the_environment(tmp_path: Path) -> None:
    env = {"REVIEW_KEY_PASS": "correct horse"}
    made = invoke("keys", "new", str(tmp_path / "k"), "--passphrase-env", "REVIEW_KEY_PASS",
                  env=env)  # fmt: skip
    assert made.exit_code == 0, made.output
    assert b"ENCRYPTED" in (tmp_path / "k.key").read_bytes()
    assert "correct horse" not in made.output
    args = ["report", "-a", str(SAMPLES / "vendors/incident-like.yaml"), "--format", "json"]
    args += ["--out", str(tmp_path / "r"), "--sign", str(tmp_path / "k.key")]
    wrong = invoke(*args, "--passphrase-env", "REVIEW_KEY_PASS", env={"REVIEW_KEY_PASS": "no"})
    assert wrong.exit_code == 2
    assert "wrong passphrase" in wrong.output
    assert not (tmp_path / "r").exists()
    right = invoke(*args, "--passphrase-env", "REVIEW_KEY_PASS", env=env)
    assert right.exit_code == 0, right.output
    assert (tmp_path / "r" / ENVELOPE).is_file()
    again = invoke("keys", "new", str(tmp_path / "k"))
    assert again.exit_code == 2 and "exists already" in again.output


def _docs_block(lang: str) -> str:
    """Return the first ```lang block of docs/verify.md (the third-party check as documented)."""
    text = (REPO / "docs" / "verify.md").read_text()
    return text.split(f"```{lang}\n", 1)[1].split("```", 1)[0]


def test_a_third_party_verifies_with_securesystemslib_as_documented(
    signed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/verify.md's Python: securesystemslib's DSSE Envelope and SSlibKey, run as written."""
    from cryptography.hazmat.primitives.serialization import load_pem_public_key
    from securesystemslib.dsse import Envelope
    from securesystemslib.signer import SSlibKey

    review = copy_of(signed, tmp_path / "copy")
    monkeypatch.chdir(tmp_path / "copy")
    exec(compile(_docs_block("python"), "docs/verify.md", "exec"), {})
    key = SSlibKey.from_crypto(load_pem_public_key(Path("committee.pub").read_bytes()))
    envelope = Envelope.from_dict(json.loads((review / ENVELOPE).read_text()))
    assert set(envelope.verify([key], 1)) == {key.keyid}  # the keyid assess computes
    assert key.keyid in result_keyids(review)
    _approve(review)
    with pytest.raises(AssertionError, match="report.json"):
        exec(compile(_docs_block("python"), "docs/verify.md", "exec"), {})
    shutil.copy(Path("other.pub"), Path("committee.pub"))
    with pytest.raises(Exception, match="threshold"):
        exec(compile(_docs_block("python"), "docs/verify.md", "exec"), {})


def result_keyids(review: Path) -> list[str]:
    return [s["keyid"] for s in json.loads((review / ENVELOPE).read_text())["signatures"]]


@pytest.mark.skipif(
    shutil.which("openssl") is None or shutil.which("jq") is None, reason="no openssl or jq"
)
def test_a_third_party_verifies_with_openssl_as_documented(signed: Path, tmp_path: Path) -> None:
    """docs/verify.md's shell: rebuild DSSE's PAE, `openssl pkeyutl -verify -rawin`, sha256sum."""
    copy_of(signed, tmp_path / "copy")
    script = tmp_path / "check.sh"
    script.write_text("set -e\n" + _docs_block("sh"))
    cwd = tmp_path / "copy"
    good = subprocess.run(["bash", str(script)], cwd=cwd, capture_output=True, text=True)
    assert good.returncode == 0, good.stderr
    assert "Signature Verified Successfully" in good.stdout
    assert "review/report.pdf: OK" in good.stdout
    shutil.copy(cwd / "other.pub", cwd / "committee.pub")
    bad = subprocess.run(["bash", str(script)], cwd=cwd, capture_output=True, text=True)
    assert bad.returncode != 0 and "Signature Verified Successfully" not in bad.stdout
