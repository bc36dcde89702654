"""The shipped questionnaire: required ids, references resolve, broken banks are refused."""

from __future__ import annotations

import pytest

from assess.kernel.common import Severity
from assess.kernel.errors import CatalogueError, InputError
from assess.kernel.structured import parse_yaml
from assess.vendor.bank import (
    load_questionnaire,
    load_questionnaire_file,
    questionnaire_from_located,
    shipped_questionnaire,
)
from assess.vendor.questionnaire import KNOWN_CHECKS, AnswerType
from assess.vendor.scoring.checks import CHECKS
from tests.conftest import ASSETS

REQUIRED_IDS = """vendor.name vendor.service vendor.models engine.name engine.version
deployment.mode
deployment.transfer_backend deployment.advertised_context_tokens deployment.kv_pool_tokens
deployment.pool_checked_after_config_change isolation.kv_page_zeroing isolation.page_ownership_tags
isolation.transfer_checksums isolation.kv_canaries isolation.deferred_kv_release
isolation.rejects_over_length_at_admission isolation.proxy_aborts_mid_transfer
isolation.prefix_cache_salted_per_tenant tenancy.model verification.canary_tests_in_ci
verification.isolation_tested_after_changes incident.disclosure_days incident.bug_bounty
data.prompt_retention_days""".split()


def test_shipped_questionnaire_has_every_required_id() -> None:
    bank = shipped_questionnaire()
    ids = [q.id for q in bank.questions]
    assert set(REQUIRED_IDS) <= set(ids)
    assert len(ids) == len(set(ids))
    assert bank.problems() == []


def test_required_answer_shapes() -> None:
    bank = shipped_questionnaire()
    engine = bank.question("engine.name")
    assert engine is not None and engine.type is AnswerType.ENUM
    assert engine.values == [
        "sglang",
        "vllm",
        "tensorrt-llm",
        "tgi",
        "proprietary",
        "other",
        "unknown",
    ]
    mode = bank.question("deployment.mode")
    assert mode is not None and mode.values == ["aggregated", "disaggregated", "unknown"]
    pool = bank.question("deployment.kv_pool_tokens")
    assert pool is not None and pool.roles == ["prefill", "decode", "aggregated"]
    assert bank.question("engine.version").type is AnswerType.VERSION  # type: ignore[union-attr]
    checked = bank.question("deployment.pool_checked_after_config_change")
    assert checked is not None and checked.type is AnswerType.BOOL


def test_every_enabled_check_is_implemented() -> None:
    assert set(KNOWN_CHECKS) == set(CHECKS)
    assert set(shipped_questionnaire().checks) <= set(CHECKS)


def test_controls_weigh_at_least_an_attested_claim() -> None:
    bank = shipped_questionnaire()
    floor = bank.scoring.attested_only_severity.rank
    assert all(q.weight.rank >= floor for q in bank.questions if q.control)
    assert bank.scoring.points[Severity.CRITICAL] > bank.scoring.points[Severity.HIGH]


def test_broken_references_are_all_reported_with_lines() -> None:
    path = ASSETS / "questionnaire" / "bank-broken-references.yaml"
    with pytest.raises(CatalogueError) as info:
        load_questionnaire_file(path)
    lines = info.value.message.splitlines()
    assert lines == [
        f"{path}:7: unknown check 'telepathy' (known: {', '.join(KNOWN_CHECKS)})",
        f"{path}:13: duplicate question id 'engine.name'",
        f"{path}:24: condition names no question: 'engine.version'",
        f"{path}:25: 'llama' is not an allowed value of 'engine.name'",
    ]


def test_invalid_question_shape_names_the_line() -> None:
    text = (
        "id: q\nversion: 1\ntitle: t\nscoring:\n  points: {critical: 4, high: 3, medium: 2, "
        "low: 1, info: 0}\n  tiers: {medium: 1, high: 2, critical: 3}\nquestions:\n"
        "  - id: a.b\n    text: x\n    type: enum\n"
    )
    with pytest.raises(InputError, match=r"q\.yaml:8: questions\.0: Value error, an enum question"):
        questionnaire_from_located(parse_yaml(text, "q.yaml"))


def test_unknown_questionnaire_id_names_the_shipped_ones() -> None:
    with pytest.raises(InputError) as info:
        load_questionnaire("no-such-bank")
    assert "llm-inference-isolation" in info.value.advice


def test_new_conditions_and_safe_values_are_checked_with_their_lines() -> None:
    text = (
        "id: q\nversion: 1\ntitle: t\nscoring:\n  points: {critical: 4, high: 3, medium: 2, "
        "low: 1, info: 0}\n  tiers: {medium: 1, high: 2, critical: 3}\nquestions:\n"
        "  - id: a.mode\n    text: x\n    type: enum\n    values: [one, two]\n"
        "    safe_values: [three]\n"
        "  - id: a.control\n    text: y\n    type: bool\n    control: true\n"
        "    not_applicable_when: {all: [{question: a.nothing, is: one}]}\n"
        "    compensated_by: [{question: a.control, is: true}]\n"
    )
    with pytest.raises(CatalogueError) as info:
        questionnaire_from_located(parse_yaml(text, "q.yaml"))
    assert info.value.message.splitlines() == [
        "q.yaml:12: 'three' is not an allowed value of 'a.mode'",
        "q.yaml:17: condition names no question: 'a.nothing'",
        "q.yaml:18: 'a.control' cannot depend on its own answer",
    ]
