"""The exposure estimate: thresholds, windows, estimates, foreign data, platform share."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pytest

from assess.advisories.catalogue import get_advisory
from assess.kernel.errors import UsageError
from assess.scope.accumulator import ScopeAccumulator, make_filter
from assess.scope.models import BATCH_SCHEMA, TEXT, LogBatch
from assess.scope.text import foreign_kinds, token_range
from tests.scope.helpers import conserved, scope, write


def _log(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    return write(tmp_path / "log.ndjson", rows, "ndjson")


def _row(**kw: object) -> dict[str, object]:
    base: dict[str, object] = {
        "timestamp": "2026-09-01T00:00:00Z",
        "model": "glm-5.3",
        "prompt_tokens": 700000,
        "request_id": "r",
        "account_id": "a",
        "provider": "workers-ai",  # served on the advisory's platform (docs/exposure.md)
    }
    base.update(kw)
    return base


def test_threshold_is_strictly_greater(tmp_path: Path) -> None:
    result = scope([_log(tmp_path, [_row(prompt_tokens=681280), _row(prompt_tokens=681281)])])
    assert result.counts.over_threshold == 1
    assert result.counts.at_or_under_threshold == 1
    # only the one at the trigger could have been read; the one over it was a placeholder
    assert result.disclosed.prompt_tokens_total == 681280


def test_window_ends_are_instants_not_strings(tmp_path: Path) -> None:
    rows = [
        _row(timestamp="2026-09-09T23:59:59Z", request_id="in-end"),
        _row(
            timestamp="2026-09-09T23:59:59.5Z", request_id="in-fraction"
        ),  # the whole last day (acc36 B2)
        _row(timestamp="2026-09-10T01:59:59+02:00", request_id="in-offset"),
        _row(timestamp="2026-08-27T00:00:00Z", request_id="in-start"),
        _row(timestamp="2026-08-26T23:59:59.999Z", request_id="out-before"),
        _row(timestamp=1788998399, request_id="in-epoch"),
        _row(timestamp=1788998400000, request_id="out-epoch-ms"),
    ]
    result = scope([_log(tmp_path, rows)])
    assert sorted(result.affected.request_ids) == [
        "in-end",
        "in-epoch",
        "in-fraction",
        "in-offset",
        "in-start",
    ]
    assert result.counts.model_matched == 7


def test_options_replace_the_advisory(tmp_path: Path) -> None:
    rows = [_row(model="glm-5.2", prompt_tokens=1000), _row(prompt_tokens=1000)]
    result = scope(
        [_log(tmp_path, rows)],
        models=["@cf/zai-org/glm-5.2"],
        since=datetime(2026, 9, 1, tzinfo=UTC),
        until=datetime(2026, 9, 1, tzinfo=UTC),
        min_prompt_tokens=999,
    )
    assert result.filter.model_names == ["glm-5.2"]
    assert result.counts.over_threshold == 1
    assert result.counts.model_matched == 1


def test_filter_needs_options_without_advisory() -> None:
    with pytest.raises(UsageError, match="--model, --since and --until"):
        make_filter(None, ["glm-5.3"])
    with pytest.raises(UsageError, match="the advisory's window end .* is before --since"):
        make_filter(get_advisory("glm-5.3-kv-leak"), since=datetime(2026, 9, 30, tzinfo=UTC))


def test_possibly_affected_with_estimates(tmp_path: Path) -> None:
    rows = [
        _row(prompt_tokens=None, request_id="short", prompt="x" * 1000),
        _row(prompt_tokens=0, request_id="long", prompt="x" * 1_000_000),
        _row(prompt_tokens=None, request_id="huge", prompt=["y" * 5_000_000]),
        _row(prompt_tokens=None, request_id="no-text"),
    ]
    result = scope([_log(tmp_path, rows)])
    conserved(result)
    p = result.possibly_affected
    assert (p.requests, p.with_prompt_text) == (4, 3)
    assert (p.estimate_under, p.estimate_crosses, p.estimate_over) == (1, 1, 1)
    verdicts = {e.request_id: e.verdict for e in p.estimates}
    assert verdicts == {"short": "under", "long": "crosses", "huge": "over"}
    assert result.exit_code == 1


def test_token_range_bounds() -> None:
    assert token_range(600, 100) == (100, 600, "crosses")
    assert token_range(606, 100) == (101, 606, "over")
    assert token_range(100, 100) == (16, 100, "under")


def test_foreign_data_kinds_absent_from_own_prompt() -> None:
    prompt = "contact me at me@ours.example or https://ours.example/x"
    assert foreign_kinds("reply to me@ours.example at https://ours.example/x", prompt) == set()
    found = foreign_kinds(
        "from bob@theirs.example key sk-abcdefghijklmnop1234 at https://theirs.example "
        "id 123e4567-e89b-12d3-a456-426614174000 host 10.1.2.3",
        prompt,
    )
    assert found == {"email", "api_key", "url", "uuid", "ipv4"}


def test_platform_share_formula(tmp_path: Path) -> None:
    rows = [_row(prompt_tokens=10, request_id=f"r{i}") for i in range(10)]
    result = scope([_log(tmp_path, rows)], platform_requests=1000)
    share = result.disclosed.platform_share
    assert share is not None
    assert share.our_requests == 10 and share.leaked_responses == 155
    assert share.probability_at_least_one == pytest.approx(1 - (1 - 10 / 1000) ** 155)
    assert share.expected_leaked_responses_with_our_data == pytest.approx(1.55)
    assert "1 - (1 - 10/1000)^155" in share.formula
    assert result.exit_code == 0  # nothing over the trigger, nothing unknown
    with pytest.raises(UsageError, match="below our own 10"):
        scope([_log(tmp_path, rows)], platform_requests=5)


def test_affected_breakdowns(tmp_path: Path) -> None:
    rows = [
        _row(request_id="a", account_id="x", session_id="s1", status=200),
        _row(
            request_id="b",
            account_id="x",
            session_id="s2",
            status=500,
            timestamp="2026-09-02T03:00:00Z",
        ),
        _row(request_id=None, account_id=None, session_id=None, status=None),
    ]
    result = scope([_log(tmp_path, rows)])
    assert result.affected.requests == 3
    assert result.affected.requests_without_id == 1
    assert result.affected.sessions == 2
    assert result.status == {"200": 1, "500": 1, "(none)": 1}
    assert [(str(d.date), d.requests) for d in result.per_day] == [
        ("2026-09-01", 2),
        ("2026-09-02", 1),
    ]
    # every request was over the trigger: none could have been read
    assert result.disclosed.accounts == 0 and result.disclosed.unattributed == 0


def _batch(models: list[str | None], stamps: list[int]) -> LogBatch:
    table = pa.table(
        {name: pa.nulls(len(models), BATCH_SCHEMA.field(name).type) for name in BATCH_SCHEMA.names}
    )
    table = table.set_column(BATCH_SCHEMA.get_field_index("model"), "model", pa.array(models, TEXT))
    table = table.set_column(
        BATCH_SCHEMA.get_field_index("timestamp"), "timestamp", pa.array(stamps, pa.int64())
    )
    return LogBatch(file="f", table=table, records_read=len(models))


def test_scope_mask_is_computed_once_per_block_and_never_reused_for_other_data(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    acc = ScopeAccumulator(make_filter(get_advisory("glm-5.3-kv-leak")))
    calls = []
    real = acc._model_mask
    monkeypatch.setattr(acc, "_model_mask", lambda models: calls.append(1) or real(models))
    inside = 1_788_000_000 * 10**9  # 2026-08-29
    first = _batch(["glm-5.3", "glm-5.3-flash", None, "zai-org/GLM-5.3"], [inside] * 4)
    assert acc.text_mask(first.table).to_pylist() == [True, False, False, True]
    acc.add(first)  # the same columns: the masks are not computed again
    assert len(calls) == 1 and acc.matched == 2
    # equal values in other buffers, then other values: computed for each, right counts
    acc.add(_batch(["glm-5.3", "glm-5.3-flash", None, "zai-org/GLM-5.3"], [inside] * 4))
    acc.add(_batch(["gpt-5", "glm-5.3", "glm-5.3"], [inside, inside, 0]))
    assert len(calls) == 3
    assert acc.matched == 6 and acc.in_window == 5
