"""Vendors send the YAML and JSON files assess reads: nesting and alias expansion are bounded.

Before the limits, the 400-byte ``billion-laughs.yaml`` (nine aliases each repeating the one
before nine times: 9^9 values) ran over 60 s and 400 MB in `questionnaire validate`, and JSON
nested 2,000 deep ended in a RecursionError traceback with exit 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assess.kernel.errors import InputError
from assess.kernel.structured import MAX_DEPTH, MAX_VALUES, load_document, parse_json, parse_yaml
from tests.conftest import ASSETS

LAUGHS = ASSETS / "damaged" / "billion-laughs.yaml"


def _nested_json(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def _nested_yaml(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_alias_bomb_is_refused_naming_the_file() -> None:
    assert LAUGHS.stat().st_size < 500
    with pytest.raises(InputError, match=r"billion-laughs\.yaml:\d+: the document expands"):
        load_document(LAUGHS)


def test_aliases_within_the_budget_still_expand() -> None:
    doc = parse_yaml("a: &x [1, 2]\nb: *x\nc: *x\n")
    assert doc.data == {"a": [1, 2], "b": [1, 2], "c": [1, 2]}


def test_the_value_budget_is_exact() -> None:
    # a list of n scalars is n + 1 values (the list itself)
    parse_yaml("[" + ",".join(["1"] * (MAX_VALUES - 1)) + "]")
    with pytest.raises(InputError, match="expands to more than"):
        parse_yaml("[" + ",".join(["1"] * MAX_VALUES) + "]")


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 2_000])
def test_deep_json_is_refused(depth: int) -> None:
    with pytest.raises(InputError, match=rf"deep\.json: nested more than {MAX_DEPTH} levels"):
        parse_json(_nested_json(depth), "deep.json")


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 3_000])
def test_deep_yaml_is_refused(depth: int) -> None:
    with pytest.raises(InputError, match=r"deep\.yaml"):
        parse_yaml(_nested_yaml(depth), "deep.yaml")


def test_nesting_at_the_limit_is_read() -> None:
    assert parse_json(_nested_json(MAX_DEPTH), "ok.json").data is not None
    assert parse_yaml(_nested_yaml(MAX_DEPTH), "ok.yaml").data is not None


@pytest.mark.parametrize(
    "command", [["questionnaire", "validate"], ["score"], ["questionnaire", "diff", "{f}"]]
)
@pytest.mark.parametrize("name", ["billion-laughs.yaml", "deep.json", "deep.yaml"])
def test_commands_exit_2_without_traceback(
    run_cli: object, tmp_path: Path, command: list[str], name: str
) -> None:
    target = tmp_path / name
    if name == "billion-laughs.yaml":
        target.write_bytes(LAUGHS.read_bytes())
    elif name.endswith(".json"):
        target.write_text(_nested_json(2_000))
    else:
        target.write_text(_nested_yaml(3_000))
    args = [word.replace("{f}", str(target)) for word in command]
    result = run_cli(*args, str(target))  # type: ignore[operator]
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert name in result.output


def test_evidence_json_is_bounded_too(run_cli: object, tmp_path: Path) -> None:
    probe = tmp_path / "probe.json"
    probe.write_text(
        json.dumps({"kind": "assess.probe"})[:-1] + ', "x": ' + _nested_json(900) + "}"
    )
    answers = Path(__file__).resolve().parents[2] / "samples" / "vendors"
    sample = sorted(answers.glob("*.yaml"))[0]
    result = run_cli("score", str(sample), "--probe", str(probe))  # type: ignore[operator]
    assert result.exit_code == 2, result.output
    assert "nested more than" in result.output
