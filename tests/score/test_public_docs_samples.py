"""The shipped public-documentation samples (samples/vendors/public-docs/): cited, dated, told
apart by risk, with their coverage shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from assess.portfolio.api import build_portfolio
from assess.vendor.answers_file import load_answers_and_bank
from assess.vendor.scoring.models import ScoreResult
from tests.conftest import REPO

FOLDER = REPO / "samples" / "vendors" / "public-docs"
SAMPLES = sorted(FOLDER.glob("*.yaml"))


def test_there_are_several() -> None:
    assert len(SAMPLES) >= 4


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_every_answer_is_cited_and_the_file_says_public_documents_only(path: Path) -> None:
    head = path.read_text(encoding="utf-8").split("schema_version:")[0]
    assert "PUBLIC DOCUMENTATION ONLY" in head and "2026-12-07" in head
    _, answers = load_answers_and_bank(path)
    for qid, answer in answers.answers.items():
        if answer.not_applicable:
            assert answer.note, qid
            continue
        assert answer.evidence.value == "documented", qid
        assert answer.ref.startswith(("https://", "advisories/")), qid


def test_the_portfolio_tells_them_apart_by_risk_and_shows_coverage() -> None:
    p = build_portfolio(SAMPLES, generated_at="2026-12-07T00:00:00Z")
    scores = [v.score for v in p.vendors]
    assert len(set(scores)) == len(scores), scores  # distinct risk scores
    assert all(v.coverage is not None and 0 < v.coverage < 0.6 for v in p.vendors)
    # public documents alone never answer enough: every one is insufficient evidence
    assert {v.evidence_verdict for v in p.vendors} == {"insufficient-evidence"}
    assert all(v.questions_to_send > 0 and v.controls_in_place > 0 for v in p.vendors)
    names = [v.vendor for v in p.vendors]
    # the advisory's own platform ranks above every vendor with only low findings
    assert names.index("Cloudflare") < names.index("OpenAI")


def test_the_portfolio_page_shows_coverage_beside_the_tier() -> None:
    from assess.portfolio.html import render_html

    page = render_html(build_portfolio(SAMPLES, generated_at="2026-12-07T00:00:00Z"))
    assert "evidence coverage" in page
    assert page.count("insufficient evidence;") == len(SAMPLES)


def test_the_seven_providers_of_issue_43_have_a_sample() -> None:
    names = {load_answers_and_bank(path)[1].vendor for path in SAMPLES}
    assert names == {
        "Amazon Web Services",
        "Microsoft",
        "Cloudflare",
        "Fireworks AI",
        "OpenAI",
        "Together AI",
        "Z.ai",
    }


def test_dated_answers_and_contradicting_documents_show_in_the_score() -> None:
    from assess.advisories.catalogue import load_advisories
    from assess.vendor.scoring import score_answers

    def scored(stem: str) -> ScoreResult:
        bank, answers = load_answers_and_bank(FOLDER / f"{stem}.yaml")
        return score_answers(bank, answers, load_advisories())

    cloudflare = scored("cloudflare-workers-ai")
    # the attestations' only dated source is from 2019: stale against the answers' date, asked again
    assert cloudflare.coverage.stale == ["compliance.attestations"]
    asked = {q.id: q.reason for q in cloudflare.questions_to_send}
    assert asked["compliance.attestations"] == "stale"
    together = scored("together-ai")
    found = {f.id for f in together.findings}
    assert "docs-conflict.data.prompt_retention_days" in found
    dated = [a for p in SAMPLES for a in load_answers_and_bank(p)[1].answers.values() if a.date]
    assert len(dated) >= 5
