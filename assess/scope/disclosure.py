"""The ``disclosed`` object and the ``--disclosure-csv``: the source set S per account and per
request (first/last time, counts, prompt and output tokens), from :class:`~.exposure.Exposure`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from assess.kernel.csvfile import dict_csv_text
from assess.scope.exposure import ON, Exposure
from assess.scope.exposure_models import ExposureRange, SourceAccount, SourceRequest
from assess.scope.logs.timestamps import ns_to_datetime
from assess.scope.models import Disclosed, PlatformShare

REQUESTS_LISTED = 1000
#: The ``--disclosure-csv`` columns, in order.
DISCLOSURE_COLUMNS = (
    "request_id",
    "account_id",
    "timestamp",
    "prompt_tokens",
    "output_tokens",
    "platform",
)


def _sum(column: Any) -> int:
    return sum(int(v) for v in column.drop_null().to_pylist())  # Python ints: no overflow


def by_account(sources: pa.Table) -> list[SourceAccount]:
    """Return S per account (most requests first, ties by first time; no account: null).

    Token sums are taken as 38-digit decimals: int64 sums of adversarial counts could wrap.
    """
    if not sources.num_rows:
        return []
    wide = pa.decimal128(38, 0)
    table = pa.table(
        {
            "account_id": sources.column("account_id"),
            "timestamp": sources.column("timestamp"),
            "prompt": sources.column("prompt_tokens").cast(wide),
            "output": sources.column("output_tokens").cast(wide),
        }
    )
    grouped = table.group_by("account_id", use_threads=False).aggregate(
        [
            ("timestamp", "min"),
            ("timestamp", "max"),
            ("timestamp", "count"),
            ("prompt", "sum"),
            ("prompt", "count"),
            ("output", "sum"),
            ("output", "count"),
        ]
    )
    out = [
        SourceAccount(
            account_id=row["account_id"],
            requests=row["timestamp_count"],
            first=ns_to_datetime(row["timestamp_min"]),
            last=ns_to_datetime(row["timestamp_max"]),
            prompt_tokens=int(row["prompt_sum"] or 0),
            prompt_tokens_known=row["prompt_count"],
            output_tokens=int(row["output_sum"] or 0),
            output_tokens_known=row["output_count"],
        )
        for row in grouped.to_pylist()
    ]
    out.sort(key=lambda a: (-a.requests, a.first))
    return out


def source_rows(sources: pa.Table, limit: int | None = None) -> Iterator[dict[str, Any]]:
    """Yield the requests of S as dicts (timestamp as a UTC datetime), by time then id."""
    table = sources if limit is None else sources.slice(0, limit)
    for row in table.to_pylist():
        row["timestamp"] = ns_to_datetime(row["timestamp"])
        yield row


def disclosed(
    exposure: Exposure,
    platform_share: PlatformShare | None,
    estimate: ExposureRange | None,
) -> Disclosed:
    """Return the ``disclosed`` object of the source set."""
    sources = exposure.source_table()
    prompt, output = sources.column("prompt_tokens"), sources.column("output_tokens")
    accounts = by_account(sources)
    stamps = sources.column("timestamp")
    return Disclosed(
        requests=sources.num_rows,
        prompt_tokens_known=len(prompt) - prompt.null_count,
        prompt_tokens_total=_sum(prompt),
        accounts=sum(1 for a in accounts if a.account_id is not None),
        unattributed=sum(a.requests for a in accounts if a.account_id is None),
        platform_share=platform_share,
        output_tokens_known=len(output) - output.null_count,
        output_tokens_total=_sum(output),
        platform_unknown=int(pc.sum(pc.not_equal(sources.column("platform"), ON)).as_py() or 0),
        first=ns_to_datetime(pc.min(stamps).as_py()) if sources.num_rows else None,
        last=ns_to_datetime(pc.max(stamps).as_py()) if sources.num_rows else None,
        excluded={k: v for k, v in exposure.excluded.most_common() if v},
        by_account=accounts,
        request_list=[SourceRequest(**row) for row in source_rows(sources, REQUESTS_LISTED)],
        estimate=estimate,
    )


def disclosure_csv_text(sources: pa.Table) -> str:
    """Return the ``--disclosure-csv`` of S: one row per request, by time then id."""
    rows = []
    for row in source_rows(sources):
        stamp = row["timestamp"].isoformat().replace("+00:00", "Z")
        cells = {**row, "timestamp": stamp}
        rows.append({k: "" if cells.get(k) is None else cells[k] for k in DISCLOSURE_COLUMNS})
    return dict_csv_text(DISCLOSURE_COLUMNS, rows)
