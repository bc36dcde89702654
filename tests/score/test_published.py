"""Answers as providers publish them: not_applicable, per model, dated, contradicting documents;
compensating controls, the advisory's own platform, the questions to send."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from assess.advisories.catalogue import load_advisories
from assess.kernel.errors import InputError
from assess.kernel.structured import parse_yaml
from assess.vendor.answers import AnswerSet, CheckedAnswer
from assess.vendor.answers_check import check_answers
from assess.vendor.answers_file import load_answers, load_answers_and_bank
from assess.vendor.bank import questionnaire_from_located, shipped_questionnaire
from assess.vendor.scoring import score_answers
from assess.vendor.scoring.freshness import parse_period
from assess.vendor.scoring.models import ScoreResult
from tests.conftest import REPO

BANK = shipped_questionnaire()


def answers(body: str, vendor: str = "V") -> AnswerSet:
    doc = parse_yaml(f"vendor: {vendor}\ndate: 2026-11-01\nanswers:\n" + body, "a.yaml")
    return check_answers(doc.data, doc.where, BANK)


def scored(body: str, vendor: str = "V") -> ScoreResult:
    return score_answers(BANK, answers(body, vendor), load_advisories())


def ids(result: ScoreResult) -> dict[str, str]:
    """Every finding by id, those merged under another included."""
    return {m.id: m.severity.value for f in result.findings for m in (f, *f.merged)}


def test_not_applicable_needs_a_reason() -> None:
    with pytest.raises(
        InputError, match=r"a\.yaml:4: engine\.version: not_applicable needs a note"
    ):
        answers("  engine.version: not_applicable\n")
    result = scored(
        "  engine.name: {value: proprietary, evidence: documented}\n"
        "  engine.version: {value: not_applicable, note: 'proprietary, no public versions',\n"
        "                   evidence: documented, ref: 'https://example.com/engine'}\n"
    )
    assert result.coverage.not_applicable == ["engine.version"]
    assert "engine.version" not in {q.id for q in result.questions_to_send}


def test_not_applicable_only_where_the_questionnaire_allows_it() -> None:
    with pytest.raises(InputError) as info:
        answers(
            "  vendor.name: V\n"
            "  engine.name: {value: not_applicable, note: n/a}\n"
            "  engine.version: {value: not_applicable, note: n/a}\n"
            "  tenancy.model: {value: proprietary, per: {m1: not_applicable}, note: n/a}\n"
        )
    lines = info.value.message.splitlines()
    assert lines[0].startswith("a.yaml:5: engine.name: not_applicable is not accepted")
    assert lines[1].startswith("a.yaml:7: tenancy.model: ")  # the bad enum
    assert any(line.startswith("a.yaml:7: tenancy.model: not_applicable is not") for line in lines)
    assert not any("engine.version" in line for line in lines)  # allowed: a proprietary engine


def test_undocumented_not_applicable_stays_in_the_coverage_weight() -> None:
    body = "  engine.name: {value: proprietary, evidence: documented}\n"
    plain = scored(body)
    na = scored(body + "  engine.version: {value: not_applicable, note: n/a}\n")
    assert na.coverage.applicable_weight == plain.coverage.applicable_weight
    assert na.coverage.share == plain.coverage.share
    assert na.coverage.not_applicable_undocumented == ["engine.version"]
    sent = {q.id: q.reason for q in na.questions_to_send}
    assert sent["engine.version"] == "not-applicable-undocumented"


@pytest.mark.parametrize("evidence", ["documented", "verified"])
def test_not_applicable_with_no_ref_stays_in_the_coverage_weight(evidence: str) -> None:
    """ "documented" with no document named is the vendor's word: it removes nothing from the
    weight (it did: a file could declare the allowed questions away by saying "documented")."""
    body = "  engine.name: {value: proprietary, evidence: documented}\n"
    plain = scored(body)
    na = scored(
        body + f"  engine.version: {{value: not_applicable, note: n/a, evidence: {evidence}}}\n"
    )
    assert na.coverage.not_applicable == []
    assert na.coverage.not_applicable_undocumented == ["engine.version"]
    assert na.coverage.applicable_weight == plain.coverage.applicable_weight
    assert {q.id: q.reason for q in na.questions_to_send}["engine.version"] == (
        "not-applicable-undocumented"
    )


def test_not_applicable_never_outweighs_what_was_answered() -> None:
    """A share of 100% is not sufficient when what was declared away outweighs the answers."""
    text = (
        "id: q\nversion: 1\ntitle: t\nscoring:\n  points: {critical: 4, high: 3, medium: 2, "
        "low: 1, info: 0}\n  tiers: {medium: 1, high: 2, critical: 3}\nquestions:\n"
        "  - id: a.small\n    text: x\n    type: bool\n    weight: low\n"
        "  - id: a.big\n    text: y\n    type: bool\n    weight: critical\n"
        "    not_applicable_allowed: true\n"
    )
    bank = questionnaire_from_located(parse_yaml(text, "q.yaml"))
    doc = parse_yaml(
        "vendor: V\ndate: 2026-11-01\nanswers:\n  a.small: {value: yes, evidence: documented}\n"
        "  a.big: {value: not_applicable, note: n/a, evidence: documented, ref: r}\n",
        "a.yaml",
    )
    result = score_answers(bank, check_answers(doc.data, doc.where, bank), [])
    assert result.coverage.share == 1.0
    assert result.evidence_verdict == "insufficient-evidence"


def test_transfer_controls_do_not_apply_to_aggregated_serving() -> None:
    body = "  isolation.transfer_checksums: {value: no, evidence: documented}\n"
    assert "control-absent.isolation.transfer_checksums" in ids(scored(body))
    result = scored(body + "  deployment.mode: {value: aggregated, evidence: documented}\n")
    assert "control-absent.isolation.transfer_checksums" not in ids(result)
    assert "isolation.transfer_checksums" in result.coverage.ruled_out
    assert result.answers["isolation.transfer_checksums"].value == "not_applicable"
    assert "deployment.mode = aggregated" in result.answers["isolation.transfer_checksums"].note


@pytest.mark.parametrize(("evidence", "offset"), [("documented", True), ("attested", False)])
def test_deferred_kv_release_offsets_aborts_mid_transfer_when_documented(
    evidence: str, offset: bool
) -> None:
    result = scored(
        "  deployment.mode: {value: disaggregated, evidence: documented}\n"
        "  isolation.proxy_aborts_mid_transfer: {value: yes, evidence: documented}\n"
        f"  isolation.deferred_kv_release: {{value: yes, evidence: {evidence}}}\n"
    )
    found = ids(result)
    assert ("proxy-aborts-disaggregated" not in found) is offset
    assert ("control-absent.isolation.proxy_aborts_mid_transfer" not in found) is offset
    offsets = {m.offsets: m.by for m in result.mitigations}
    if offset:
        assert offsets == {
            "proxy-aborts-disaggregated": ["isolation.deferred_kv_release"],
            "control-absent.isolation.proxy_aborts_mid_transfer": ["isolation.deferred_kv_release"],
        }
    else:
        assert offsets == {}


def test_answers_per_model_raise_what_holds_for_some_and_say_which() -> None:
    result = scored(
        "  data.zero_retention:\n"
        "    value: opt-in\n"
        "    per: {gpt-4o-audio: approval, eu-region: default}\n"
        "    evidence: documented\n"
    )
    (finding,) = [f for f in result.findings if f.id == "zero-retention-by-approval"]
    assert finding.title.endswith("(for gpt-4o-audio)")
    (in_place,) = [c for c in result.controls_in_place if c.question == "data.zero_retention"]
    assert in_place.value == "opt-in" and in_place.only_for == []
    assert in_place.not_for == ["gpt-4o-audio"]  # approval there: not in place for it


def test_a_control_in_place_for_one_model_is_not_shown_as_the_vendors() -> None:
    from io import StringIO

    from rich.console import Console

    from assess.vendor.render import print_score

    result = scored(
        "  isolation.kv_page_zeroing: {value: yes, evidence: documented, per: {glm-5.3: no}}\n"
        "  isolation.kv_canaries: {value: no, evidence: documented, per: {llama-4: yes}}\n"
    )
    places = {c.question: (c.value, c.only_for, c.not_for) for c in result.controls_in_place}
    assert places == {
        "isolation.kv_page_zeroing": (True, [], ["glm-5.3"]),
        "isolation.kv_canaries": (True, ["llama-4"], []),
    }
    out = StringIO()
    print_score(result, Console(file=out, width=400))
    text = out.getvalue()
    assert "isolation.kv_page_zeroing = yes (not for glm-5.3) [documented]" in text
    assert "isolation.kv_canaries = yes (for llama-4) [documented]" in text


def test_the_providers_own_documents_contradicting_each_other_is_a_finding() -> None:
    result = scored(
        "  cache.prompt_cache_scope:\n"
        "    value: organization\n"
        "    evidence: documented\n"
        "    ref: https://example.com/docs/caching\n"
        "    conflicts:\n"
        "      - {ref: https://example.com/faq, note: 'caches may be shared to improve latency'}\n"
    )
    finding = next(f for f in result.findings if f.id == "docs-conflict.cache.prompt_cache_scope")
    assert finding.severity.value == "medium" and finding.points == 5
    assert "https://example.com/faq says: caches may be shared" in finding.detail


def test_an_old_answer_is_stale_and_asked_again() -> None:
    body = (
        "  compliance.attestations:\n"
        "    value: [SOC 2 Type II]\n"
        "    evidence: documented\n"
        "    date: {date}\n"
    )
    fresh = scored(body.format(date="2026-06-30"))
    old = scored(body.format(date="2024-06-30"))
    assert old.coverage.stale == ["compliance.attestations"] and fresh.coverage.stale == []
    assert old.coverage.answered_weight < fresh.coverage.answered_weight
    asked = {q.id: q.reason for q in old.questions_to_send}
    assert asked["compliance.attestations"] == "stale"


@pytest.mark.parametrize(
    ("engine", "severity"),
    [
        ("", "medium"),  # fixed per the advisory, not verified here
        (
            "  engine.name: {value: sglang, evidence: verified}\n"
            "  engine.version: {value: '0.5.22', evidence: verified}\n",
            "low",
        ),
    ],
)
def test_the_advisorys_own_platform_serving_its_model_is_flagged(
    engine: str, severity: str
) -> None:
    body = (
        "  vendor.name: {value: 'Cloudflare, Inc.', evidence: documented}\n"
        "  vendor.service: {value: Workers AI, evidence: documented}\n"
        "  vendor.models: {value: ['@cf/zai-org/glm-5.3'], evidence: documented}\n"
    )
    result = scored(body + engine)
    found = ids(result)
    fixed = severity == "low"
    key = (
        "advisory-platform-fixed.glm-5.3-kv-leak" if fixed else "advisory-platform.glm-5.3-kv-leak"
    )
    assert found[key] == severity
    assert result.tier.value == ("low" if fixed else "medium")
    assert [d.rule for d in result.decided_by] == ([] if fixed else ["advisory-platform"])
    assert result.floors_met == []
    assert "advisory-model-served.glm-5.3-kv-leak" not in found
    other = ids(scored(body.replace("Cloudflare, Inc.", "Other").replace("Workers AI", "Chat")))
    assert other["advisory-model-served.glm-5.3-kv-leak"] == "info"


def test_a_floor_the_tier_already_meets_is_not_named_as_deciding_it() -> None:
    """The advisory platform keeps the tier at least medium; when a critical finding makes it
    higher, decided_by must not say the rule set it (it said tier medium beside tier high)."""
    body = (
        "  vendor.name: {value: 'Cloudflare, Inc.', evidence: documented}\n"
        "  vendor.service: {value: Workers AI, evidence: documented}\n"
        "  vendor.models: {value: ['@cf/zai-org/glm-5.3'], evidence: documented}\n"
        "  deployment.mode: disaggregated\n"
        "  isolation.rejects_over_length_at_admission: no\n"
        "  deployment.advertised_context_tokens: 200000\n"
        "  deployment.kv_pool_tokens: {prefill: 100000}\n"
    )
    result = scored(body)
    assert result.tier.rank >= 2  # above medium: critical findings carry it
    assert result.decided_by == []
    assert [(d.rule, d.tier.value) for d in result.floors_met] == [("advisory-platform", "medium")]
    assert "makes the tier at least medium whatever the points" in result.formula
    assert "sets the tier to" not in result.formula


def test_an_older_answers_file_stays_valid_and_coverage_says_what_is_new() -> None:
    bank, old = load_answers_and_bank(REPO / "samples" / "vendors" / "well-run.yaml")
    result = score_answers(bank, old, load_advisories())
    asked = {q.id: q.reason for q in result.questions_to_send}
    assert asked["cache.prompt_cache_scope"] == "unknown"
    assert asked["data.zero_retention"] == "unknown"
    assert result.evidence_verdict == "sufficient" and result.coverage.share < 1


def test_a_finding_never_rests_on_a_question_that_does_not_apply() -> None:
    """Found by the property test: the pool check named deployment.mode when it did not apply."""
    given = answers(
        "  deployment.advertised_context_tokens: 1048576\n"
        "  deployment.kv_pool_tokens: {aggregated: 681280}\n"
    )
    # an answers file cannot say this any more (not_applicable_allowed); scoring still must cope
    na = CheckedAnswer(value="not_applicable", note="one GPU pool, no roles")
    given = given.model_copy(update={"answers": {**given.answers, "deployment.mode": na}})
    result = score_answers(BANK, given, load_advisories())
    (pool,) = [f for f in result.findings if f.id.startswith("pool-smaller")]
    assert pool.rests_on == ["deployment.advertised_context_tokens", "deployment.kv_pool_tokens"]


def test_staleness_and_age_never_read_the_clock() -> None:
    """Staleness is judged against the answers' own date (evidence: that date or --period), the
    plan's overdue against the review date it is given (generated_at, SOURCE_DATE_EPOCH): no
    judgement of age may read the wall clock, or the same files would score differently
    tomorrow."""
    import re

    clock = re.compile(r"\b(today|utcnow|now)\(|time\.time\(|localtime\(|gmtime\(")
    files = sorted((REPO / "assess" / "vendor").rglob("*.py")) + [
        REPO / "assess" / "report" / "plan.py"
    ]
    readers = [str(p.relative_to(REPO)) for p in files if clock.search(p.read_text())]
    assert len(files) > 20 and readers == []


@pytest.mark.parametrize(
    ("period", "stale"),
    [
        (None, []),  # 2025-03-01 is 306 days before the answers (2026-01-01): current
        ("2026-01-01..2026-01-31", []),
        # assessed for August 2026: the same answer is 518 days before the period starts
        ("2026-08-01..2026-08-31", ["data.prompts_used_for_training"]),
    ],
)
def test_a_control_in_place_is_stale_against_the_answers_date_or_the_period(
    tmp_path: Path, period: str | None, stale: list[str]
) -> None:
    """Staleness of a fact in place is judged against the answers' date and --period (the
    coverage's answer_max_age_days), from the files' dates only."""
    answers = tmp_path / "a.yaml"
    answers.write_text(
        "vendor: V\ndate: 2026-01-01\nanswers:\n"
        "  data.prompts_used_for_training: {value: no, evidence: documented, date: 2025-03-01}\n"
        "  isolation.kv_page_zeroing: {value: yes, evidence: documented}\n"
        "  compliance.attestations: {value: [SOC 2 Type II], evidence: documented,"
        " date: 2019-06-14}\n"
    )
    result = score_answers(
        BANK,
        load_answers(answers, BANK),
        load_advisories(),
        period=parse_period(period) if period else None,
    )
    marked = [c.question for c in result.controls_in_place if c.stale]
    assert sorted(marked) == sorted(["compliance.attestations", *stale])
    assert {c.question: c.date for c in result.controls_in_place}["compliance.attestations"] == (
        dt.date(2019, 6, 14)
    )
