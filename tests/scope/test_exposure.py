"""Platform binding, the source set S and the exposure range (docs/exposure.md).

The OpenRouter fixtures are lines of the shipped sample (samples/logs/openrouter.jsonl, whose
format the openrouter preset cites) with only ``provider_name`` or the token fields changed.
"""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assess.advisories.catalogue import get_advisory
from assess.kernel.errors import UsageError
from assess.scope.api import scope_run
from assess.scope.disclosure import disclosure_csv_text
from assess.scope.estimate import exposure_range
from assess.scope.exposure import (
    EXCLUDED_REPLAY,
    REASON_FALLBACK,
    REASON_PLATFORM,
)
from assess.scope.filter import make_filter

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "logs"
C = 1_048_576  # the advisory's advertised context
T = 681_280


def _openrouter(tmp_path: Path, change: dict[str, Any], drop: tuple[str, ...] = ()) -> Path:
    lines = (SAMPLES / "openrouter.jsonl").read_text().splitlines()
    out = []
    for line in lines:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:  # the sample's deliberately broken lines stay as they are
            out.append(line)
            continue
        record.update(change)
        for key in drop:
            record.pop(key, None)
        out.append(json.dumps(record))
    path = tmp_path / "openrouter.jsonl"
    path.write_text("\n".join(out) + "\n")
    return path


def test_the_shipped_openrouter_sample_served_by_zai_is_not_affected() -> None:
    result = scope_run([SAMPLES / "openrouter.jsonl"]).result
    assert result.counts.in_window > 0
    assert result.affected.requests == 0
    assert result.possibly_affected.requests == 0
    assert result.breakdown.served_elsewhere == result.counts.in_window
    assert result.breakdown.served_elsewhere_by_provider == {"z.ai": result.counts.in_window}
    assert result.disclosed.requests == 0
    assert result.exit_code == 0


def test_the_same_requests_routed_through_cloudflare_are_affected(tmp_path: Path) -> None:
    zai = scope_run([SAMPLES / "openrouter.jsonl"]).result
    result = scope_run([_openrouter(tmp_path, {"provider_name": "Cloudflare"})]).result
    assert result.breakdown.served_elsewhere == 0
    assert result.affected.requests > 0
    # the token partition is the one the Z.AI rows would have had
    assert result.counts.in_window == zai.counts.in_window
    assert result.exit_code == 1


def test_requests_with_no_provider_field_are_possibly_affected(tmp_path: Path) -> None:
    with_cf = scope_run([_openrouter(tmp_path, {"provider_name": "Cloudflare"})]).result
    result = scope_run([_openrouter(tmp_path, {}, drop=("provider_name",))]).result
    assert result.affected.requests == 0
    over = with_cf.counts.over_threshold
    assert over == result.counts.over_threshold == 7
    assert result.possibly_affected.by_reason[REASON_PLATFORM] == over
    assert result.exit_code == 1


def test_the_cloudflare_gateway_sample_is_bound_to_workers_ai() -> None:
    result = scope_run([SAMPLES / "cloudflare-ai-gateway.ndjson"]).result
    assert result.breakdown.served_elsewhere == 0
    assert result.possibly_affected.by_reason == {"unknown prompt tokens": 3}
    assert result.affected.requests == result.counts.over_threshold == 5


def test_a_fallback_count_over_the_trigger_is_possibly_affected(tmp_path: Path) -> None:
    path = _openrouter(
        tmp_path,
        {"provider_name": "Cloudflare", "native_tokens_prompt": None, "tokens_prompt": 900_000},
    )
    result = scope_run([path]).result
    assert result.affected.requests == 0
    assert result.possibly_affected.by_reason == {REASON_FALLBACK: result.counts.over_threshold}


def _canonical(tmp_path: Path) -> Path:
    base = {"timestamp": "2026-09-01T00:00:00Z", "model": "glm-5.3", "provider": "workers-ai"}
    rows = [
        {"request_id": "r1", "account_id": "a", "prompt_tokens": 700_000, "output_tokens": 10},
        {"request_id": "r2", "account_id": "a", "prompt_tokens": 1000, "output_tokens": 200},
        {"request_id": "r3", "account_id": "b", "prompt_tokens": 3000},
        {"request_id": "r4", "account_id": "b", "prompt_tokens": None, "output_tokens": 5},
        {"request_id": "r5", "account_id": "a", "prompt_tokens": 2000, "cache_hit": True},
        {"request_id": "r6", "account_id": "a", "prompt_tokens": 500, "status": 429},
        {"request_id": "r7", "account_id": "c", "prompt_tokens": 100, "provider": "openai"},
    ]
    path = tmp_path / "log.ndjson"
    path.write_text("".join(json.dumps({**base, **row}) + "\n" for row in rows))
    return path


def test_bounds_rederived_by_hand(tmp_path: Path) -> None:
    run = scope_run([_canonical(tmp_path)], platform_requests=2_000_000, platform_mean_tokens=1000)
    result = run.result
    d = result.disclosed
    assert [r.request_id for r in d.request_list] == ["r2", "r3", "r4"]
    assert d.excluded[EXCLUDED_REPLAY] == 1
    assert result.breakdown.by_verdict == {
        "affected": 1,
        "possibly_affected": 1,
        "not_affected": 2,
        "cache_replay": 1,
        "rejected_before_inference": 1,
        "served_elsewhere": 1,
    }
    assert (d.prompt_tokens_total, d.output_tokens_total) == (4000, 205)
    e = d.estimate
    assert e is not None and e.applies
    # lower = (155 - our 2 over-trigger requests... here 1 affected + 0 possibly over) x 3 / N
    assert e.leaked_to_others_low == 154
    assert Fraction(e.lower.numerator, e.lower.denominator) == Fraction(154 * 3, 2_000_000)
    # upper: r2 is C + 1,200; r3 (output unknown) and r4 (prompt unknown) are C + C each
    assert e.footprint_tokens == 5 * C + 1200
    assert e.footprints_unknown == 2
    assert Fraction(e.upper.numerator, e.upper.denominator) == Fraction(
        155 * (5 * C + 1200), 2_000_000 * 1000
    )
    accounts = {a.account_id: a for a in d.by_account}
    assert (accounts["a"].requests, accounts["a"].prompt_tokens) == (1, 1000)
    assert (accounts["b"].requests, accounts["b"].prompt_tokens_known) == (2, 1)
    rows = list(
        csv.DictReader(io.StringIO(disclosure_csv_text(run.accumulator.exposure.source_table())))
    )
    assert [r["request_id"] for r in rows] == ["r2", "r3", "r4"]
    assert rows[0]["output_tokens"] == "200" and rows[1]["output_tokens"] == ""


def test_the_advisory_figures_do_not_apply_to_another_filter(tmp_path: Path) -> None:
    result = scope_run(
        [_canonical(tmp_path)], models=["glm-5.3"], platform_requests=2_000_000
    ).result
    e = result.disclosed.estimate
    assert e is not None and not e.applies
    assert e.lower is None and e.upper is None
    assert result.disclosed.platform_share is None


def test_a_volume_over_the_context_per_request_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="more than the context"):
        scope_run([_canonical(tmp_path)], platform_requests=10, platform_tokens=11 * C)


_size = st.one_of(st.none(), st.integers(min_value=0, max_value=T))
_request = st.tuples(_size, _size)


def _sources(requests: list[tuple[int | None, int | None]]) -> pa.Table:
    return pa.table(
        {
            "prompt_tokens": pa.array([p for p, _ in requests], pa.int64()),
            "output_tokens": pa.array([o for _, o in requests], pa.int64()),
        }
    )


@settings(max_examples=80, deadline=None)
@given(
    requests=st.lists(_request, max_size=30),
    extra=_request,
    ours=st.integers(min_value=0, max_value=200),
    spare=st.integers(min_value=1, max_value=10**7),
    mean=st.integers(min_value=1, max_value=C),
)
def test_adding_a_source_never_lowers_a_bound_and_lower_stays_under_upper(
    requests: list[tuple[int | None, int | None]],
    extra: tuple[int | None, int | None],
    ours: int,
    spare: int,
    mean: int,
) -> None:
    scope = make_filter(get_advisory("glm-5.3-kv-leak"))
    n = len(requests) + spare
    before = exposure_range(scope, _sources(requests), ours, n, None, mean)
    after = exposure_range(scope, _sources([*requests, extra]), ours, n, None, mean)
    assert before is not None and after is not None
    for estimate in (before, after):
        assert estimate.lower is not None and estimate.upper is not None
        assert Fraction(estimate.lower.numerator, estimate.lower.denominator) <= Fraction(
            estimate.upper.numerator, estimate.upper.denominator
        )
    assert after.lower.value >= before.lower.value  # type: ignore[union-attr]
    assert after.upper.value >= before.upper.value  # type: ignore[union-attr]
