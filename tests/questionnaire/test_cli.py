"""`assess questionnaire new|export|import|validate|schema|diff` end to end."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assess.vendor.answers_file import load_answers
from assess.vendor.bank import shipped_questionnaire
from tests.conftest import ASSETS, REPO

Run = Callable[..., Any]
SAMPLES = REPO / "samples" / "vendors"


def test_new_writes_a_blank_file_that_validates(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "answers.yaml"
    result = run_cli(
        "questionnaire", "new", "--out", str(out), "--vendor", "Ex", "--date", "2026-12-01"
    )
    assert result.exit_code == 0
    text = out.read_text()
    assert "# Which inference engine serves the model?" in text
    assert "allowed: sglang, vllm, tensorrt-llm, tgi, proprietary, other, unknown" in text
    assert 'vendor: "Ex"\ndate: 2026-12-01\n' in text
    answers = load_answers(out, shipped_questionnaire())
    assert {a.value for a in answers.answers.values()} == {"unknown"}
    assert len(answers.answers) == len(shipped_questionnaire().questions)
    check = run_cli("questionnaire", "validate", str(out))
    assert check.exit_code == 0
    assert "valid (llm-inference-isolation v4): 0 of 54 questions answered" in check.stdout


def test_new_refuses_a_bad_date(run_cli: Run, tmp_path: Path) -> None:
    result = run_cli("questionnaire", "new", "--out", str(tmp_path / "a.yaml"), "--date", "soon")
    assert result.exit_code == 2
    assert "--date: 'soon' is not a date" in result.stderr


def test_new_never_overwrites_answers_without_force(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "answers.yaml"
    out.write_text("vendor: filled in by hand\n")
    refused = run_cli("questionnaire", "new", "--out", str(out))
    assert refused.exit_code == 2
    assert "already exists" in refused.stderr and "--force" in refused.stderr
    assert out.read_text() == "vendor: filled in by hand\n"
    forced = run_cli("questionnaire", "new", "--out", str(out), "--force")
    assert forced.exit_code == 0
    assert "# Which inference engine serves the model?" in out.read_text()


EVERY_FIELD = """\
vendor: "Round, Trip; Inc."
date: 2026-11-02
answers:
  vendor.models: [glm-5.3, "model: with colon"]
  deployment.kv_pool_tokens:
    value: {prefill: 681280, decode: 2040000}
    evidence: documented
    ref: https://example.com/pool
    per: {"eu-west-1 / dedicated": {prefill: 100000}}
  isolation.kv_page_zeroing:
    value: yes
    evidence: verified
    note: "line one\\nline two, with a comma"
    date: 2026-10-30
    per: {glm-5.3: no, "llama \\"quoted\\"": yes}
  compliance.attestations:
    value: [SOC 2 Type II, ISO 27001]
    evidence: documented
    date: 2026-06-30
    per: {Region eu: [C5]}
  cache.prompt_cache_scope:
    value: organization
    evidence: documented
    ref: https://example.com/a
    conflicts:
      - {ref: https://example.com/b, note: "caches are shared \\"globally\\""}
      - {ref: https://example.com/c, note: per user}
"""


def _round_trip(run_cli: Run, tmp_path: Path, sample: Path, fmt: str) -> None:
    sheet = tmp_path / f"q.{fmt}"
    exported = run_cli(
        "questionnaire", "export", "--format", fmt, "--out", str(sheet), "--answers", str(sample)
    )
    assert exported.exit_code == 0
    back = tmp_path / "back.yaml"
    imported = run_cli("questionnaire", "import", str(sheet), "--out", str(back))
    assert imported.exit_code == 0
    bank = shipped_questionnaire()
    original, again = load_answers(sample, bank), load_answers(back, bank)
    assert again.answers == original.answers
    assert (again.vendor, again.date) == (original.vendor, original.date)


@pytest.mark.parametrize("fmt", ["xlsx", "csv"])
@pytest.mark.parametrize(
    "sample",
    sorted(SAMPLES.glob("*.yaml")) + sorted(SAMPLES.glob("public-docs/*.yaml")),
    ids=lambda p: p.stem,
)
def test_export_import_round_trip(run_cli: Run, tmp_path: Path, sample: Path, fmt: str) -> None:
    """Every shipped sample comes back the same: dates, values per model and conflicts too."""
    _round_trip(run_cli, tmp_path, sample, fmt)


@pytest.mark.parametrize("fmt", ["xlsx", "csv"])
def test_export_import_keeps_every_field_of_an_answer(
    run_cli: Run, tmp_path: Path, fmt: str
) -> None:
    sample = tmp_path / "every.yaml"
    sample.write_text(EVERY_FIELD)
    original = load_answers(sample, shipped_questionnaire())
    assert original.answers["isolation.kv_page_zeroing"].per == {
        "glm-5.3": False,
        'llama "quoted"': True,
    }
    assert len(original.answers["cache.prompt_cache_scope"].conflicts) == 2
    _round_trip(run_cli, tmp_path, sample, fmt)


@pytest.mark.parametrize(
    ("column", "cell", "expected"),
    [
        ("per", "glm-5.3: no", "per: expected a JSON object"),
        ("conflicts", '{"ref": "x", "note": "y"}', "conflicts: expected a JSON list"),
        ("per", '{"glm-5.3": "sometimes"}', "per.glm-5.3: bool: expected yes/no"),
        ("conflicts", '[{"ref": "x"}]', "conflicts.0.note: Field required"),
        ("date", "last spring", "date: Input should be a valid date"),
    ],
)
def test_import_names_a_bad_per_conflicts_or_date_cell(
    run_cli: Run, tmp_path: Path, column: str, cell: str, expected: str
) -> None:
    import csv

    sheet = tmp_path / "q.csv"
    run_cli(
        "questionnaire", "export", "--format", "csv", "--out", str(sheet),
        "--answers", str(SAMPLES / "well-run.yaml"),
    )  # fmt: skip
    rows = list(csv.reader(sheet.read_text(encoding="utf-8").splitlines()))
    at = next(i for i, row in enumerate(rows) if row[0] == "isolation.kv_page_zeroing")
    rows[at][rows[0].index(column)] = cell
    with sheet.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)
    result = run_cli("questionnaire", "import", str(sheet))
    assert result.exit_code == 2
    assert f"q.csv: row {at + 1}: isolation.kv_page_zeroing: {expected}" in result.stderr


def test_blank_export_imports_as_all_unknown(run_cli: Run, tmp_path: Path) -> None:
    sheet = tmp_path / "q.csv"
    assert run_cli("questionnaire", "export", "--format", "csv", "--out", str(sheet)).exit_code == 0
    header = sheet.read_text().splitlines()[0]
    assert header == (
        "id,section,question,help,type,allowed,critical,value,evidence,note,ref,date,per,conflicts"
    )
    result = run_cli("questionnaire", "import", str(sheet))
    assert result.exit_code == 2  # no vendor, no date: named, not a traceback
    assert "q.csv: row 2: vendor: Field required" in result.stderr
    assert "q.csv: row 3: date: Field required" in result.stderr


def test_import_reports_rows(run_cli: Run) -> None:
    result = run_cli("questionnaire", "import", str(ASSETS / "questionnaire" / "bad-cell.csv"))
    assert result.exit_code == 2
    assert "bad-cell.csv: row 5: engine.version" in result.stderr
    assert "bad-cell.csv: row 6: isolation.kv_canaries" in result.stderr


def test_validate_exits_2_listing_all_problems(run_cli: Run) -> None:
    result = run_cli(
        "questionnaire", "validate", str(ASSETS / "questionnaire" / "many-problems.yaml")
    )
    assert result.exit_code == 2
    assert "(6 problem(s))" in result.stderr
    assert "Traceback" not in result.stderr


def test_validate_refuses_not_applicable_where_it_cannot_apply(
    run_cli: Run, tmp_path: Path
) -> None:
    path = tmp_path / "a.yaml"
    path.write_text(
        "vendor: V\ndate: 2026-11-01\nanswers:\n  vendor.name: V\n"
        "  deployment.mode: {value: not_applicable, note: n/a}\n"
    )
    for command in (("questionnaire", "validate"), ("score", "--fail-on", "low")):
        result = run_cli(*command, str(path))
        assert result.exit_code == 2, command
        assert "a.yaml:5: deployment.mode: not_applicable is not accepted" in result.output


def test_schema_describes_every_question(run_cli: Run) -> None:
    result = run_cli("questionnaire", "schema")
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    answers = schema["properties"]["answers"]
    bank = shipped_questionnaire()
    assert list(answers["properties"]) == [q.id for q in bank.questions]
    assert answers["additionalProperties"] is False
    own = answers["properties"]["engine.name"]["anyOf"][1]
    assert "sglang" in own["enum"] and "unknown" in own["enum"]
    assert "not_applicable" not in json.dumps(answers["properties"]["engine.name"])
    _, not_applicable = answers["properties"]["engine.version"]["anyOf"][1]["anyOf"]
    assert not_applicable == {"enum": ["not_applicable"]}  # not_applicable_allowed
    long_form = answers["properties"]["data.zero_retention"]["anyOf"][0]["properties"]
    assert {"date", "per", "conflicts"} <= set(long_form)
    assert "Conflict" in schema["$defs"]
    assert schema["$defs"]["EvidenceLevel"]["enum"] == ["attested", "documented", "verified"]
    assert set(schema["required"]) == {"vendor", "date"}


def test_diff_shows_upgrades_and_dropped_controls(run_cli: Run, tmp_path: Path) -> None:
    old = tmp_path / "old.yaml"
    new = tmp_path / "new.yaml"
    old.write_text(
        "vendor: V\ndate: 2026-09-01\nanswers:\n  engine.name: sglang\n"
        "  engine.version: '0.5.21'\n  isolation.kv_canaries: yes\n"
        "  verification.canary_tests_in_ci: {value: yes, evidence: verified}\n"
    )
    new.write_text(
        "vendor: V\ndate: 2026-11-01\nanswers:\n  engine.name: sglang\n"
        "  engine.version: '0.5.22'\n  isolation.kv_canaries: no\n"
        "  verification.canary_tests_in_ci: {value: yes, evidence: attested}\n"
    )
    result = run_cli("questionnaire", "diff", str(old), str(new), "--json", "-")
    assert result.exit_code == 0
    diff = json.loads(result.stdout)
    assert diff["kind"] == "assess.answers-diff"
    assert [(c["id"], c["change"], c["regression"]) for c in diff["changes"]] == [
        ("engine.version", "upgrade", False),
        ("isolation.kv_canaries", "control-dropped", True),
        ("verification.canary_tests_in_ci", "evidence-weaker", True),
    ]
    assert "control-absent.isolation.kv_canaries" in diff["findings_added"]
    table = run_cli("questionnaire", "diff", str(old), str(new))
    assert "control-dropped" in table.stdout and "upgrade" in table.stdout


def test_diff_compares_values_per_model(run_cli: Run, tmp_path: Path) -> None:
    """A value given for one model changes while the answer's own value stays: it is listed."""
    old = tmp_path / "old.yaml"
    new = tmp_path / "new.yaml"
    head = "vendor: V\ndate: 2026-09-01\nanswers:\n"
    old.write_text(
        head + "  isolation.kv_canaries: {value: yes, evidence: documented, per: {glm-5.3: yes}}\n"
        "  cache.prompt_cache_scope: {value: organization, evidence: documented}\n"
    )
    new.write_text(
        head + "  isolation.kv_canaries: {value: yes, evidence: documented, per: {glm-5.3: no}}\n"
        "  cache.prompt_cache_scope:\n"
        "    {value: organization, evidence: documented, per: {o1: global, o3: organization}}\n"
    )
    diff = json.loads(run_cli("questionnaire", "diff", str(old), str(new), "--json", "-").stdout)
    assert [
        (c["id"], c["label"], c["change"], c["regression"], c["old"]["value"], c["new"]["value"])
        for c in diff["changes"]
    ] == [
        ("isolation.kv_canaries", "glm-5.3", "control-dropped", True, True, False),
        ("cache.prompt_cache_scope", "o1", "changed", True, "organization", "global"),
    ]
    scope = diff["changes"][1]
    assert scope["raises"] == ["prompt-cache-shared-across-customers"]
    assert diff["new"]["points_total"] > diff["old"]["points_total"]
    table = run_cli("questionnaire", "diff", str(old), str(new)).stdout
    assert "(for glm-5.3)" in table and "(for o1)" in table


def test_diff_of_the_shipped_re_attestation(run_cli: Run) -> None:
    old = str(SAMPLES / "incident-like.yaml")
    new = str(SAMPLES / "incident-like-after-fix.yaml")
    diff = json.loads(run_cli("questionnaire", "diff", old, new, "--json", "-").stdout)
    changes = {c["id"]: (c["change"], c["regression"]) for c in diff["changes"]}
    assert changes["engine.version"] == ("upgrade", False)
    assert changes["isolation.deferred_kv_release"] == ("control-dropped", True)
    assert changes["isolation.transfer_checksums"] == ("control-added", False)
    assert [c for c, (_, regression) in changes.items() if regression] == [
        "isolation.deferred_kv_release"
    ]
    assert (diff["old"]["tier"], diff["new"]["tier"]) == ("critical", "medium")
    assert "advisory.glm-5.3-kv-leak" in diff["findings_resolved"]


def test_diff_shows_points_before_the_cap_and_coverage(run_cli: Run, tmp_path: Path) -> None:
    """Both sides at the cap of 100: the change is in the points before it, never hidden."""
    old = SAMPLES / "incident-like.yaml"
    new = tmp_path / "more.yaml"
    new.write_text(
        old.read_text() + "  cache.prompt_cache_scope: {value: global, evidence: documented}\n"
    )
    diff = json.loads(run_cli("questionnaire", "diff", str(old), str(new), "--json", "-").stdout)
    assert (diff["old"]["score"], diff["new"]["score"]) == (100, 100)
    assert diff["new"]["points_total"] == diff["old"]["points_total"] + 15
    assert diff["new"]["coverage"] > diff["old"]["coverage"]
    table = run_cli("questionnaire", "diff", str(old), str(new)).stdout
    before, after = diff["old"]["points_total"], diff["new"]["points_total"]
    flat = " ".join(table.split())
    assert f"score 100 -> 100 (points before the cap {before} -> {after})" in flat
    assert f"coverage {diff['old']['coverage']:.0%} -> {diff['new']['coverage']:.0%}" in flat


@pytest.mark.parametrize(
    ("old", "value", "raises", "lost"),
    [
        ("well-run", "yes", ["prompts-used-for-training"], True),
        ("incident-like-after-fix", "yes", ["prompts-used-for-training"], True),
        ("incident-like", "unknown", [], True),
    ],
)
def test_diff_flags_a_changed_value_that_raises_a_finding(
    run_cli: Run, tmp_path: Path, old: str, value: str, raises: list[str], lost: bool
) -> None:
    """Not a control question, yet `no -> yes` adds a high finding and drops a fact in place:
    both sides are scored, so the change is a regression (it once showed `regression: false`)."""
    before = SAMPLES / f"{old}.yaml"
    text = before.read_text()
    line = "  data.prompts_used_for_training: {value: no, evidence: documented}\n"
    assert line in text
    after = tmp_path / "after.yaml"
    after.write_text(text.replace(line, line.replace("no,", f"{value},")))
    diff = json.loads(
        run_cli("questionnaire", "diff", str(before), str(after), "--json", "-").stdout
    )
    [change] = diff["changes"]
    assert (change["id"], change["regression"], change["raises"], change["control_lost"]) == (
        "data.prompts_used_for_training",
        True,
        raises,
        lost,
    )
    assert diff["findings_added"] == raises
    table = run_cli("questionnaire", "diff", str(before), str(after)).stdout
    assert "regression" in table


def test_diff_of_two_shipped_vendors_flags_what_scoring_shows(run_cli: Run) -> None:
    """well-run -> evasive: tenancy and retention are no controls, but the scores say worse."""
    paths = [str(SAMPLES / f"{name}.yaml") for name in ("well-run", "evasive")]
    diff = json.loads(run_cli("questionnaire", "diff", *paths, "--json", "-").stdout)
    changes = {c["id"]: c for c in diff["changes"] if not c["label"]}
    tenancy = changes["tenancy.model"]
    assert (tenancy["change"], tenancy["regression"], tenancy["raises"]) == (
        "changed",
        True,
        ["shared-tenancy-only"],
    )
    retention = changes["data.prompt_retention_days"]
    assert (retention["regression"], retention["control_lost"]) == (True, True)
    # what only grows or adds facts stays no regression
    assert not changes["isolation.kv_page_zeroing"]["regression"]
    assert not changes["deployment.advertised_context_tokens"]["regression"]


@pytest.mark.parametrize(
    ("old", "new"),
    [("incident-like", "incident-like-after-fix"), ("well-run", "evasive")],
)
def test_diff_scores_both_sides_as_score_does(run_cli: Run, old: str, new: str) -> None:
    paths = [str(SAMPLES / f"{name}.yaml") for name in (old, new)]
    diff = json.loads(run_cli("questionnaire", "diff", *paths, "--json", "-").stdout)
    for side, path in zip(("old", "new"), paths, strict=True):
        scored = json.loads(run_cli("score", path, "--json", "-").stdout)
        assert (diff[side]["score"], diff[side]["tier"], diff[side]["date"]) == (
            scored["score"],
            scored["tier"],
            scored["answered_on"],
        )
    before, after = (
        {f["id"] for f in json.loads(run_cli("score", p, "--json", "-").stdout)["findings"]}
        for p in paths
    )
    assert diff["findings_added"] == sorted(after - before)
    assert diff["findings_resolved"] == sorted(before - after)


def test_xlsx_filled_in_with_native_cells_imports(run_cli: Run, tmp_path: Path) -> None:
    """A vendor's spreadsheet app stores dates, numbers and booleans as typed cells."""
    import datetime as dt

    from openpyxl import load_workbook

    sheet = tmp_path / "q.xlsx"
    assert run_cli("questionnaire", "export", "--out", str(sheet)).exit_code == 0
    book = load_workbook(sheet)
    filled = {
        "@vendor": ("Acme AI", None),
        "@date": (dt.datetime(2026, 11, 5), None),
        "engine.name": ("SGLang", "Verified"),
        "engine.version": ("0.5.21", "documented"),
        "deployment.advertised_context_tokens": (1048576, None),
        "deployment.kv_pool_tokens": ("prefill=681280; decode=2,213,888", None),
        "deployment.pool_checked_after_config_change": (True, None),
        "incident.disclosure_days": (30.0, None),
    }
    for row in book.active.iter_rows(min_row=2):
        if row[0].value in filled:
            row[7].value, row[8].value = filled[row[0].value]
    book.save(sheet)
    out = tmp_path / "answers.yaml"
    assert run_cli("questionnaire", "import", str(sheet), "--out", str(out)).exit_code == 0
    answers = load_answers(out, shipped_questionnaire())
    assert (answers.vendor, answers.date.isoformat()) == ("Acme AI", "2026-11-05")
    got = {q: (a.value, a.evidence.value) for q, a in answers.answers.items() if q in filled}
    assert got == {
        "engine.name": ("sglang", "verified"),
        "engine.version": ("0.5.21", "documented"),
        "deployment.advertised_context_tokens": (1048576, "attested"),
        "deployment.kv_pool_tokens": ({"prefill": 681280, "decode": 2213888}, "attested"),
        "deployment.pool_checked_after_config_change": (True, "attested"),
        "incident.disclosure_days": (30, "attested"),
    }


@pytest.mark.parametrize(
    ("encoding", "delimiter"), [("cp1252", ";"), ("utf-16", "\t"), ("utf-8-sig", ",")]
)
def test_csv_as_spreadsheet_apps_save_it(
    run_cli: Run, tmp_path: Path, encoding: str, delimiter: str
) -> None:
    """Excel saves CSV with ';' in continental locales, in Windows-1252, or as UTF-16 text."""
    import csv

    sheet = tmp_path / "q.csv"
    sample = SAMPLES / "well-run.yaml"
    run_cli(
        "questionnaire", "export", "--format", "csv", "--out", str(sheet), "--answers", str(sample)
    )
    rows = list(csv.reader(sheet.read_text(encoding="utf-8").splitlines()))
    rows[1][7] = "Sécurité Inc."  # @vendor, not ASCII
    resaved = tmp_path / "resaved.csv"
    with resaved.open("w", encoding=encoding, newline="") as handle:
        csv.writer(handle, delimiter=delimiter, lineterminator="\r\n").writerows(rows)
    result = run_cli("questionnaire", "import", str(resaved), "--out", str(tmp_path / "a.yaml"))
    assert result.exit_code == 0, result.stderr
    bank = shipped_questionnaire()
    again = load_answers(tmp_path / "a.yaml", bank)
    assert again.vendor == "Sécurité Inc."
    assert again.answers == load_answers(sample, bank).answers


@pytest.mark.parametrize("fmt", ["xlsx", "csv"])
def test_title_rows_above_the_header_are_skipped(run_cli: Run, tmp_path: Path, fmt: str) -> None:
    from openpyxl import load_workbook

    sheet = tmp_path / f"q.{fmt}"
    sample = SAMPLES / "well-run.yaml"
    run_cli(
        "questionnaire", "export", "--format", fmt, "--out", str(sheet), "--answers", str(sample)
    )
    if fmt == "xlsx":
        book = load_workbook(sheet)
        book.active.insert_rows(1, amount=2)
        book.active["A1"] = "Careful Compute: isolation questionnaire"
        book.save(sheet)
    else:
        sheet.write_text("Careful Compute: isolation questionnaire\n\n" + sheet.read_text())
    result = run_cli("questionnaire", "import", str(sheet), "--out", str(tmp_path / "a.yaml"))
    assert result.exit_code == 0, result.stderr
    bank = shipped_questionnaire()
    assert load_answers(tmp_path / "a.yaml", bank).answers == load_answers(sample, bank).answers
    bad = sheet.with_name(f"bad.{fmt}")
    if fmt == "csv":
        bad.write_text(
            sheet.read_text().replace(
                "@date,,Date of these answers,,date,YYYY-MM-DD,,2026-11-02",
                "@date,,Date of these answers,,date,YYYY-MM-DD,,02/11/26",
            )
        )
        result = run_cli("questionnaire", "import", str(bad))
        assert result.exit_code == 2
        assert "bad.csv: row 5: date: Input should be a valid date" in result.stderr


def test_xlsx_answers_that_look_like_formulas_stay_text(run_cli: Run, tmp_path: Path) -> None:
    """A vendor's "=..." answer is exported as text: no formula runs, and it reads back."""
    from openpyxl import load_workbook

    answers = tmp_path / "a.yaml"
    answers.write_text(
        'vendor: \'=HYPERLINK("http://x", "y")\'\ndate: 2026-01-01\n'
        "answers:\n  vendor.name: {value: '=1+1', note: '=A1'}\n"
    )
    sheet = tmp_path / "q.xlsx"
    assert (
        run_cli("questionnaire", "export", "--out", str(sheet), "--answers", str(answers)).exit_code
        == 0
    )
    rows = {row[0].value: row for row in load_workbook(sheet).active.iter_rows(min_row=2)}
    assert rows["vendor.name"][7].data_type == "s" and rows["vendor.name"][9].data_type == "s"
    back = tmp_path / "back.yaml"
    assert run_cli("questionnaire", "import", str(sheet), "--out", str(back)).exit_code == 0
    again = load_answers(back, shipped_questionnaire())
    assert again.vendor == '=HYPERLINK("http://x", "y")'
    assert (again.answers["vendor.name"].value, again.answers["vendor.name"].note) == (
        "=1+1",
        "=A1",
    )
