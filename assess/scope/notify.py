"""The notification pack (`assess scope --notification-pack DIR`): per affected or at-risk account,
the time range, request and token counts and request ids, and one method statement.

An account is *affected* when one of its requests was affected or possibly affected (its response
may carry others' data) and *at risk* when one of its requests is in the source set S (a leak may
have carried its data). Files, all from the same run as the scope JSON, so their totals add up to
it: ``accounts.csv`` (one row per account), ``requests.csv`` (one row per request and role),
``method.md`` (advisory and date, N and V and where they came from, the range, exclusions with
their reasons) and ``pack.json`` (the same, as data).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from assess.kernel.csvfile import dict_csv_text
from assess.scope.disclosure import source_rows
from assess.scope.estimate import no_range
from assess.scope.logs.timestamps import ns_to_datetime
from assess.scope.method_text import method_markdown
from assess.scope.models import ScopeResult

NO_ACCOUNT = "(no account logged)"
ACCOUNT_COLUMNS = (
    "account_id",
    "role",
    "first",
    "last",
    "affected",
    "possibly_affected",
    "disclosed",
    "disclosed_prompt_tokens",
    "disclosed_output_tokens",
)
REQUEST_COLUMNS = (
    "account_id",
    "role",
    "request_id",
    "timestamp",
    "prompt_tokens",
    "output_tokens",
)


@dataclass
class _Account:
    first: datetime | None = None
    last: datetime | None = None
    counts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("affected", "possibly_affected", "disclosed"), 0)
    )
    prompt_tokens: int = 0
    output_tokens: int = 0

    def see(self, when: datetime, role: str) -> None:
        self.first = when if self.first is None else min(self.first, when)
        self.last = when if self.last is None else max(self.last, when)
        self.counts[role] += 1


def _stamp(value: datetime | None) -> str:
    return "" if value is None else value.isoformat().replace("+00:00", "Z")


def _requests(kept: Iterator[tuple[str, dict[str, Any]]], sources: Any) -> Iterator[dict[str, Any]]:
    """Every request with a role: affected and possibly affected rows, then S."""
    for category, row in kept:
        yield {
            "account_id": row.get("account_id"),
            "role": category,
            "request_id": row.get("request_id"),
            "timestamp": ns_to_datetime(row["timestamp"]),
            "prompt_tokens": row.get("prompt_tokens"),
            "output_tokens": row.get("output_tokens"),
        }
    for row in source_rows(sources):
        yield {**row, "role": "disclosed"}


def notification_pack(
    result: ScopeResult, kept: Iterator[tuple[str, dict[str, Any]]], sources: Any
) -> dict[str, str]:
    """Return the pack's files (name -> text) for ``result``, its kept rows
    (``ScopeRun.affected_rows()``) and its source set (``Exposure.source_table()``)."""
    accounts: dict[str, _Account] = {}
    lines = []
    for row in _requests(kept, sources):
        name = row["account_id"] or NO_ACCOUNT
        account = accounts.setdefault(name, _Account())
        account.see(row["timestamp"], row["role"])
        if row["role"] == "disclosed":
            account.prompt_tokens += row["prompt_tokens"] or 0
            account.output_tokens += row["output_tokens"] or 0
        lines.append(
            {
                **{k: "" if row.get(k) is None else row[k] for k in REQUEST_COLUMNS},
                "account_id": name,
                "timestamp": _stamp(row["timestamp"]),
            }
        )
    table = [_account_row(name, a) for name, a in sorted(accounts.items())]
    method = method_statement(result)
    data = {"kind": "assess.notification-pack", "accounts": table, "method": method}
    return {
        "accounts.csv": dict_csv_text(ACCOUNT_COLUMNS, table),
        "requests.csv": dict_csv_text(REQUEST_COLUMNS, lines),
        "method.md": method_markdown(method),
        "pack.json": json.dumps(data, indent=2, default=str) + "\n",
    }


def _account_row(name: str, account: _Account) -> dict[str, Any]:
    c = account.counts
    role = "affected" if c["affected"] or c["possibly_affected"] else "at risk"
    if role == "affected" and c["disclosed"]:
        role = "affected and at risk"
    return {
        "account_id": name,
        "role": role,
        "first": _stamp(account.first),
        "last": _stamp(account.last),
        **c,
        "disclosed_prompt_tokens": account.prompt_tokens,
        "disclosed_output_tokens": account.output_tokens,
    }


def method_statement(result: ScopeResult) -> dict[str, Any]:
    """Return the method statement: advisory and date, filter, N and V with their source, the
    range, and the exclusions with their reasons."""
    f, d, b = result.filter, result.disclosed, result.breakdown
    estimate = d.estimate
    return {
        "advisory": f.advisory_id,
        "advisory_published": f.advisory_published,
        "filter_is_the_advisorys": f.advisory_filter,
        "models": f.model_names,
        "window": [_stamp(f.since), _stamp(f.until)],
        "trigger_prompt_tokens_gt": f.min_prompt_tokens,
        "platforms": [p.name for p in f.platforms],
        "models_given": f.models_given,
        "serving_platform": f.serving_platform,
        "verdicts": b.by_verdict,
        "possibly_affected_reasons": result.possibly_affected.by_reason,
        "not_sources": d.excluded,
        "served_elsewhere_by_provider": b.served_elsewhere_by_provider,
        "platform_requests_N": estimate.platform_requests if estimate else None,
        "platform_tokens_V": estimate.platform_tokens if estimate else None,
        "V_from": estimate.platform_tokens_source if estimate else None,
        "range": estimate.formula if estimate else no_range(f),
        "assumptions": [a.model_dump() for a in estimate.assumptions] if estimate else [],
        "foreign_data_not_detected": result.candidate_foreign_data.not_detected,
        "own_prompts_in_over_length_responses": (
            f"{own.status}: {own.why}" if (own := result.own_overlap) is not None else None
        ),
    }
