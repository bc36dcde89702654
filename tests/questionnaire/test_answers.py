"""Answers files: every bad input names its file, line (or row) and id; values are coerced."""

from __future__ import annotations

from pathlib import Path

import pytest

from assess.kernel.common import EvidenceLevel
from assess.kernel.errors import InputError
from assess.kernel.structured import parse_yaml
from assess.vendor.answers_check import check_answers
from assess.vendor.answers_file import load_answers, load_answers_and_bank
from assess.vendor.bank import shipped_questionnaire
from tests.conftest import ASSETS

Q = ASSETS / "questionnaire"


@pytest.mark.parametrize(
    ("asset", "pattern"),
    [
        (
            "unknown-id.yaml",
            r"unknown-id\.yaml:5: engine\.nmae: not a question of llm-inference-isolation "
            r"\(did you mean 'engine\.name'\?\)",
        ),
        (
            "wrong-type.yaml",
            r"wrong-type\.yaml:5: deployment\.advertised_context_tokens: int: expected a whole "
            r"number or unknown, got 'lots'",
        ),
        (
            "bad-version.yaml",
            r"bad-version\.yaml:5: engine\.version: version: '0\.5\.x' is not a version",
        ),
        (
            "duplicate-key.yaml",
            r"duplicate-key\.yaml:4: engine\.name: duplicate key: given again on line 6 \(the "
            r"entry on line 4 is the one read\)",
        ),
        ("syntax-error.yaml", r"syntax-error\.yaml:5: YAML syntax error"),
        ("empty.yaml", r"empty\.yaml: the file is empty"),
        ("impossible-date.yaml", r"impossible-date\.yaml:3: date: Input should be a valid date"),
        (
            "unknown-tag.yaml",
            r"unknown-tag\.yaml:4: could not determine a constructor for the tag '!vendor-says'",
        ),
        (
            "bad-value.json",
            r"bad-value\.json:6: isolation\.kv_canaries: bool: expected yes/no",
        ),
        ("missing-column.csv", r"missing-column\.csv: missing column 'evidence'"),
        ("missing-column.xlsx", r"missing-column\.xlsx: missing column 'value'"),
        (
            "bad-cell.csv",
            r"bad-cell\.csv: row 5: engine\.version: version: 'latest' is not a version",
        ),
    ],
)
def test_bad_input_names_the_place(asset: str, pattern: str) -> None:
    with pytest.raises(InputError, match=pattern):
        load_answers(Q / asset, shipped_questionnaire())


def _problems(path: Path, text: str) -> list[str]:
    """Write ``text`` to ``path``, load it as answers and return the lines of the refusal."""
    path.write_text(text)
    with pytest.raises(InputError) as info:
        load_answers(path, shipped_questionnaire())
    return info.value.message.splitlines()


def test_a_duplicate_key_is_reported_beside_the_other_problems(tmp_path: Path) -> None:
    path = tmp_path / "dupe.yaml"
    lines = _problems(
        path,
        "vendor: Ex\ndate: 2026-11-01\nanswers:\n"
        "  engine.name: sglang\n  engine.version: 0.5.x\n  engine.name: vllm\n",
    )
    assert lines[0].startswith(f"{path}:4: engine.name: duplicate key: given again on line 6")
    assert lines[1].startswith(f"{path}:5: engine.version: version: '0.5.x' is not a version")
    assert len(lines) == 2


def test_every_problem_is_reported_at_once() -> None:
    path = Q / "many-problems.yaml"
    with pytest.raises(InputError) as info:
        load_answers(path, shipped_questionnaire())
    assert info.value.message.splitlines() == [
        f"{path}:2: date: Field required",
        f"{path}:4: engine.name: evidence: Input should be 'attested', 'documented' or 'verified'",
        f"{path}:5: engine.version: version: write the version in quotes "
        "(0.1 was read as a number)",
        f"{path}:6: deployment.mode: enum: 'hybrid' is not one of: aggregated, disaggregated, "
        "unknown",
        f"{path}:7: deployment.kv_pool_tokens: per-role-int: unknown role 'encode' (roles: "
        "prefill, decode, aggregated)",
        f"{path}:8: tenancy.modle: not a question of llm-inference-isolation (did you mean "
        "'tenancy.model'?)",
    ]


def test_spreadsheet_problems_name_every_row() -> None:
    path = Q / "bad-cell.csv"
    with pytest.raises(InputError) as info:
        load_answers(path, shipped_questionnaire())
    assert info.value.message.splitlines() == [
        f"{path}: row 5: engine.version: version: 'latest' is not a version (PEP 440, e.g. 0.5.22)",
        f"{path}: row 6: isolation.kv_canaries: evidence: Input should be 'attested', "
        "'documented' or 'verified'",
    ]


def _check(text: str) -> dict[str, object]:
    doc = parse_yaml("vendor: V\ndate: 2026-11-01\nanswers:\n" + text, "a.yaml")
    answers = check_answers(doc.data, doc.where, shipped_questionnaire())
    return {k: v.value for k, v in answers.answers.items()}


def test_values_are_coerced_to_their_question_type() -> None:
    values = _check(
        "  engine.name: SGLang\n"
        "  engine.version: v0.5.21\n"
        "  tenancy.model: single-tenant available\n"
        "  deployment.kv_pool_tokens: 'prefill=681,280; decode: 2040000'\n"
        "  deployment.advertised_context_tokens: '1,048,576'\n"
        "  isolation.kv_canaries: yes\n"
        "  isolation.kv_page_zeroing: false\n"
        "  vendor.models: '@cf/zai-org/glm-5.3, glm-5.2'\n"
        "  deployment.mode: {value: unknown, evidence: verified}\n"
    )
    assert values == {
        "engine.name": "sglang",
        "engine.version": "v0.5.21",
        "tenancy.model": "single-tenant-available",
        "deployment.kv_pool_tokens": {"prefill": 681280, "decode": 2040000},
        "deployment.advertised_context_tokens": 1048576,
        "isolation.kv_canaries": True,
        "isolation.kv_page_zeroing": False,
        "vendor.models": ["@cf/zai-org/glm-5.3", "glm-5.2"],
        "deployment.mode": "unknown",
    }


def test_numbers_below_the_minimum_are_refused() -> None:
    with pytest.raises(InputError, match=r"a\.yaml:4: deployment\.kv_pool_tokens: .*must be at"):
        _check("  deployment.kv_pool_tokens: {prefill: 0}\n")


def test_answers_for_another_questionnaire_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "other.yaml"
    path.write_text("questionnaire: cloud-basics\nvendor: V\ndate: 2026-11-01\n")
    with pytest.raises(InputError, match=r"other\.yaml:1: questionnaire: answers are for"):
        load_answers_and_bank(path)


def test_samples_load_with_evidence_levels() -> None:
    bank, answers = load_answers_and_bank(Path("samples/vendors/well-run.yaml"))
    assert bank.id == "llm-inference-isolation"
    assert answers.get("engine.version").evidence is EvidenceLevel.VERIFIED
    assert answers.get("vendor.name").ref == ""
    assert answers.get("deployment.kv_pool_tokens").ref == "startup logs reviewed 2026-11-01"


def test_an_impossible_date_is_one_problem_among_others() -> None:
    """2026-13-01 looks like a YAML timestamp but is no date: a problem, not a crash."""
    with pytest.raises(InputError) as info:
        load_answers_and_bank(Q / "impossible-date.yaml")
    assert "impossible-date.yaml:3: date: Input should be a valid date" in info.value.message
    assert "impossible-date.yaml:6: deployment.mode: enum: 'hybrid'" in info.value.message


def test_every_repeated_key_of_a_json_answers_file_is_reported_with_its_line(
    tmp_path: Path,
) -> None:
    """JSON answers with repeats: all of them, each with its lines, beside the other problems
    (the JSON reader alone stopped at the first one, with no line)."""
    path = tmp_path / "dupe.json"
    lines = _problems(
        path,
        '{\n  "vendor": "Ex",\n  "date": "2026-11-01",\n  "answers": {\n'
        '    "engine.name": "sglang",\n    "engine.version": "0.5.x",\n'
        '    "engine.name": "vllm",\n    "engine.version": "0.5.21"\n  }\n}\n',
    )
    assert lines[0].startswith(f"{path}:5: engine.name: duplicate key: given again on line 7")
    assert lines[1].startswith(f"{path}:6: engine.version: duplicate key: given again on line 8")
    assert lines[2].startswith(f"{path}:6: engine.version: version: '0.5.x' is not a version")
    assert len(lines) == 3


def test_a_json_file_that_reads_otherwise_as_yaml_keeps_the_json_error(tmp_path: Path) -> None:
    """Where YAML would read other values (1e3 is text in YAML 1.1), the repeat is reported by
    the JSON reader, without a line, rather than with values the file does not hold."""
    path = tmp_path / "dupe-float.json"
    path.write_text('{"vendor": "Ex", "date": "2026-11-01", "x": 1e3, "vendor": "Ey"}\n')
    with pytest.raises(InputError, match="duplicate key 'vendor'"):
        load_answers(path, shipped_questionnaire())
