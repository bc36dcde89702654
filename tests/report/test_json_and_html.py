"""report.json and manifest.json are reproducible; the HTML is valid; redaction; not assessed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import html5lib
import pytest

from tests.conftest import REPO
from tests.report.conftest import EPOCH, REPORT_ASSETS, copy_assets, full_args, invoke

FAST = ("--format", "html,json")


@pytest.fixture(scope="module")
def src(module_tmp: Path) -> Path:
    """The contract fixtures, copied once for the module; every test that reads them asks for
    this, so none depends on another test having run first."""
    return copy_assets(module_tmp / "in")


@pytest.fixture(scope="module")
def fast_review(module_tmp: Path, src: Path) -> Path:
    out = module_tmp / "first" / "review"
    result = invoke(*full_args(src, out, *FAST))
    assert result.exit_code == 0, result.output
    return out


def test_top_level_keys_of_report_json(fast_review: Path) -> None:
    doc = json.loads((fast_review / "report.json").read_text())
    for key in (
        "schema_version",
        "tier",
        "score",
        "findings",
        "exposure",
        "probes",
        "deployment",
        "inputs",
        "vendor",
        "generated_at",
        "not_assessed",
    ):
        assert key in doc, key
    assert doc["schema_version"] == 1 and doc["kind"] == "assess.report"
    assert (doc["tier"], doc["score"]) == ("critical", 86)
    assert doc["generated_at"] == "2026-09-21T14:13:20Z"
    assert doc["not_assessed"] == []
    assert doc["exposure"]["received"] == 7
    assert doc["exposure"]["skipped"][0]["file"] == "gw.jsonl"  # never the folder


def test_findings_are_merged_without_duplicates(fast_review: Path) -> None:
    findings = json.loads((fast_review / "report.json").read_text())["findings"]
    ids = [f["id"] for f in findings]
    assert len(ids) == len(set(ids)) == 5
    pool = next(f for f in findings if f["id"] == "pool-smaller-than-context")
    assert pool["nodes"] == ["prefill-0"]
    assert pool["title"] == "KV pool smaller than the advertised context"  # the score's wording
    assert findings[0]["contradiction"] is True  # worst first, contradictions first
    assert [f["ref"] for f in findings] == ["F-01", "F-02", "F-03", "F-04", "F-05"]


def test_findings_table_shows_each_ref(fast_review: Path) -> None:
    tree = parse_strict(fast_review / "report.html")
    table = next(t for t in tree.iter("table") if "findings" in (t.get("class") or "").split())
    refs = [el.text for el in table.iter("strong") if (el.text or "").startswith("F-")]
    assert refs == ["F-01", "F-02", "F-03", "F-04", "F-05"]


def test_same_inputs_give_byte_identical_json_and_manifest(
    src: Path, fast_review: Path, module_tmp: Path
) -> None:
    again = module_tmp / "second" / "elsewhere"
    result = invoke(*full_args(src, again, *FAST))
    assert result.exit_code == 0
    for name in ("report.json", "manifest.json", "report.html", "affected-requests.csv"):
        assert (fast_review / name).read_bytes() == (again / name).read_bytes(), name
    for name in ("report.json", "manifest.json"):
        text = (again / name).read_text()
        assert str(module_tmp) not in text and "/tmp/" not in text, name


def test_manifest_hashes_every_input_and_output(fast_review: Path) -> None:
    import hashlib

    manifest = json.loads((fast_review / "manifest.json").read_text())
    assert manifest["kind"] == "assess.manifest"
    assert manifest["generated_at"] == "2026-09-21T14:13:20Z"
    assert manifest["command"][:2] == ["assess", "report"]
    out_at = manifest["command"].index("--out")
    assert manifest["command"][out_at + 1] == "."  # outputs are relative to the manifest
    assert [o["path"] for o in manifest["outputs"]] == [
        "affected-requests.csv",
        "report.html",
        "report.json",
    ]
    for entry in manifest["outputs"]:
        data = (fast_review / entry["path"]).read_bytes()
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()
        assert entry["bytes"] == len(data)
    roles = {i["role"]: i for i in manifest["inputs"]}
    assert set(roles) == {"questionnaire", "logs", "probe", "deploy-check"}
    score_bytes = (REPORT_ASSETS / "score.json").read_bytes()
    assert roles["questionnaire"]["sha256"] == hashlib.sha256(score_bytes).hexdigest()


def test_a_different_epoch_changes_only_the_dates(
    src: Path, fast_review: Path, module_tmp: Path
) -> None:
    other = module_tmp / "third" / "review"
    result = invoke(
        *full_args(src, other, "--format", "json"),
        env={"SOURCE_DATE_EPOCH": str(int(EPOCH) + 86400)},
    )
    assert result.exit_code == 0
    doc = json.loads((other / "report.json").read_text())
    assert doc["generated_at"] == "2026-09-22T14:13:20Z"


def parse_strict(path: Path) -> Any:
    """Parse ``path`` with html5lib's strict parser: any parse error raises."""
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    return parser.parse(path.read_bytes())


def test_html_is_valid_html5(fast_review: Path) -> None:
    tree = parse_strict(fast_review / "report.html")
    ids = [s.get("id") for s in tree.iter("section")]
    assert ids == [
        "cover",
        "summary",
        "index",
        "signoff",
        "plan",
        "vendor",
        "findings",
        "contradictions",
        "exposure",
        "probes",
        "cache-audit",
        "deployment",
        "method",
        "detail",
        "notification",
        "appendix",
        "answers",
    ]
    assert not list(tree.iter("script"))
    svgs = [el for el in tree.iter() if str(el.tag).endswith("svg")]
    assert len(svgs) == 3  # tier band, pool bar, per-day chart


def test_prompts_are_redacted_by_default(fast_review: Path) -> None:
    doc = (fast_review / "report.json").read_text()
    html = (fast_review / "report.html").read_text()
    assert "canary-7f3a9c0e5b2d4a61" not in doc and "canary-7f3a9c0e5b2d4a61" not in html
    assert "run with --include-prompts to show it" in html
    assert json.loads(doc)["prompts_included"] is False


def test_include_prompts_shows_them(src: Path, module_tmp: Path) -> None:
    out = module_tmp / "prompts"
    result = invoke(*full_args(src, out, *FAST, "--include-prompts"))
    assert result.exit_code == 0
    assert "canary-7f3a9c0e5b2d4a61" in (out / "report.html").read_text()
    doc = json.loads((out / "report.json").read_text())
    assert doc["prompts_included"] is True
    assert "--include-prompts" in json.loads((out / "manifest.json").read_text())["command"]


def test_missing_inputs_are_reported_as_not_assessed(src: Path, module_tmp: Path) -> None:
    out = module_tmp / "bare"
    result = invoke("report", "--answers", str(src / "score.json"), "--out", str(out), *FAST)
    assert result.exit_code == 0, result.output
    assert "Not assessed (exposure)" in result.output
    doc = json.loads((out / "report.json").read_text())
    assert [n["section"] for n in doc["not_assessed"]] == ["exposure", "probes", "deployment"]
    assert doc["exposure"]["assessed"] is False
    assert doc["probes"] == {"assessed": False, "runs": []}
    assert not (out / "affected-requests.csv").exists()
    parse_strict(out / "report.html")
    html = (out / "report.html").read_text()
    assert html.count("<strong>Not assessed.</strong>") == 3
    assert "Our own exposure was not assessed" in html


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--deploy-check", "d.json", "--deploy-log", "x.log"], "cannot be used together"),
        (["--incident", "glm-5.3-kv-leak"], "only apply to --logs"),
        (["--format", "html,docx"], "--format: 'html,docx'"),
        (["--evidence-for-vendor"], "--evidence-for-vendor only applies to raw answers"),
    ],
)
def test_bad_option_combinations_exit_2(
    src: Path, module_tmp: Path, args: list[str], message: str
) -> None:
    result = invoke(
        "report",
        "--answers",
        str(src / "score.json"),
        "--out",
        str(module_tmp / "never"),
        *args,
    )
    assert result.exit_code == 2
    assert message in result.output
    assert not (module_tmp / "never").exists()


@pytest.mark.parametrize("option", ["--probe", "--deploy-check"])
def test_a_document_of_the_wrong_kind_names_the_file(
    src: Path, module_tmp: Path, option: str
) -> None:
    wrong = src / "scope.json"
    result = invoke(
        "report",
        "--answers",
        str(src / "score.json"),
        option,
        str(wrong),
        "--out",
        str(module_tmp / "never"),
    )
    assert result.exit_code == 2
    assert f"{wrong}: not an assess." in result.output


def test_a_missing_questionnaire_is_a_clean_exit_2(module_tmp: Path) -> None:
    missing = module_tmp / "no-such-answers.yaml"
    result = invoke("report", "--answers", str(missing), "--out", str(module_tmp / "never"))
    assert result.exit_code == 2
    assert str(missing) in result.output
    assert not (module_tmp / "never").exists()


def test_a_scope_document_needs_no_incident_but_refuses_another(
    src: Path, module_tmp: Path
) -> None:
    src = src
    base = ["report", "-a", str(src / "score.json"), "--logs", str(src / "scope.json")]
    ok = invoke(*base, "--out", str(module_tmp / "scoped"), "--format", "json")
    assert ok.exit_code == 0, ok.output
    doc = json.loads((module_tmp / "scoped" / "report.json").read_text())
    assert doc["exposure"]["advisory"] == "glm-5.3-kv-leak"
    bad = invoke(*base, "--incident", "other-leak", "--out", str(module_tmp / "never"))
    assert bad.exit_code == 2
    assert "scoped against advisory 'glm-5.3-kv-leak', not 'other-leak'" in bad.output


def test_method_section_says_what_adds_points_and_what_decides(fast_review: Path) -> None:
    doc = json.loads((fast_review / "report.json").read_text())
    scoring = doc["scoring"]
    # the fixture is a score document written before these keys existed: nothing is made up
    assert (scoring["points_total"], scoring["section_points"], scoring["decided_by"]) == (
        None,
        {},
        [],
    )
    html = (fast_review / "report.html").read_text()
    assert "a canary probe's findings and a deployment check's findings" in html
    assert "rest on the same answers are one finding (one root cause)" in html
    # its formula names no decisive rule, so the review does not claim one was applied
    assert "Decisive evidence" not in html
    assert "before the cap" not in html


@pytest.mark.parametrize("scored", [False, True])
def test_evidence_for_vendor_scores_the_lab_probe_in_the_review(
    module_tmp: Path, scored: bool
) -> None:
    out = module_tmp / f"bound-{scored}"
    flag = ["--evidence-for-vendor"] if scored else []
    vendor, probe = REPO / "samples/vendors/well-run.yaml", REPO / "samples/probes/leaky-lab.json"
    args = ["report", "-a", str(vendor), "--probe", str(probe), "--out", str(out)]
    result = invoke(*args, "--format", "json", *flag)
    assert result.exit_code == 0, result.output
    doc = json.loads((out / "report.json").read_text())
    ids = {f["id"] for f in doc["findings"]}
    assert ("attestation-contradicted.probe-leak" in ids) is scored
    assert ("evidence-not-about-vendor.probe" in ids) is not scored
    assert doc["tier"] == ("critical" if scored else "low")
