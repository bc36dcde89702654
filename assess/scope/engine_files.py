"""The files of an engine's result of the scoping query (:mod:`assess.scope.sql`): found (one
file, a sharded export's folder or glob), each part's bytes read once, and read as one table of
the query's columns (CSV with a header, Parquet, NDJSON or a JSON array).
"""

from __future__ import annotations

import glob
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from assess.kernel.errors import InputError
from assess.scope.fields import EXPOSURE_FIELDS
from assess.scope.logs.timestamps import OUT_OF_RANGE
from assess.scope.models import InputNote
from assess.scope.sql import RESULT_COLUMNS

_INTEGERS = ("n", "timestamp_ns", "prompt_tokens")
#: The internal column naming why a row of the result is skipped (a value outside int64).
SKIP = "_skip_reason"
_OUT_OF_RANGE = {
    "timestamp_ns": f"timestamp {OUT_OF_RANGE}",
    "prompt_tokens": "unparseable prompt_tokens: out of range (2**63 or more)",
}


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


def distinct_parts(paths: Sequence[Path]) -> tuple[list[Path], list[InputNote]]:
    """Return the parts of a result without those whose bytes are another's (a part given
    twice: a second download, "part-00000 (1).parquet"), and a note naming each left out.

    A part read twice would stand in for a part not given (its rows meet the count of rows
    the totals expect); read once, the count falls short and the result is refused.
    """
    from assess.scope.logs.identity import dedupe

    kept, notes = dedupe(list(paths))
    return [Path(p) for p in kept], notes


def read_parts(paths: Sequence[Path]) -> pa.Table:
    """Return the result set of every part in ``paths`` as one table (see :func:`read_results`)."""
    return pa.concat_tables([read_results(p) for p in paths])


def read_results(path: Path) -> pa.Table:
    """Return the result set in ``path`` with the query's columns (names case-insensitive).

    Raises:
        InputError: for a file that cannot be read, or that lacks a column of the query.
    """
    try:
        table, is_json = _read(path)
    except (OSError, pa.ArrowException, ValueError) as exc:
        raise InputError(
            f"{path}: cannot be read as the query's result ({str(exc).splitlines()[0]})",
            "Export the whole result as CSV with a header, Parquet, NDJSON or a JSON array.",
        ) from exc
    table = table.rename_columns([name.lower() for name in table.column_names])
    # added after the first queries: older results lack them; a JSON exporter leaving out
    # null fields (Spark's JSON writer) leaves out a column null in every row of a part
    absent = [c for c in RESULT_COLUMNS if c != "kind"] if is_json else EXPOSURE_FIELDS
    for name in absent:
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


def _read(path: Path) -> tuple[pa.Table, bool]:
    """Return the table in ``path`` and whether it is JSON (NDJSON or an array)."""
    with path.open("rb") as handle:
        head = handle.read(4096)
    if head.startswith(b"PAR1"):
        import pyarrow.parquet as pq

        return pq.read_table(path), False
    text = head.lstrip()
    if text.startswith(b"["):
        import orjson

        return pa.Table.from_pylist(orjson.loads(path.read_bytes())), True
    if text.startswith(b"{"):
        import pyarrow.json as pj

        return pj.read_json(path), True
    import pyarrow.csv as pcsv

    # every column as text: a count of 2**63 - 1 read as a float would come back as 2**63
    types = {name: pa.string() for name in RESULT_COLUMNS}
    types |= {name.upper(): pa.string() for name in types}
    options = pcsv.ConvertOptions(column_types=types, strings_can_be_null=True)
    return pcsv.read_csv(path, convert_options=options), False
