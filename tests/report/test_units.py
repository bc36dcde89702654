"""Pieces of the review: charts, dates, formats, merging, paths, sentences."""

from __future__ import annotations

from pathlib import Path

import pytest

from assess.kernel.errors import UsageError
from assess.report.charts import _ticks, per_day_chart, pool_chart, tier_band
from assess.report.files import generation_time, parse_formats
from assess.report.findings import merge_findings
from assess.report.inputs import display_path
from assess.report.models import DayCount, DayRow, FindingView, PoolBar
from assess.report.sections import fill_days, redact


def test_generation_time_honours_source_date_epoch() -> None:
    assert generation_time({"SOURCE_DATE_EPOCH": "0"}) == "1970-01-01T00:00:00Z"
    assert generation_time({"SOURCE_DATE_EPOCH": "1790000000"}) == "2026-09-21T14:13:20Z"
    with pytest.raises(UsageError, match="SOURCE_DATE_EPOCH"):
        generation_time({"SOURCE_DATE_EPOCH": "yesterday"})


def test_parse_formats() -> None:
    assert parse_formats("json, PDF") == ("pdf", "json")
    with pytest.raises(UsageError, match="--format") as err:
        parse_formats("")
    assert "html,pdf,json" in err.value.advice


def test_fill_days_covers_the_whole_window() -> None:
    rows = fill_days(
        [DayCount(date="2026-09-02", requests=4)],
        {"since": "2026-08-27T00:00:00Z", "until": "2026-09-09T23:59:59Z"},
    )
    assert len(rows) == 14
    assert rows[0] == DayRow(date="2026-08-27", requests=0)
    assert sum(r.requests for r in rows) == 4


def test_ticks_are_round_and_cover_the_peak() -> None:
    assert _ticks(0) == [0, 1]
    assert _ticks(3) == [0, 1, 2, 3]
    assert _ticks(7) == [0, 2, 4, 6, 8]
    assert _ticks(155) == [0, 50, 100, 150, 200]


def test_charts_are_svg_with_escaped_text() -> None:
    band = tier_band("critical", 86)
    assert band.startswith("<svg") and "CRITICAL" in band
    pool = pool_chart(1_048_576, [PoolBar(role="<b>", pool_tokens=681_280, unbacked_share=0.35)])
    assert "35% of the window unbacked" in pool and "&lt;b&gt; pool" in pool
    bars = per_day_chart([DayRow(date="2026-09-02", requests=4)])
    assert ">4<" in bars and "09-02" in bars


def finding(**kw: object) -> FindingView:
    base: dict[str, object] = {"id": "x", "severity": "high", "title": "T", "source": "score"}
    return FindingView.model_validate({**base, **kw})


def test_per_node_findings_fold_into_one_and_lose_the_node_prefix() -> None:
    merged = merge_findings(
        [
            finding(
                id="pool-smaller-than-context.prefill",
                title="Pool small",
                severity="critical",
                evidence_level="attested",
            )
        ],
        [
            finding(
                id="pool-smaller-than-context",
                title="p0: pool < ctx",
                node="p0",
                source="deploy-check",
                evidence_level="verified",
                severity="critical",
            ),
            finding(
                id="isolation-setting-off",
                title="p0: canary off",
                node="p0",
                source="deploy-check",
                severity="medium",
            ),
            finding(
                id="isolation-setting-off",
                title="d0: canary off",
                node="d0",
                source="deploy-check",
                severity="medium",
            ),
        ],
    )
    assert [(f.id, f.title, f.nodes) for f in merged] == [
        ("pool-smaller-than-context.prefill", "Pool small", ["p0"]),
        ("isolation-setting-off", "canary off", ["d0", "p0"]),
    ]
    assert merged[0].evidence_level == "verified"
    assert merged[0].source == "score, deploy-check"


def test_scored_findings_keep_their_refs_and_are_never_folded_together() -> None:
    merged = merge_findings(
        [
            finding(id="a", title="Same words", severity="critical", ref="F-01"),
            finding(id="b", title="Same words", severity="low", ref="F-02"),
        ],
        [
            finding(id="c", title="Same words", source="deploy-check", severity="high"),
            finding(id="d", title="Only the logs say", source="deploy-check", severity="high"),
        ],
    )
    assert [(f.ref, f.id, f.severity.value) for f in merged] == [
        ("F-01", "a", "critical"),
        ("F-03", "d", "high"),
        ("F-02", "b", "low"),
    ]
    assert merged[0].source == "score, deploy-check"  # the deploy finding folded into F-01


def test_redact_replaces_prompt_text_only() -> None:
    doc = {"prompt": "secret", "n": 3, "items": [{"response": "r", "id": "a"}]}
    assert redact(doc, include_prompts=True) == doc
    hidden = redact(doc, include_prompts=False)
    assert hidden["n"] == 3 and hidden["items"][0]["id"] == "a"
    assert "secret" not in str(hidden) and "'r'" not in str(hidden)


def test_display_path_never_shows_a_folder_outside_the_working_folder(tmp_path: Path) -> None:
    inside = tmp_path / "a" / "b.json"
    assert display_path(inside, tmp_path) == "a/b.json"
    assert display_path(inside, tmp_path / "elsewhere") == "b.json"


def test_display_path_names_shipped_samples_by_their_place_in_samples() -> None:
    from assess.kernel.resources import data_dir

    sample = data_dir("samples") / "vendors" / "incident-like.yaml"
    assert display_path(sample, Path("/")) == "samples/vendors/incident-like.yaml"
