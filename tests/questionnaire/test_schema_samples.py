"""Every shipped answers sample validates against `assess questionnaire schema` (editors that
check the schema accept not_applicable, per-model values, dates and conflicts)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from assess.vendor.bank import shipped_questionnaire
from assess.vendor.schema import answers_schema
from tests.conftest import REPO

SAMPLES = sorted((REPO / "samples" / "vendors").rglob("*.yaml"))


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_sample_validates_against_the_schema(path: Path) -> None:
    data = json.loads(json.dumps(yaml.safe_load(path.read_text(encoding="utf-8")), default=str))
    validator = jsonschema.Draft202012Validator(answers_schema(shipped_questionnaire()))
    assert [e.message for e in validator.iter_errors(data)] == []


def test_the_schema_refuses_what_the_reader_refuses() -> None:
    validator = jsonschema.Draft202012Validator(answers_schema(shipped_questionnaire()))
    bad = {"vendor": "V", "date": "2026-12-01", "answers": {"deployment.mode": "sideways"}}
    assert list(validator.iter_errors(bad))
