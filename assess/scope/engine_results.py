"""An engine's result of the scoping query (:mod:`assess.scope.sql`) turned into the scope document.

The export (CSV with a header, Parquet, NDJSON or a JSON array; what DuckDB, Spark, Athena,
Trino and BigQuery write) holds the in-scope rows and the totals. The rows go through the same
:class:`~assess.scope.accumulator.ScopeAccumulator` as a local run's, the totals complete the
conservation counts, so the JSON, tables, ids CSV and report are a local run's. Rows are taken in
(timestamp, request id) order: an engine returns them in no particular order. Skipped records
have no line numbers there, so only their counts by reason are listed.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from assess.kernel.common import hash_file
from assess.kernel.errors import InputError
from assess.scope.accumulator import ScopeAccumulator
from assess.scope.engine_files import SKIP, read_parts
from assess.scope.logs.presets import Preset
from assess.scope.models import BATCH_SCHEMA, EngineRun, InputNote, LogBatch, ScopeFilter
from assess.scope.sql import fingerprint, scoping_query

#: Totals rows that count records (requests are counted by model id: "model:", "matched:")
_OUTCOMES = ("request", "skip", "non_request", "model", "matched")


def _totals(table: pa.Table, path: Path | str) -> dict[str, int]:
    totals = table.filter(pc.equal(table.column("kind"), "total"))
    found: Counter[str] = Counter()
    names = [str(name) for name in totals.column("name").to_pylist()]
    for name, count in zip(names, totals.column("n").to_pylist(), strict=True):
        found[name] += int(count or 0)
    if not found:
        raise InputError(
            f"{path}: the result has no totals rows (kind 'total'): a part of a sharded export "
            "without them, or not the query's result",
            "Export the whole result of the query, totals rows included; a sharded export "
            "(Spark part-00000..., BigQuery *-000000000000.json) is given as its folder or a "
            "quoted glob.",
        )
    _markers_here(found, path)
    _once(Counter(names), path)
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
#: How to export from Spark without trimming values (its CSV writer's options, both true by
#: default on write: https://spark.apache.org/docs/latest/sql-data-sources-csv.html).
_TRIMMED = (
    "From Spark, write Parquet (df.write.parquet), or CSV with "
    '.option("ignoreLeadingWhiteSpace", False).option("ignoreTrailingWhiteSpace", False).'
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


def _once(names: Counter[str], path: Path | str) -> None:
    """Refuse totals rows given more than once: a whole result holds each name once (a second
    export of the result, or of its part holding totals, beside the first would double every
    count).

    Raises:
        InputError: naming a repeated totals row.
    """
    repeated = sorted(name for name, times in names.items() if times > 1)
    if repeated:
        raise InputError(
            f"{path}: {len(repeated):,} totals row(s) appear more than once (e.g. "
            f"{repeated[0]!r} {names[repeated[0]]} times), where a result holds each once: "
            "the result, or its part holding totals, is given twice (a second export beside "
            "the first?)",
            _PARTS_HINT + " Give one export, each part once.",
        )


def _each_once(rows: pa.Table, path: Path | str) -> pa.Table:
    """Return the result's rows, each repeated ``n`` times (the records it stands for).

    The query returns each distinct row once with its count, so a row given twice is a part
    given twice (its copy, or a part of another export of the result), which could stand in for
    a part not given: refused, as is a row without its count (an earlier query's result).

    Raises:
        InputError: naming a repeated row, a row without a count or one below 1.
    """
    counts = rows.column("n")
    if counts.null_count:
        raise InputError(
            f"{path}: rows of the result lack their count n (the result of a query an "
            "earlier assess emitted, or not the query's result)",
            "Emit the query again with this assess and run it.",
        )
    if rows.num_rows and (least := pc.min(counts).as_py()) < 1:
        rid = rows.column("request_id")[pc.index(counts, least).as_py()].as_py()
        which = "a row without request id" if rid is None else f"request id {rid!r}"
        raise InputError(
            f"{path}: rows of the result give a count n below 1 (e.g. {which}: n {least}), "
            "which the query never returns: the result was changed after the query ran",
            "Run the query again and give its result as exported.",
        )
    keys = [name for name in rows.column_names if name != SKIP]
    grouped = rows.group_by(keys, use_threads=False).aggregate([([], "count_all")])
    repeated = grouped.filter(pc.greater(grouped.column("count_all"), 1))
    if repeated.num_rows:
        example = repeated.column("request_id")[0].as_py()
        raise InputError(
            f"{path}: {repeated.num_rows:,} row(s) of the result appear more than once (e.g. "
            f"request id {example!r}), where the query returns each row once: a part is given "
            "twice (a copy, or a part of another export of the result), and may stand in for "
            "a part not given; or the export made distinct rows equal (Spark's CSV writer "
            "trims leading and trailing whitespace by default, so two rows differing only by "
            "it read as one given twice)",
            _PARTS_HINT + " Give one export, each part once. " + _TRIMMED,
        )
    return rows.take(np.repeat(np.arange(rows.num_rows), counts.to_numpy()))


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
    if rows > want_rows:
        raise InputError(
            f"{name}: the rows here stand for {rows:,} records (their counts n), the query "
            f"returned {want_rows:,}: a part given twice, or rows or counts changed after the "
            "query ran, would read as more requests than there are",
            hint + " Give one export, each part once, as exported.",
        )
    if rows < want_rows:
        raise InputError(
            f"{name}: {rows:,} of the {want_rows:,} rows the query returned are here "
            f"({want_rows - rows:,} missing): a partial result (one part of a sharded export, "
            "or only the totals) would read as fewer affected requests than there are",
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
    paths: Sequence[Path],
    preset: Preset,
    scope: ScopeFilter,
    keep_text: bool = False,
    left_out: Sequence[InputNote] = (),
) -> tuple[ScopeAccumulator, EngineRun]:
    """Return the accumulator holding the engine's result (its parts read together) and the
    record of the query; ``left_out`` notes the parts not read (another's bytes).

    Raises:
        InputError: for a result that is not the query's, one run with another preset or
            filter than the options give now (the definition fingerprints differ), or a part
            of one (fewer rows or records than its totals count, a row given twice); naming
            the parts left out.
    """
    try:
        return _scope_engine_results(paths, preset, scope, keep_text)
    except InputError as exc:
        if not left_out:
            raise
        named = "; ".join(f"{n.path}: {n.reason}" for n in left_out[:3])
        more = f" (and {len(left_out) - 3:,} more)" if len(left_out) > 3 else ""
        raise InputError(f"{exc.message} [{named}{more}]", exc.advice) from exc


def _scope_engine_results(
    paths: Sequence[Path], preset: Preset, scope: ScopeFilter, keep_text: bool
) -> tuple[ScopeAccumulator, EngineRun]:
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
    rows = _each_once(table.filter(pc.equal(table.column("kind"), "row")), path)
    _complete(totals, rows.num_rows, path)
    every = rows  # each row as many times as its records
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
    acc.models = _models(totals, every, canon, acc.models)  # every request's, the rows' too
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
    totals: dict[str, int], every: pa.Table, rows: pa.Table, counted: Counter[str | None]
) -> Counter[str | None]:
    """The requests per model id (None: no model) the engine counted, less the rows of
    ``every`` (the result's rows, each once per record) skipped here (a value outside int64),
    with the ``rows`` added as ``counted`` there (a repeated request counted once)."""
    models: Counter[str | None] = Counter(_by_prefix(totals, "model:"))
    models.update(_by_prefix(totals, "matched:"))
    skipped = every.filter(pc.is_valid(every.column(SKIP)))
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
