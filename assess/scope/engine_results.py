"""An engine's result of the scoping query (:mod:`assess.scope.sql`) turned into the scope document.

The export (CSV with a header, Parquet, NDJSON or a JSON array; what DuckDB, Spark, Athena,
Trino and BigQuery write) holds the in-scope rows and the totals. The rows go through the same
:class:`~assess.scope.accumulator.ScopeAccumulator` as a local run's, the totals complete the
conservation counts, so the JSON, tables, ids CSV and report are a local run's. Rows are taken in
(timestamp, request id) order: an engine returns them in no particular order. Skipped records
have no line numbers there, so only their counts by reason are listed.
"""

from __future__ import annotations

import glob
import hashlib
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from assess.kernel.common import hash_file
from assess.kernel.errors import InputError
from assess.scope.accumulator import ScopeAccumulator
from assess.scope.fields import EXPOSURE_FIELDS
from assess.scope.logs.presets import Preset
from assess.scope.logs.timestamps import OUT_OF_RANGE
from assess.scope.models import BATCH_SCHEMA, EngineRun, LogBatch, ScopeFilter
from assess.scope.sql import RESULT_COLUMNS, fingerprint, scoping_query

_INTEGERS = ("n", "timestamp_ns", "prompt_tokens")
#: The internal column naming why a row of the result is skipped (a value outside int64).
SKIP = "_skip_reason"
_OUT_OF_RANGE = {
    "timestamp_ns": f"timestamp {OUT_OF_RANGE}",
    "prompt_tokens": "unparseable prompt_tokens: out of range (2**63 or more)",
}
#: Totals rows that count records (requests are counted by model id: "model:", "matched:")
_OUTCOMES = ("request", "skip", "non_request", "model", "matched")


def result_files(given: str | Path) -> list[Path]:
    """Return the files of a result: one file, a folder's files (a sharded export: Spark's
    ``part-00000-...``, BigQuery's ``*-000000000000.json``; ``_SUCCESS``, ``.crc`` and other
    ``_*``/``.*`` names left out) or a glob's matches, sorted.

    Raises:
        InputError: when nothing is there.
    """
    path = Path(given)
    if path.is_file():
        return [path]
    if path.is_dir():
        found = sorted(p for p in path.iterdir() if p.is_file() and not _marker_file(p))
        where = f"{path}: the folder holds no result file"
    elif any(c in str(given) for c in "*?["):
        found = sorted(Path(p) for p in glob.glob(str(given)) if Path(p).is_file())
        where = f"{given}: the pattern matches no file"
    else:
        raise InputError(f"{path}: no such file", "Give the exported result of the query.")
    if not found:
        raise InputError(where, "Give the exported result of the query (its file, folder or glob).")
    return found


def _marker_file(path: Path) -> bool:
    return path.name.startswith(("_", ".")) or path.name.endswith(".crc")


def read_parts(paths: Sequence[Path]) -> pa.Table:
    """Return the result set of every part in ``paths`` as one table (see :func:`read_results`)."""
    return pa.concat_tables([read_results(p) for p in paths])


def read_results(path: Path) -> pa.Table:
    """Return the result set in ``path`` with the query's columns (names case-insensitive).

    Raises:
        InputError: for a file that cannot be read, or that lacks a column of the query.
    """
    try:
        table = _read(path)
    except (OSError, pa.ArrowException, ValueError) as exc:
        raise InputError(
            f"{path}: cannot be read as the query's result ({str(exc).splitlines()[0]})",
            "Export the whole result as CSV with a header, Parquet, NDJSON or a JSON array.",
        ) from exc
    table = table.rename_columns([name.lower() for name in table.column_names])
    for name in EXPOSURE_FIELDS:  # added after the first queries: older results lack them
        if name not in table.column_names:
            table = table.append_column(name, pa.nulls(table.num_rows, pa.large_string()))
    missing = [c for c in RESULT_COLUMNS if c not in table.column_names]
    if missing:
        raise InputError(
            f"{path}: not the scoping query's result (no column {', '.join(missing)})",
            "Run the query `assess scope --emit-sql` wrote and export its whole result.",
        )
    columns: dict[str, Any] = {}
    reasons: list[str | None] = [None] * table.num_rows
    for name in RESULT_COLUMNS:
        column = table.column(name)
        if name in _INTEGERS and not pa.types.is_integer(column.type):
            column = _integers(column, name, reasons, path)  # "12.0" from some CSVs
        columns[name] = pc.cast(column, pa.int64() if name in _INTEGERS else pa.large_string())
    columns[SKIP] = pa.array(reasons, pa.large_string())
    return pa.table(columns)


def _integers(column: Any, name: str, reasons: list[str | None], path: Path) -> pa.Array:
    """Return ``column`` (text or floats) as int64; a value outside int64 (a token count of
    2**63 or more, an instant outside 1677-2262) is null and its row's skip reason set.

    Raises:
        InputError: for a value that is not a whole number, or a totals count out of range.
    """
    out: list[int | None] = []
    for at, value in enumerate(column.to_pylist()):
        if value is None or value == "":
            out.append(None)
            continue
        try:
            number = Decimal(str(value).strip())
            whole = int(number) if number.is_finite() and number == int(number) else None
        except (InvalidOperation, ValueError):
            whole = None
        if whole is None:
            raise InputError(
                f"{path}: row {at + 1:,}: {name} {str(value)[:40]!r} is not a whole number",
                "Export the query's result as the engine computed it (integers, not text).",
            )
        if -(2**63) <= whole < 2**63:
            out.append(whole)
            continue
        if name == "n":
            raise InputError(f"{path}: row {at + 1:,}: a totals count out of range ({value})")
        reasons[at] = reasons[at] or _OUT_OF_RANGE[name]
        out.append(None)
    return pa.array(out, pa.int64())


def _read(path: Path) -> pa.Table:
    with path.open("rb") as handle:
        head = handle.read(4096)
    if head.startswith(b"PAR1"):
        import pyarrow.parquet as pq

        return pq.read_table(path)
    text = head.lstrip()
    if text.startswith(b"["):
        import orjson

        return pa.Table.from_pylist(orjson.loads(path.read_bytes()))
    if text.startswith(b"{"):
        import pyarrow.json as pj

        return pj.read_json(path)
    import pyarrow.csv as pcsv

    # every column as text: a count of 2**63 - 1 read as a float would come back as 2**63
    types = {name: pa.string() for name in RESULT_COLUMNS}
    types |= {name.upper(): pa.string() for name in types}
    options = pcsv.ConvertOptions(column_types=types, strings_can_be_null=True)
    return pcsv.read_csv(path, convert_options=options)


def _totals(table: pa.Table, path: Path | str) -> dict[str, int]:
    totals = table.filter(pc.equal(table.column("kind"), "total"))
    found: Counter[str] = Counter()
    for name, count in zip(
        totals.column("name").to_pylist(), totals.column("n").to_pylist(), strict=True
    ):
        found[str(name)] += int(count or 0)
    if not found:
        raise InputError(
            f"{path}: the result has no totals rows (kind 'total'): a part of a sharded export "
            "without them, or not the query's result",
            "Export the whole result of the query, totals rows included; a sharded export "
            "(Spark part-00000..., BigQuery *-000000000000.json) is given as its folder or a "
            "quoted glob.",
        )
    _markers_here(found, path)
    outcomes = {k: v for k, v in found.items() if k.split(":", 1)[0] in _OUTCOMES}
    found["records_read"] = sum(outcomes.values())
    # requests by model id, matched or not ("request:matched" and "request:other" in the
    # results of earlier queries, which did not count them by model)
    matched = sum(n for name, n in found.items() if name.startswith("matched:"))
    found["model_matched"] = matched + found.get("request:matched", 0)
    others = sum(n for name, n in found.items() if name.startswith("model:"))
    others += found.get("request:other", 0) + found.get("request:no_model", 0)
    found["requests"] = found["model_matched"] + others
    return dict(found)


#: The totals rows every result of the query holds once (sql.py): a part of a sharded export
#: may hold some of them only.
_MARKERS = ("definition:", "dialect:", "preset:", "expect:rows", "expect:records")
_PARTS_HINT = (
    "Give every part of the export, read together: its folder or a quoted glob "
    "(e.g. 'result/part-*.parquet', 'result-*.json')."
)


def _markers_here(found: Counter[str], path: Path | str) -> None:
    """Refuse totals rows without one the query always writes (naming those missing).

    Raises:
        InputError: a part of a sharded export holding only some totals rows.
    """
    missing = [m.rstrip(":") for m in _MARKERS if not any(n.startswith(m) for n in found)]
    if missing:
        raise InputError(
            f"{path}: the totals rows here lack {', '.join(missing)}: some totals rows are in "
            "a part not given (or the result is of a query an earlier assess emitted)",
            _PARTS_HINT + " Or emit and run the query again.",
        )


def _complete(totals: dict[str, int], rows: int, name: str) -> None:
    """Refuse a result that is not whole: the totals say how many rows and records the query
    counted; a part of a sharded export holds fewer (or, a part given twice, more).

    Raises:
        InputError: naming what is missing.
    """
    hint = _PARTS_HINT
    want_rows, want_records = totals["expect:rows"], totals["expect:records"]  # _markers_here
    if totals["records_read"] != want_records:
        raise InputError(
            f"{name}: the totals rows count {totals['records_read']:,} records, the query "
            f"counted {want_records:,}: some totals rows are in a part not given (or a part "
            "was given twice)",
            hint,
        )
    if rows != want_rows:
        what = f"{want_rows - rows:,} missing" if rows < want_rows else "a part given twice?"
        raise InputError(
            f"{name}: {rows:,} of the {want_rows:,} rows the query returned are here ({what}): "
            "a partial result (one part of a sharded export, or only the totals) would read "
            "as fewer affected requests than there are",
            hint,
        )


def result_preset(paths: Sequence[Path]) -> str | None:
    """Return the id of the preset the query in the result (its parts) was emitted for.

    Raises:
        InputError: as :func:`read_results`.
    """
    return _marker(_totals(read_parts(paths), _name(paths)), "preset:")


def _name(paths: Sequence[Path]) -> str:
    """The result's name in messages: its file, or its parts' folder and count."""
    if len(paths) == 1:
        return str(paths[0])
    return f"{paths[0].parent} ({len(paths)} parts)"


def _marker(totals: dict[str, int], prefix: str) -> str | None:
    names = [name[len(prefix) :] for name in totals if name.startswith(prefix)]
    return names[0] if len(names) == 1 else None


def scope_engine_results(
    paths: Sequence[Path], preset: Preset, scope: ScopeFilter, keep_text: bool = False
) -> tuple[ScopeAccumulator, EngineRun]:
    """Return the accumulator holding the engine's result (its parts read together) and the
    record of the query.

    Raises:
        InputError: for a result that is not the query's, one run with another preset or
            filter than the options give now (the definition fingerprints differ), or a part
            of one (fewer rows or records than its totals count).
    """
    table, path = read_parts(paths), _name(paths)
    totals = _totals(table, path)
    expected = fingerprint(preset, scope)
    found, dialect = _marker(totals, "definition:"), _marker(totals, "dialect:")
    if found != expected or dialect is None:
        raise InputError(
            f"{path}: the result is of a query for another preset or filter (definition "
            f"{found or 'missing'}, these options give {expected})",
            "Give the same --preset, --map, --incident, --model, --since, --until and "
            "--min-prompt-tokens as to --emit-sql, or emit and run the query again.",
        )
    rows = table.filter(pc.equal(table.column("kind"), "row"))
    _complete(totals, rows.num_rows, path)
    rows, out_of_range = _out_of_range(rows)
    canon = _canonical(rows)
    acc = ScopeAccumulator(scope, keep_text=keep_text)
    acc.add(LogBatch(file=path, table=canon, records_read=0))
    # the query and the local rules disagree (a repeated request is counted once here)
    if (kept := acc.in_window + acc.duplicates.requests) != canon.num_rows:
        raise InputError(
            f"{path}: {canon.num_rows - kept:,} of the result's {canon.num_rows:,} rows "
            "are not in scope by assess's own rules",
            "Check that the result is of the query --emit-sql wrote for these options.",
        )
    _refuse_envelopes(totals, path)
    dropped = sum(out_of_range.values())  # counted by the engine as requests: skipped here
    acc.add_counts(
        read=totals["records_read"],
        requests=totals["requests"] - canon.num_rows - dropped,
        matched=totals["model_matched"] - canon.num_rows - dropped,
        non_request=_by_prefix(totals, "non_request:"),
        skipped=dict(Counter(_by_prefix(totals, "skip:")) + out_of_range),
    )
    acc.models = _models(totals, table, canon, acc.models)  # every request's, the rows' too
    query = scoping_query(preset, scope, dialect).sql
    run = EngineRun(
        dialect=dialect,
        definition=expected,
        query_sha256=hashlib.sha256(query.encode()).hexdigest(),
        query=query,
        results=hash_file(paths[0]),
        parts=[hash_file(p) for p in paths] if len(paths) > 1 else [],
    )
    return acc, run


def _canonical(rows: pa.Table) -> pa.Table:
    """The result's rows as a canonical batch's table."""
    names = BATCH_SCHEMA.names
    columns = {name: rows.column("timestamp_ns" if name == "timestamp" else name) for name in names}
    return pa.table(columns, schema=BATCH_SCHEMA)


def _out_of_range(rows: pa.Table) -> tuple[pa.Table, Counter[str]]:
    """Return the rows to read, by (timestamp, request id), and the skip reasons of the others
    (a value outside int64)."""
    reasons = Counter(r for r in rows.column(SKIP).to_pylist() if r)
    kept = rows.filter(pc.is_null(rows.column(SKIP)))
    return kept.sort_by([("timestamp_ns", "ascending"), ("request_id", "ascending")]), reasons


def _models(
    totals: dict[str, int], table: pa.Table, rows: pa.Table, counted: Counter[str | None]
) -> Counter[str | None]:
    """The requests per model id (None: no model) the engine counted, less the rows skipped
    here (a value outside int64), with the ``rows`` added as ``counted`` there (a repeated
    request counted once)."""
    models: Counter[str | None] = Counter(_by_prefix(totals, "model:"))
    models.update(_by_prefix(totals, "matched:"))
    skipped = table.filter(pc.is_valid(table.column(SKIP)))
    models.subtract(str(m) for m in skipped.column("model").to_pylist() if m is not None)
    models.subtract(str(m) for m in rows.column("model").to_pylist())
    models.update(counted)
    models[None] += totals.get("request:no_model", 0)
    return +models


def _by_prefix(totals: dict[str, int], prefix: str) -> dict[str, int]:
    return {k[len(prefix) :]: v for k, v in totals.items() if k.startswith(prefix) and v}


def _refuse_envelopes(totals: dict[str, int], path: Path | str) -> None:
    """A result counting lines the query could not open (API envelopes, log event wrappers)
    would undercount what the local reader finds in them: refused, naming how many."""
    from assess.scope.sql_rules import ENVELOPE

    count = totals.get("skip:" + ENVELOPE, 0)
    if count:
        raise InputError(
            f"{path}: {count:,} line(s) of the logs are API envelopes or log event wrappers "
            '({"data": [...]}, a CloudWatch event) that the query reads as one record each',
            "Scope these logs with `assess scope` on the files: it opens each envelope into "
            "its records.",
        )
