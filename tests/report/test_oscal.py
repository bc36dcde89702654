"""`assess report --format oscal`: report.oscal.json validates against NIST's OSCAL 1.1.3
assessment-results schema (vendored), its observations say how they were made, its UUIDs come
from the review's identity and each subject (never the date), and SOURCE_DATE_EPOCH gives the
same bytes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assess.cli.report import DEMO_LOGS, DEMO_PROBE, DEMO_REVIEW, DEMO_SERVERLOGS, DEMO_VENDOR
from assess.kernel.resources import data_dir
from assess.report.api import build_report
from assess.report.models import Report
from assess.report.oscal import oscal_document
from assess.report.oscal_schema import OSCAL_VERSION, SCHEMA_FILE, python_pattern, schema_errors
from tests.report.conftest import invoke

SAMPLES = data_dir("samples")
#: SHA-256 of oscal_assessment-results_schema.json as NIST released it in v1.1.3.
NIST_SHA256 = "d9e34757f0c12aff61f52b821f0b8f83ba0ba75b3a149a202b08ba82f82bc4c3"


def demo_args(out: Path, fmt: str = "json,oscal,xlsx") -> list[str]:
    """`assess report` on the demo's samples (the PDF left out: it takes the most time)."""
    args = ["report", "-a", str(SAMPLES / DEMO_VENDOR), "--logs", str(SAMPLES / DEMO_LOGS)]
    args += ["--incident", "glm-5.3-kv-leak", "--probe", str(SAMPLES / DEMO_PROBE)]
    for log in DEMO_SERVERLOGS:
        args += ["--deploy-log", str(SAMPLES / log)]
    return [*args, "--format", fmt, "--out", str(out)]


@pytest.fixture(scope="module")
def review(module_tmp: Path) -> Path:
    out = module_tmp / "oscal"
    result = invoke(*demo_args(out))
    assert result.exit_code == 0, result.output
    assert str(out / "report.oscal.json") in result.output
    return out


@pytest.fixture(scope="module")
def signed(module_tmp: Path) -> Path:
    """The demo's review with its review file: report id, people, decision, plan."""
    out = module_tmp / "oscal-signed"
    result = invoke(*demo_args(out), "--review", str(SAMPLES / DEMO_REVIEW))
    assert result.exit_code == 0, result.output
    return out


def load(review: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    doc = json.loads((review / "report.oscal.json").read_text(encoding="utf-8"))
    return doc, json.loads((review / "report.json").read_text(encoding="utf-8"))


def test_the_vendored_schema_is_nists_v1_1_3_file() -> None:
    data = SCHEMA_FILE.read_bytes()
    assert hashlib.sha256(data).hexdigest() == NIST_SHA256
    assert (
        json.loads(data)["$id"]
        == f"http://csrc.nist.gov/ns/oscal/{OSCAL_VERSION}/oscal-ar-schema.json"
    )
    readme = (SCHEMA_FILE.parent / "README.md").read_text(encoding="utf-8")
    assert NIST_SHA256 in readme and f"v{OSCAL_VERSION}" in readme


def test_the_demo_review_validates_against_the_schema(review: Path) -> None:
    doc, _ = load(review)
    assert schema_errors(doc) == []
    assert doc["assessment-results"]["metadata"]["oscal-version"] == OSCAL_VERSION


def test_the_validator_can_fail() -> None:
    """The check is real: a missing required key, an unknown method value type, a bad token."""
    doc = {"assessment-results": {"uuid": "not-a-uuid", "metadata": {}, "results": []}}
    errors = schema_errors(doc)
    assert any("import-ap" in e for e in errors)
    assert any("title" in e for e in errors)
    assert any("not-a-uuid" in e for e in errors)


def test_the_validator_reaches_deep_into_the_demo_document(review: Path) -> None:
    """A nested break in the real document is found: an observation without its method, a
    finding target with a state OSCAL does not know, a property name that is not a token."""
    doc, _ = load(review)
    result = doc["assessment-results"]["results"][0]
    del result["observations"][0]["methods"]
    result["findings"][0]["target"]["status"]["state"] = "failed"
    result["risks"][0]["props"][0]["name"] = "1 bad name"
    errors = schema_errors(doc)
    assert any(e.startswith("assessment-results/results/0/observations/0") for e in errors)
    assert any("findings/0/target/status/state" in e for e in errors)
    assert any("risks/0/props/0/name" in e for e in errors)


@pytest.mark.parametrize(
    ("text", "ok"), [("engine.version", True), ("_x-1", True), ("ñame", True), ("1abc", False)]
)
def test_the_token_pattern_is_checked_with_its_unicode_classes(text: str, ok: bool) -> None:
    import re

    token = "^(\\p{L}|_)(\\p{L}|\\p{N}|[.\\-_])*$"
    assert bool(re.search(python_pattern(token), text)) is ok


def test_findings_match_the_review_and_link_their_observations(review: Path) -> None:
    doc, report = load(review)
    (result,) = doc["assessment-results"]["results"]
    findings = result["findings"]
    scored = [f["ref"] for f in report["findings"] if f["severity"] != "info"]
    assert [f["title"].split(" ", 1)[0] for f in findings] == scored
    observations = {o["uuid"]: o for o in result["observations"]}
    risks = {r["uuid"] for r in result["risks"]}
    for f in findings:
        assert f["target"]["status"]["state"] == "not-satisfied"
        assert {r["risk-uuid"] for r in f["related-risks"]} <= risks
        for link in f.get("related-observations", []):
            assert link["observation-uuid"] in observations
    first = findings[0]  # the advisory: answers, both startup logs and the scoped logs
    methods = {
        observations[o["observation-uuid"]]["title"]: observations[o["observation-uuid"]]["methods"]
        for o in first["related-observations"]
    }
    assert methods["Answer to engine.version"] == ["EXAMINE"]
    assert methods["Startup log of sglang-prefill"] == ["EXAMINE"]
    assert methods["Request logs scoped against glm-5.3-kv-leak"] == ["TEST"]


def test_observations_say_how_they_were_made(review: Path) -> None:
    doc, report = load(review)
    (result,) = doc["assessment-results"]["results"]
    by_method: dict[str, list[str]] = {}
    for o in result["observations"]:
        (method,) = o["methods"]
        by_method.setdefault(method, []).append(o["title"])
    assert len([t for t in by_method["EXAMINE"] if t.startswith("Answer to ")]) == len(
        report["answers"]
    )
    assert {t for t in by_method["EXAMINE"] if t.startswith("Startup log")} == {
        "Startup log of sglang-prefill",
        "Startup log of sglang-decode",
    }
    assert any(t.startswith("Canary probe run") for t in by_method["TEST"])
    (probe,) = [o for o in result["observations"] if o["title"].startswith("Canary probe run")]
    # the demo's probe ran against the local lab: said so, as the review says it
    assert "Not a run against the vendor's service" in probe["description"]
    assert {"name": "leak-found", "ns": "urn:assess:oscal", "value": "true"} in probe["props"]
    assert "Request logs scoped against glm-5.3-kv-leak" in by_method["TEST"]


def test_inputs_are_back_matter_with_their_hashes(review: Path) -> None:
    doc, report = load(review)
    resources = doc["assessment-results"]["back-matter"]["resources"]
    # the frameworks the findings' controls belong to link to their publishers (no hash)
    frameworks = [
        r
        for r in resources
        if {"name": "role", "ns": "urn:assess:oscal", "value": "framework"} in r.get("props", [])
    ]
    inputs = [r for r in resources if "rlinks" in r and r not in frameworks]
    hashes = {r["rlinks"][0]["hashes"][0]["value"] for r in inputs}
    assert hashes == {i["sha256"] for i in report["inputs"]}
    assert len(frameworks) == 3
    plan = doc["assessment-results"]["import-ap"]["href"]
    assert plan == f"#{resources[0]['uuid']}" and resources[0]["title"].startswith("Questionnaire")


def test_uuids_are_unique_and_version_5(review: Path) -> None:
    text = (review / "report.oscal.json").read_text(encoding="utf-8")
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("uuid"), str):
                found.append(node["uuid"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(text))
    assert len(found) == len(set(found)) > 50
    assert all(u[14] == "5" for u in found)


def test_same_epoch_same_bytes_and_another_review_another_document(module_tmp: Path) -> None:
    a, b = module_tmp / "same-a", module_tmp / "same-b"
    for out in (a, b):
        assert invoke(*demo_args(out)).exit_code == 0
    for name in ("report.oscal.json", "findings-register.xlsx", "manifest.json", "report.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    other = module_tmp / "other-vendor"
    args = demo_args(other)
    args[2] = str(SAMPLES / "vendors" / "well-run.yaml")
    assert invoke(*args).exit_code == 0
    assert doc_uuid(a) != doc_uuid(other)


def _uuids(folder: Path) -> dict[str, str]:
    """Every UUID of the document by the path of the object holding it (titles and ids, not
    positions, so the comparison names what moved)."""
    found: dict[str, str] = {}

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            name = node.get("title") or node.get("name") or node.get("lifecycle") or ""
            if isinstance(node.get("uuid"), str):
                found[f"{where}/{name}"] = node["uuid"]
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for value in node:
                walk(value, where)

    walk(json.loads((folder / "report.oscal.json").read_text(encoding="utf-8")), "")
    return found


@pytest.mark.parametrize("with_review", [False, True], ids=["draft", "with-review-file"])
def test_a_run_on_another_day_keeps_every_uuid(module_tmp: Path, with_review: bool) -> None:
    """Issue 37: re-running the same review a day later changed every OSCAL UUID."""
    extra = ["--review", str(SAMPLES / DEMO_REVIEW)] if with_review else []
    runs = {}
    for epoch in ("1790000000", "1790086400"):  # 2026-09-21 and a day later
        out = module_tmp / f"day-{epoch}-{with_review}"
        result = invoke(*demo_args(out, "json,oscal"), *extra, env={"SOURCE_DATE_EPOCH": epoch})
        assert result.exit_code == 0, result.output
        runs[epoch] = out
    first, second = (_uuids(out) for out in runs.values())
    assert len(first) > 50
    assert first == second
    texts = [(out / "report.oscal.json").read_text() for out in runs.values()]
    assert texts[0] != texts[1]  # the dates did change


def test_info_findings_are_observations_and_no_control_is_claimed(review: Path) -> None:
    doc, report = load(review)
    (result,) = doc["assessment-results"]["results"]
    info = [f for f in report["findings"] if f["severity"] == "info"]
    assert info
    states = {f["target"]["status"]["state"] for f in result["findings"]}
    assert states == {"not-satisfied"}
    finding_titles = {f["title"] for f in result["findings"]}
    observed = {o["title"]: o for o in result["observations"]}
    for f in info:
        title = f"{f['ref']} {f['title']}"
        assert title not in finding_titles
        assert {"name": "severity", "ns": "urn:assess:oscal", "value": "info"} in observed[title][
            "props"
        ]
    selection, *frameworks = result["reviewed-controls"]["control-selections"]
    assert "include-all" not in selection and "no OSCAL catalog" in selection["description"]
    # then one selection per framework the findings map to (docs/controls.md), never include-all
    assert len(frameworks) == 3
    assert all("include-all" not in s and s["include-controls"] for s in frameworks)


def doc_uuid(folder: Path) -> str:
    doc = json.loads((folder / "report.oscal.json").read_text(encoding="utf-8"))
    return str(doc["assessment-results"]["uuid"])


def test_the_manifest_lists_the_oscal_file(review: Path) -> None:
    manifest = json.loads((review / "manifest.json").read_text())
    listed = {e["path"]: e["sha256"] for e in manifest["outputs"]}
    data = (review / "report.oscal.json").read_bytes()
    assert listed["report.oscal.json"] == hashlib.sha256(data).hexdigest()
    assert "json,oscal,xlsx" in manifest["command"]


def test_the_default_formats_are_unchanged() -> None:
    """Without --format, `assess report` writes what it wrote before: html, pdf, json."""
    from assess.report.files import DEFAULT_FORMATS, parse_formats

    assert DEFAULT_FORMATS == ("html", "pdf", "json")
    result = invoke("report", "--help")
    assert "[default: html,pdf,json]" in " ".join(result.output.split())
    assert parse_formats("xlsx,oscal,json") == ("json", "oscal", "xlsx")


def test_a_review_with_answers_only_and_one_with_nothing_still_validate() -> None:
    report = build_report(SAMPLES / "vendors/well-run.yaml", generated_at="2026-09-01T00:00:00Z")
    doc = oscal_document(report)
    assert schema_errors(doc) == []
    (result,) = doc["assessment-results"]["results"]
    assert {m for o in result["observations"] for m in o["methods"]} == {"EXAMINE"}
    assert "Not assessed (exposure)" in result["remarks"]
    empty = report.model_copy(update={"findings": [], "answers": [], "inputs": []})
    doc = oscal_document(empty)
    assert schema_errors(doc) == []
    assert "findings" not in doc["assessment-results"]["results"][0]


_TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=40)


@pytest.fixture(scope="module")
def answers_only() -> Report:
    return build_report(SAMPLES / "vendors/well-run.yaml", generated_at="2026-09-01T00:00:00Z")


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=_TEXT, title=_TEXT, detail=_TEXT, note=_TEXT, ref=_TEXT, value=_TEXT)
def test_any_text_from_vendors_still_validates(
    answers_only: Report, name: str, title: str, detail: str, note: str, ref: str, value: str
) -> None:
    """Names, titles, notes and references come from vendors: blank, multi-line or odd text
    never makes the document invalid (one-line properties, a named party, text kept as text)."""
    finding = answers_only.findings[0].model_copy(
        update={"title": title, "detail": detail, "remediation": detail, "source": ref}
    )
    answer = answers_only.answers[0].model_copy(update={"value": value, "note": note, "ref": ref})
    vendor = answers_only.vendor.model_copy(update={"name": name, "service": note})
    report = answers_only.model_copy(
        update={"findings": [finding], "answers": [answer], "vendor": vendor}
    )
    assert schema_errors(oscal_document(report)) == []


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("2026-12-02T17:02:08.051013Z", "2026-12-02T17:02:08.051013Z"),
        ("2026-12-02T17:02:08", "2026-12-02T17:02:08Z"),
        ("2026-12-02T19:02:08+02:00", "2026-12-02T17:02:08Z"),
        ("yesterday", "FALLBACK"),
        (None, "FALLBACK"),
    ],
)
def test_probe_times_become_oscal_date_times(text: str | None, shown: str) -> None:
    from assess.report.oscal_parts import oscal_time

    assert oscal_time(text, "FALLBACK") == shown


def test_a_probe_time_without_a_zone_still_validates(answers_only: Report) -> None:
    from assess.report.models import ProbeRun, Probes

    run = ProbeRun(
        run_id="r1",
        endpoint="https://api.example",
        model="m",
        mode="standard",
        started_at="2026-12-02T17:02:08",
        finished_at="not a time",
        complete=True,
        leak_found=False,
        probes=10,
        hits=0,
    )
    report = answers_only.model_copy(update={"probes": Probes(assessed=True, runs=[run])})
    doc = oscal_document(report)
    assert schema_errors(doc) == []
    (probe,) = [
        o
        for o in doc["assessment-results"]["results"][0]["observations"]
        if o["methods"] == ["TEST"]
    ]
    assert probe["collected"] == report.generated_at


def test_the_signed_review_validates_and_names_its_id_version_and_people(signed: Path) -> None:
    doc, report = load(signed)
    assert schema_errors(doc) == []
    meta = doc["assessment-results"]["metadata"]
    gov = report["governance"]
    assert meta["version"] == gov["version"] == "1.0"
    assert meta["document-ids"] == [{"identifier": "TPRM-2026-014"}]
    assert {"name": "marking", "value": "Confidential"} in meta["props"]
    assert [r["id"] for r in meta["roles"]] == ["assessor", "reviewer", "approver"]
    parties = {p["uuid"]: p for p in meta["parties"]}
    named = {
        rp["role-id"]: [parties[u]["name"] for u in rp["party-uuids"]]
        for rp in meta["responsible-parties"]
    }
    assert named == {
        "assessor": [gov["assessor"]["name"]],
        "reviewer": [gov["reviewer"]["name"]],
        "approver": [gov["approver"]["name"]],
    }
    approver = parties[meta["responsible-parties"][2]["party-uuids"][0]]
    assert approver["type"] == "person"
    assert {"name": "signed", "ns": "urn:assess:oscal", "value": gov["approver"]["date"]} in (
        approver["props"]
    )


def test_a_draft_names_no_people_and_keeps_its_generated_version(review: Path) -> None:
    doc, _ = load(review)
    meta = doc["assessment-results"]["metadata"]
    assert "responsible-parties" not in meta and "roles" not in meta and "document-ids" not in meta
    assert [p["type"] for p in meta["parties"]] == ["organization"]
    assert meta["version"].startswith(meta["last-modified"])


def _plan_props(item: dict[str, Any]) -> dict[str, str]:
    return {p["name"]: p["value"] for p in item.get("props", []) if p.get("ns")}


def test_findings_and_risks_carry_the_remediation_plan(signed: Path) -> None:
    doc, report = load(signed)
    (result,) = doc["assessment-results"]["results"]
    plan = {i["ref"]: i for i in report["remediation"] if i["kind"] == "finding"}
    risks = {r["uuid"]: r for r in result["risks"]}
    status = {"open": "open", "in progress": "remediating"}
    status |= {"accepted": "deviation-approved", "done": "closed"}
    seen = set()
    for finding in result["findings"]:
        shown = _plan_props(finding)
        item = plan[shown["ref"]]
        assert shown["plan-status"] == item["status"]
        assert shown.get("owner") == item["owner"] and shown.get("due") == item["due"]
        (risk,) = [risks[r["risk-uuid"]] for r in finding["related-risks"]]
        assert risk["status"] == status[item["status"]]
        assert risk.get("deadline") == (f"{item['due']}T23:59:59Z" if item["due"] else None)
        seen.add(item["status"])
    assert {"open", "in progress"} <= seen
    owned = next(f for f in result["findings"] if _plan_props(f).get("owner"))
    (risk,) = [risks[r["risk-uuid"]] for r in owned["related-risks"]]
    assert risk["remediations"][0]["lifecycle"] == "planned"
    exposure = next(o for o in result["observations"] if o["title"].startswith("Request logs"))
    shown = _plan_props(exposure)
    assert shown["exposure.purge-status"] == "done"
    assert shown["exposure.notify-status"] == "in progress"


def test_without_a_plan_every_risk_is_open_and_only_recommended(review: Path) -> None:
    doc, _ = load(review)
    (result,) = doc["assessment-results"]["results"]
    assert {r["status"] for r in result["risks"]} == {"open"}
    lifecycles = {m["lifecycle"] for r in result["risks"] for m in r.get("remediations", [])}
    assert lifecycles == {"recommendation"}
    assert all(_plan_props(f)["plan-status"] == "open" for f in result["findings"])
