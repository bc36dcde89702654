"""YAML/JSON loading: line numbers, duplicate keys, and errors that name the place."""

from __future__ import annotations

from pathlib import Path

import pytest

from assess.advisories.models import Advisory
from assess.kernel.errors import InputError
from assess.kernel.structured import load_document, parse_json, parse_yaml


def test_lines_are_tracked() -> None:
    doc = parse_yaml("a: 1\nb:\n  c: [x, y]\n  d: 0.5.21\n", "f.yaml")
    assert doc.data == {"a": 1, "b": {"c": ["x", "y"], "d": "0.5.21"}}
    assert doc.line_of(("b", "d")) == 4
    assert doc.where(("b", "c", 1)) == "f.yaml:3"


def test_yes_no_stay_strings_but_true_false_are_booleans() -> None:
    doc = parse_yaml("a: yes\nb: off\nc: true\nd: False\n")
    assert doc.data == {"a": "yes", "b": "off", "c": True, "d": False}


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("a: 1\nb: 2\na: 3\n", r"f\.yaml:3: duplicate key 'a' \(first given on line 1\)"),
        ("a: [1, 2\nb: 3\n", r"f\.yaml:\d+: YAML syntax error"),
        ("", r"f\.yaml: the file is empty"),
        ("# only a comment\n", r"f\.yaml: the file is empty"),
    ],
)
def test_yaml_errors_name_the_place(text: str, pattern: str) -> None:
    with pytest.raises(InputError, match=pattern):
        parse_yaml(text, "f.yaml")


def test_json_errors_name_the_line() -> None:
    with pytest.raises(InputError, match=r"f\.json:2: JSON syntax error"):
        parse_json('{"a": 1,\n "b": }', "f.json")
    with pytest.raises(InputError, match="duplicate key 'a'"):
        parse_json('{"a": 1, "a": 2}', "f.json")


def test_missing_and_binary_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_document(tmp_path / "nope.yaml")
    junk = tmp_path / "junk.yaml"
    junk.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(InputError, match="is not UTF-8 text"):
        load_document(junk)
    with pytest.raises(InputError, match="is a folder"):
        load_document(tmp_path)


def test_validation_errors_list_every_problem_with_file_and_line() -> None:
    text = (
        "id: BAD ID\ntitle: t\nsummary: s\nplatform: p\npublished: 2026-10-26\n"
        "models: {names: [glm-5.3]}\n"
        "window: {start: '2026-09-10T00:00:00Z', end: '2026-09-09T00:00:00Z'}\n"
        "trigger: {prompt_tokens_gt: -1}\n"
        "engine: {name: sglang, affected: 'not a range', fixed_version: '0.5.22'}\n"
    )
    with pytest.raises(InputError) as info:
        Advisory.from_text(text, "adv.yaml")
    message = info.value.message
    assert "adv.yaml:1: id:" in message
    assert "adv.yaml:7: window:" in message
    assert "adv.yaml:8: trigger.prompt_tokens_gt:" in message
    assert "adv.yaml:9: engine.affected:" in message


def test_release_candidates_of_the_fix_are_affected() -> None:
    from assess.advisories.catalogue import get_advisory

    engine = get_advisory("glm-5.3-kv-leak").engine
    assert engine.is_affected("0.5.21")
    assert engine.is_affected("v0.5.21.post1")
    assert engine.is_affected("0.5.22rc1")
    assert engine.is_affected("0.5.22.dev3")
    assert not engine.is_affected("0.5.22")
    assert not engine.is_affected("0.5.22.post1")
    assert not engine.is_affected("0.6.0rc1")


def _yaml_files() -> list[Path]:
    root = Path(__file__).resolve().parents[1]
    found = [
        p
        for folder in ("advisories", "questionnaires", "assess", "samples", "tests")
        for p in (root / folder).rglob("*.y*ml")
    ]
    assert len(found) > 10
    return sorted(found)


def test_libyaml_parser_gives_what_the_python_parser_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    """parse_yaml composes with libyaml when PyYAML has it; values, lines and duplicates must be
    what the pure-Python parser gives, for every YAML file the project ships or tests with."""
    from assess.kernel import structured

    compared = 0
    for path in _yaml_files():
        text = path.read_text(encoding="utf-8")
        try:
            fast = parse_yaml(text, str(path), collect_duplicates=True)
        except InputError as exc:
            fast_error: str | None = exc.render()
        else:
            fast_error = None
        with monkeypatch.context() as patch:
            patch.setattr(structured, "_FastLineLoader", structured._LineLoader)
            try:
                slow = parse_yaml(text, str(path), collect_duplicates=True)
            except InputError as exc:
                assert fast_error is not None, path
                assert fast_error.split(":")[:2] == exc.render().split(":")[:2], path
                continue
        assert fast_error is None, (path, fast_error)
        assert (fast.data, fast.lines, fast.duplicates) == (slow.data, slow.lines, slow.duplicates)
        compared += 1
    assert compared > 10
