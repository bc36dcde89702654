"""`score` checks the answers against every advisory: inside a range flagged with it, just past
the fix not, an unknown version or setting "cannot tell" (no points), an exposing answer that
rules it out clears it. Every finding names the advisories it rests on."""

from __future__ import annotations

import pytest

from assess.advisories.catalogue import load_advisories
from assess.kernel.structured import parse_yaml
from assess.vendor.answers_check import check_answers
from assess.vendor.bank import shipped_questionnaire
from assess.vendor.scoring import score_answers
from assess.vendor.scoring.models import ScoreResult
from tests.conftest import REPO

BANK = shipped_questionnaire()
CATALOGUE = load_advisories()


def score(answers: dict[str, str]) -> ScoreResult:
    body = "".join(f"  {k}: {v!r}\n" for k, v in answers.items())
    doc = parse_yaml("vendor: V\ndate: 2026-11-01\nanswers:\n" + body, "a.yaml")
    return score_answers(BANK, check_answers(doc.data, doc.where, BANK), CATALOGUE)


def about(result: ScoreResult, advisory: str) -> dict[str, str]:
    """The findings naming ``advisory``: id -> severity (merged findings included)."""
    every = [g for f in result.findings for g in (f, *f.merged)]
    return {f.id: f.severity.value for f in every if advisory in f.advisories}


ENGINE = "engine.version"
LIBRARY = "cache.client_library_version"

# (advisory, answers inside its range and exposed, the question holding the version)
RANGE_CASES = [
    (
        "glm-5.3-kv-leak",
        {"engine.name": "sglang", "engine.version": "0.5.21", "deployment.mode": "disaggregated"},
        ENGINE,
    ),
    (
        "vllm-prefix-cache-timing",
        {"engine.name": "vllm", "engine.version": "0.8.5.post1", "deployment.mode": "aggregated",
         "cache.prompt_cache_scope": "global"},
        ENGINE,
    ),
    (
        "sglang-cache-salt-ignored",
        {"engine.name": "sglang", "engine.version": "0.5.10.post1",
         "deployment.mode": "aggregated", "cache.prompt_cache_scope": "organization"},
        ENGINE,
    ),
    (
        "sglang-hicache-l3-unsalted",
        {"engine.name": "sglang", "engine.version": "0.5.19", "deployment.mode": "aggregated",
         "cache.external_tiers_namespaced": "no"},
        ENGINE,
    ),
    (
        "sglang-lmcache-unsalted",
        {"engine.name": "sglang", "engine.version": "0.5.21", "deployment.mode": "aggregated",
         "cache.external_tiers_namespaced": "no"},
        ENGINE,
    ),
    (
        "sglang-pd-kv-transfer-race",
        {"engine.name": "sglang", "engine.version": "0.5.22", "deployment.mode": "disaggregated",
         "isolation.transfer_checksums": "no"},
        ENGINE,
    ),
    (
        # a library no engine.name names: the application cache's client and its version
        "chatgpt-redis-py-2023",
        {"engine.name": "sglang", "engine.version": "0.5.22", "deployment.mode": "aggregated",
         "cache.client_library": "redis-py", "cache.client_library_version": "4.5.3"},
        LIBRARY,
    ),
]  # fmt: skip

# (advisory without a version range, answers that expose, answers that rule it out)
SETTING_CASES = [
    (advisory, {"cache.prompt_cache_scope": "global"}, {"cache.prompt_cache_scope": "organization"})
    for advisory in ("prompt-cache-global-sharing-2024", "openrouter-shared-credentials-2025")
]
RANGED = sorted(a.id for a in CATALOGUE.values() if a.engines)
EXPOSED_ONLY = sorted(a.id for a in CATALOGUE.values() if a.exposed_if and not a.engines)


def test_every_advisory_with_a_range_or_exposing_answers_has_a_case() -> None:
    # a new advisory in advisories/ without a case here fails: each one is checked both ways
    assert sorted(c[0] for c in RANGE_CASES) == RANGED
    assert sorted(c[0] for c in SETTING_CASES) == EXPOSED_ONLY
    assert "chatgpt-redis-py-2023" in RANGED


def _edges(advisory: str) -> tuple[list[str], list[str]]:
    """Versions inside each range (its first version) and just past each fix (the fixed version,
    unless another range of the same engine holds it), read from the catalogue."""
    scopes = CATALOGUE[advisory].engines
    inside = [s.introduced for s in scopes if s.introduced]
    past = [
        s.fixed_version
        for s in scopes
        if s.fixed_version
        and not any(o.name == s.name and o.is_affected(s.fixed_version) for o in scopes)
    ]
    return inside, past


@pytest.mark.parametrize(
    ("advisory", "answers", "question"), RANGE_CASES, ids=[c[0] for c in RANGE_CASES]
)
def test_inside_the_range_is_flagged_and_just_past_each_fix_is_not(
    advisory: str, answers: dict[str, str], question: str
) -> None:
    flagged = {f"advisory.{advisory}": CATALOGUE[advisory].severity.value}
    assert about(score(answers), advisory) == flagged
    inside, past = _edges(advisory)
    for version in inside:
        assert about(score({**answers, question: version}), advisory) == flagged, version
    for version in past:
        assert about(score({**answers, question: version}), advisory) == {}, version
    fixes = [s.fixed_version for s in CATALOGUE[advisory].engines if s.fixed_version]
    assert len(past) == len(fixes)  # every fix is checked


@pytest.mark.parametrize(
    ("advisory", "answers", "question"), RANGE_CASES, ids=[c[0] for c in RANGE_CASES]
)
def test_an_unknown_version_is_cannot_tell_not_risk(
    advisory: str, answers: dict[str, str], question: str
) -> None:
    result = score({**answers, question: "unknown"})
    assert about(result, advisory) == {f"advisory-unconfirmed.{advisory}": "info"}
    (row,) = [f for f in result.findings if f.id == f"advisory-unconfirmed.{advisory}"]
    assert row.points == 0 and row.rests_on == [question]
    assert question in [q.id for q in result.questions_to_send]


@pytest.mark.parametrize(
    ("advisory", "exposing", "clearing"), SETTING_CASES, ids=[c[0] for c in SETTING_CASES]
)
def test_an_advisory_without_a_range_is_flagged_by_its_exposing_answer_only(
    advisory: str, exposing: dict[str, str], clearing: dict[str, str]
) -> None:
    hosted = {"engine.name": "proprietary"}
    assert set(about(score({**hosted, **exposing}), advisory)) == {f"advisory.{advisory}"}
    assert about(score({**hosted, **clearing}), advisory) == {}


REDIS = "chatgpt-redis-py-2023"
REDIS_ANSWERS = {"cache.client_library": "redis-py", "cache.client_library_version": "4.5.3"}


@pytest.mark.parametrize(
    ("version", "flagged"),
    [("4.2.0", True), ("4.3.6", True), ("4.4.3", True), ("4.4.4", False), ("4.5.0", True),
     ("4.5.3", True), ("4.5.4", False), ("4.5.4rc1", True), ("4.1.4", False), ("5.0.0", False)],
)  # fmt: skip
def test_redis_py_versions_against_both_ranges(version: str, flagged: bool) -> None:
    # PYSEC-2023-46: introduced 4.2.0, fixed 4.4.4; introduced 4.5.0, fixed 4.5.4. 4.3.6 and
    # 4.4.3/4.5.3 carry only the first (pipeline) fix; 4.3.x never got the second one
    result = score({**REDIS_ANSWERS, "cache.client_library_version": version})
    assert about(result, REDIS) == ({f"advisory.{REDIS}": "critical"} if flagged else {})


def test_the_redis_finding_names_the_range_and_the_fix() -> None:
    result = score(REDIS_ANSWERS)
    (row,) = [f for f in result.findings if REDIS in f.advisories]
    assert row.rests_on == ["cache.client_library", "cache.client_library_version"]
    assert row.points == 40 and "redis-py >=4.5.0,<4.5.4" in row.detail
    assert row.remediation == "Upgrade to redis-py 4.5.4 or later."
    assert result.advisories_not_checked == {}


@pytest.mark.parametrize(
    "answers",
    [
        {"cache.client_library": "jedis", "cache.client_library_version": "4.5.3"},
        {"cache.client_library": "other", "cache.client_library_version": "4.3.0"},
        {"cache.client_library": "none"},
        {},  # unanswered: two questions to send, no row
        {"engine.name": "sglang", "engine.version": "4.3.0", "deployment.mode": "aggregated"},
    ],
)
def test_another_library_or_no_answer_is_not_flagged_with_redis(answers: dict[str, str]) -> None:
    result = score(answers)
    assert about(result, REDIS) == {}
    if not answers:
        asked = [q.id for q in result.questions_to_send]
        assert {"cache.client_library", "cache.client_library_version"} <= set(asked)


def test_redis_py_with_an_unsettled_library_answer_is_cannot_tell() -> None:
    # the version in range, the library unknown: not ruled out, not risk
    result = score({"cache.client_library": "unknown", "cache.client_library_version": "4.5.3"})
    assert about(result, REDIS) == {f"advisory-unconfirmed.{REDIS}": "info"}
    (row,) = [f for f in result.findings if REDIS in f.advisories]
    assert row.points == 0 and row.rests_on == ["cache.client_library"]


def test_a_version_condition_must_name_a_range_of_the_advisory() -> None:
    from pydantic import ValidationError

    from assess.advisories.models import Advisory

    data = CATALOGUE[REDIS].model_dump(exclude={"engine"})
    data["exposed_if"][1]["version_of"] = "jedis"
    with pytest.raises(ValidationError, match="names no entry of engines"):
        Advisory.model_validate(data)
    data["exposed_if"][1] = {"question": LIBRARY, "values": ["4.5.3"], "version_of": "redis-py"}
    with pytest.raises(ValidationError, match="exactly one of values, version_of"):
        Advisory.model_validate(data)


def test_an_unknown_setting_is_cannot_tell_and_a_known_one_decides() -> None:
    base = {"engine.name": "sglang", "engine.version": "0.5.21", "deployment.mode": "aggregated"}
    unknown = about(score(base), "sglang-lmcache-unsalted")
    assert unknown == {"advisory-unconfirmed.sglang-lmcache-unsalted": "info"}
    namespaced = {**base, "cache.external_tiers_namespaced": "yes"}
    assert about(score(namespaced), "sglang-lmcache-unsalted") == {}
    # 0.5.17 is before the version it was measured on: the sources do not settle it
    early = {**base, "engine.version": "0.5.17", "cache.external_tiers_namespaced": "no"}
    assert about(score(early), "sglang-lmcache-unsalted") == {
        "advisory-unconfirmed.sglang-lmcache-unsalted": "info"
    }


def test_prefix_cache_off_rules_out_the_prefix_cache_advisories() -> None:
    answers = {"engine.name": "vllm", "engine.version": "0.8.0", "deployment.mode": "aggregated",
               "cache.prompt_cache_scope": "off"}  # fmt: skip
    assert about(score(answers), "vllm-prefix-cache-timing") == {}


def test_exposing_answers_name_real_questions_and_values() -> None:
    for adv in CATALOGUE.values():
        for cond in adv.exposed_if:
            question = BANK.question(cond.question)
            assert question is not None, (adv.id, cond.question)
            if cond.version_of:  # read as a version: the question must hold one
                assert question.type == "version", (adv.id, cond.question)
            if question.values:
                assert set(map(str, cond.values)) <= set(question.values), (adv.id, cond)


NEW_QUESTIONS = [
    "cache.salt_source",
    "cache.external_tiers_namespaced",
    "engine.schedule_policy",
    "isolation.kv_canary_mode",
    "isolation.transfer_checksum_mode",
    # version 4
    "cache.client_library",
    "cache.client_library_version",
]


def test_a_version_2_answers_file_stays_valid_and_the_new_questions_are_coverage() -> None:
    from assess.vendor.answers_file import load_answers_and_bank
    from tests.conftest import REPO

    bank, answers = load_answers_and_bank(REPO / "samples" / "vendors" / "well-run.yaml")
    assert bank.version == 4 and not set(NEW_QUESTIONS) & set(answers.answers)
    result = score_answers(bank, answers, CATALOGUE)
    asked = {q.id for q in result.questions_to_send}
    assert {"cache.salt_source", "cache.external_tiers_namespaced"} <= asked
    assert {"cache.client_library", "cache.client_library_version"} <= asked
    assert not [f for f in result.findings if REDIS in f.advisories]
    assert not [f for f in result.findings if set(NEW_QUESTIONS) & set(f.rests_on) and f.points]


@pytest.mark.parametrize(
    ("answers", "rule"),
    [
        ({"cache.salt_source": "client-sent"}, "cache-salt-client-controlled"),
        ({"cache.external_tiers_namespaced": "no"}, "external-kv-tier-not-namespaced"),
        (
            {"engine.schedule_policy": "lpm", "cache.prompt_cache_scope": "global"},
            "prefix-ordered-scheduling-shared-cache",
        ),
    ],
)
def test_each_new_rule_fires_on_its_answer_and_not_on_the_safe_one(
    answers: dict[str, str], rule: str
) -> None:
    ids = {g.id for f in score(answers).findings for g in (f, *f.merged)}
    assert rule in ids
    safe = {
        "cache.salt_source": "principal",
        "cache.external_tiers_namespaced": "yes",
        "engine.schedule_policy": "fcfs",
        "cache.prompt_cache_scope": "global",
    }
    ids = {g.id for f in score({k: safe[k] for k in answers}).findings for g in (f, *f.merged)}
    assert rule not in ids


def test_setting_facts_hold_for_their_versions() -> None:
    (exposes, *_) = CATALOGUE["sglang-cache-salt-ignored"].settings
    assert (exposes.setting, exposes.values, exposes.effect) == (
        "disable_radix_cache",
        [False],
        "exposes",
    )
    assert [exposes.holds_for(v) for v in ("0.5.10.post1", "0.5.11", None, "x")] == [
        True,
        False,
        None,
        None,
    ]
    checksum = CATALOGUE["sglang-pd-kv-transfer-race"].settings[0]
    assert checksum.when == {"disaggregation_mode": ["prefill", "decode"]}
    assert checksum.holds_for("0.5.20") is False and checksum.holds_for("0.5.21") is True


ENGINE_ADVISORIES = sorted(
    a.id for a in CATALOGUE.values() if any(s.name in ("sglang", "vllm") for s in a.engines)
)


@pytest.mark.parametrize("advisory", ENGINE_ADVISORIES)
def test_an_unknown_engine_is_cannot_tell_for_every_engine_advisory(advisory: str) -> None:
    # acc41 defect 3: engine.name unknown read as clear of every advisory
    result = score({"engine.name": "unknown", "engine.version": "unknown",
                    "deployment.mode": "disaggregated"})  # fmt: skip
    assert about(result, advisory) == {f"advisory-unconfirmed.{advisory}": "info"}
    (row,) = [f for f in result.findings if f.id == f"advisory-unconfirmed.{advisory}"]
    assert row.points == 0 and "engine.name" in row.rests_on
    assert result.evidence_verdict == "insufficient-evidence"


def test_the_well_run_sample_with_an_unknown_engine_is_not_sufficient() -> None:
    text = (REPO / "samples" / "vendors" / "well-run.yaml").read_text(encoding="utf-8")
    text = text.replace("engine.name: {value: sglang", "engine.name: {value: unknown")
    assert "engine.name: {value: unknown" in text
    doc = parse_yaml(text, "well-run.yaml")
    result = score_answers(BANK, check_answers(doc.data, doc.where, BANK), CATALOGUE)
    assert result.evidence_verdict == "insufficient-evidence"
    unsure = {a for f in result.findings if f.id.startswith("advisory-unconfirmed.")
              for a in f.advisories}  # fmt: skip
    # its transfer checksums on rule the PD race out whatever the engine: the others stay open
    assert unsure >= set(ENGINE_ADVISORIES) - {"sglang-pd-kv-transfer-race"}
    assert "sglang-pd-kv-transfer-race" not in unsure


def test_an_unknown_engine_still_cleared_by_an_answer_that_rules_the_advisory_out() -> None:
    answers = {"engine.name": "unknown", "cache.prompt_cache_scope": "off"}
    assert about(score(answers), "vllm-prefix-cache-timing") == {}
    assert about(score(answers), "chatgpt-redis-py-2023") == {}


@pytest.mark.parametrize(
    "advisory", ["prompt-cache-global-sharing-2024", "openrouter-shared-credentials-2025"]
)
def test_a_setting_advisory_is_flagged_by_its_exposing_answer(advisory: str) -> None:
    # acc41 defect 1: advisories without engines were never flagged
    hosted = {"engine.name": "proprietary"}
    found = about(score({**hosted, "cache.prompt_cache_scope": "global"}), advisory)
    assert found == {f"advisory.{advisory}": "info"}  # the rule on the same answer scores it
    assert about(score({**hosted, "cache.prompt_cache_scope": "organization"}), advisory) == {}
    assert about(score(hosted), advisory) == {}  # unanswered: a question to send, no row
    assert "cache.prompt_cache_scope" in [q.id for q in score(hosted).questions_to_send]


def test_every_advisory_is_checked_and_a_not_checked_one_is_said_never_skipped() -> None:
    # acc41 defect 2: chatgpt-redis-py-2023 had no question; now every advisory is checked
    assert not [a.id for a in CATALOGUE.values() if a.not_checked]
    assert all(a.exposed_if or a.engines for a in CATALOGUE.values())
    assert score({"engine.name": "sglang"}).advisories_not_checked == {}
    # the mechanism stays for an advisory no question covers: said, and never flagged
    why = "not checked: no question covers it (a test advisory)"
    marked = {**CATALOGUE, REDIS: CATALOGUE[REDIS].model_copy(update={"not_checked": why})}
    doc = parse_yaml("vendor: V\ndate: 2026-11-01\nanswers:\n" + "".join(
        f"  {k}: {v!r}\n" for k, v in REDIS_ANSWERS.items()), "a.yaml")  # fmt: skip
    result = score_answers(BANK, check_answers(doc.data, doc.where, BANK), marked)
    assert result.advisories_not_checked == {REDIS: why}
    assert about(result, REDIS) == {}
