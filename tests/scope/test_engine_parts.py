"""A sharded engine result: its parts read together give the whole answer; one part, or only the
file holding the totals rows, is refused (exit 2, naming what is missing), never "nothing
affected".

Layouts as the engines write them: Spark's ``part-00000-<uuid>-c000.snappy.parquet`` beside
``_SUCCESS`` and ``.crc`` files (one part per task; a UNION's totals rows land in whichever part
runs them), BigQuery's ``EXPORT DATA`` / extract wildcard URI
``result-000000000000.json``, ``result-000000000001.json`` (newline-delimited JSON).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assess.kernel.errors import InputError, UsageError
from assess.scope.api import emit_sql, scope_engine_run, scope_run
from tests.conftest import REPO
from tests.scope.test_sql import lines_view

duckdb = pytest.importorskip("duckdb")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pcsv = pytest.importorskip("pyarrow.csv")

SAMPLE = REPO / "samples" / "logs" / "litellm.ndjson"
ROWS = 11  # the sample's in-window requests of the advisory's model: the query's rows


def test_the_sample_query_returns_its_in_window_requests() -> None:
    rows, _ = _result()
    assert rows.num_rows == ROWS


def _result() -> Any:
    """The whole result of the litellm query over the shipped sample, rows first."""
    con = duckdb.connect()
    lines_view(con, SAMPLE)
    table = con.sql(emit_sql("duckdb", preset="litellm").sql).to_arrow_table()
    rows = table.filter(pa.compute.equal(table.column("kind"), "row"))
    totals = table.filter(pa.compute.equal(table.column("kind"), "total"))
    return rows, totals


def _spark_parts(folder: Path) -> list[Path]:
    """Rows over two parts, the totals rows in a third (as three tasks would write them)."""
    rows, totals = _result()
    folder.mkdir()
    half = rows.num_rows // 2
    parts = [rows.slice(0, half), rows.slice(half), totals]
    paths = []
    for n, part in enumerate(parts):
        path = folder / f"part-{n:05d}-1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d-c000.snappy.parquet"
        pq.write_table(part, path)
        (folder / f".{path.name}.crc").write_bytes(b"crc")
        paths.append(path)
    (folder / "_SUCCESS").write_bytes(b"")
    return paths


def test_the_parts_of_a_spark_export_read_together_give_the_local_answer(tmp_path: Path) -> None:
    local = scope_run([str(SAMPLE)], preset="litellm").result
    # five over the trigger, three of unknown length; the sample names no platform, so the
    # five are possibly affected too (docs/exposure.md)
    assert local.counts.over_threshold == 5 and local.counts.unknown_tokens == 3
    assert len(local.possibly_affected.request_ids) == 7
    parts = _spark_parts(tmp_path / "result")
    for given in (tmp_path / "result", str(tmp_path / "result" / "part-*.parquet")):
        run = scope_engine_run(given, preset="litellm")
        doc = run.result
        assert sorted(doc.affected.request_ids) == sorted(local.affected.request_ids)
        assert sorted(doc.possibly_affected.request_ids) == sorted(
            local.possibly_affected.request_ids
        )
        assert doc.counts == local.counts
        assert doc.engine is not None and [p.path for p in doc.engine.parts] == [
            str(p) for p in parts
        ]
        assert [i.path for i in doc.inputs] == [str(p) for p in parts]


def test_one_part_or_only_the_totals_is_refused_naming_what_is_missing(tmp_path: Path) -> None:
    parts = _spark_parts(tmp_path / "result")
    with pytest.raises(InputError, match="no totals rows"):
        scope_engine_run(parts[0], preset="litellm")
    with pytest.raises(InputError, match=rf"0 of the {ROWS} rows the query returned are here"):
        scope_engine_run(parts[2], preset="litellm")  # the totals alone: every row missing
    with pytest.raises(InputError, match=rf"of the {ROWS} rows .* missing"):
        scope_engine_run(str(tmp_path / "result" / "part-0000[02]-*"), preset="litellm")


def test_bigquery_wildcard_export_parts_and_a_totals_row_in_another_part(tmp_path: Path) -> None:
    rows, totals = _result()
    body = rows.to_pylist() + totals.to_pylist()
    third = len(body) // 3
    chunks = [body[:third], body[third : 2 * third], body[2 * third :]]
    for n, chunk in enumerate(chunks):
        (tmp_path / f"result-{n:012d}.json").write_text(
            "".join(json.dumps(r) + "\n" for r in chunk)
        )
    whole = scope_engine_run(str(tmp_path / "result-*.json"), preset="litellm").result
    assert whole.counts.over_threshold == 5 and whole.counts.unknown_tokens == 3
    assert len(whole.possibly_affected.request_ids) == 7
    # the totals are spread over two parts: the last alone is refused, its records short
    with pytest.raises(InputError, match="some totals rows are in a part not given"):
        scope_engine_run(tmp_path / "result-000000000002.json", preset="litellm")


def test_totals_rows_spread_over_parts_name_what_a_part_lacks(tmp_path: Path) -> None:
    """acc39 defect 3: the totals rows dealt round-robin over three parts (as acc39 cut them):
    a part or two were refused for the wrong reason ("no totals rows" with five of them, "--preset
    auto needs a log file", two equal fingerprints said to differ)."""
    rows, totals = _result()
    folder = tmp_path / "result"
    folder.mkdir()
    heads = [_head(str(name)) for name in totals.column("name").to_pylist()]
    markers = [i for i, head in enumerate(heads) if head in _MARKERS]
    deal = {i: n % 3 for n, i in enumerate(markers)}  # the other totals rows: part 0
    for n in range(3):
        mine = [i for i in range(totals.num_rows) if deal.get(i, 0) == n]
        part = pa.concat_tables([rows.slice(n * 4, 4), totals.take(mine)])
        pq.write_table(part, folder / f"part-{n:05d}-abc-c000.snappy.parquet")
    for given in ("0", "1", "2", "01", "02", "12"):
        held = {heads[i] for i, n in deal.items() if str(n) in given}
        lack = ", ".join(m for m in _MARKERS if m not in held)
        for preset in ("auto", "litellm"):
            with pytest.raises(InputError) as caught:
                scope_engine_run(str(folder / f"part-0000[{given}]-*"), preset=preset)
            assert (
                f"the totals rows here lack {lack}: some totals rows are in a part not given"
                in (caught.value.message)
            )
    whole = scope_engine_run(str(folder), preset="auto").result
    assert len(whole.possibly_affected.request_ids) == 7


_MARKERS = ("definition", "dialect", "preset", "expect:rows", "expect:records")


def _head(name: str) -> str:
    return name if name.startswith("expect:") else name.split(":")[0]


def test_an_inferred_mapping_read_back_without_its_log_says_to_give_it(tmp_path: Path) -> None:
    """acc39 defect 4: "--preset 'inferred': no such preset"; the log given again works."""
    sample = REPO / "samples" / "logs" / "custom-export.ndjson"
    con = duckdb.connect()
    lines_view(con, sample)
    out = tmp_path / "result.parquet"
    con.execute(f"COPY ({emit_sql('duckdb', logs=[sample]).sql}) TO '{out}' (FORMAT parquet)")
    with pytest.raises(UsageError, match="inferred from a log file.*") as caught:
        scope_engine_run(out)
    assert "same log file as LOGS" in caught.value.advice
    local = scope_run([str(sample)]).result
    assert scope_engine_run(out, logs=[sample]).result.counts == local.counts


def test_cli_exits_2_on_a_part_and_1_on_the_folder(tmp_path: Path, run_cli: Any) -> None:
    parts = _spark_parts(tmp_path / "result")
    one = run_cli("scope", "--from-engine-results", str(parts[2]), "--preset", "litellm")
    assert one.exit_code == 2, one.stdout
    out = one.stdout + one.stderr
    assert f"{ROWS} missing" in out and "Traceback" not in out
    folder = run_cli("scope", "--from-engine-results", str(tmp_path / "result"))
    assert folder.exit_code == 1, folder.stdout  # possibly affected requests
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "_SUCCESS").write_bytes(b"")
    none = run_cli("scope", "--from-engine-results", str(empty), "--preset", "litellm")
    assert none.exit_code == 2 and "holds no result file" in none.stdout + none.stderr


BIG = 2**63 - 1
RANGE_LOG = [
    {
        "timestamp": "2026-08-28T00:00:00Z",
        "model": "glm-5.3",
        "prompt_tokens": 100,
        "request_id": "a",
        "account_id": "x",
    },
    {
        "timestamp": "2026-08-28T00:00:02Z",
        "model": "glm-5.3",
        "prompt_tokens": BIG,
        "request_id": "c",
        "account_id": "x",
    },
    {
        "timestamp": "2026-08-28T00:00:03Z",
        "model": "glm-5.3",
        "prompt_tokens": BIG,
        "request_id": "f",
        "account_id": "x",
    },
    {
        "timestamp": "0001-01-01T00:00:00Z",
        "model": "glm-5.3",
        "prompt_tokens": 200,
        "request_id": "d",
    },  # Go's zero time
    {
        "timestamp": "2026-08-28T00:00:04Z",
        "model": "glm-5.3",
        "prompt_tokens": 10 * BIG,
        "request_id": "e",
    },
    {
        "timestamp": "2026-08-28T00:00:05Z",
        "model": "glm-5.3",
        "prompt_tokens": 300,
        "request_id": "g",
        "account_id": "y",
    },
]


def _range_result(tmp_path: Path) -> tuple[Path, Any]:
    import csv

    logs = tmp_path / "logs.ndjson"
    logs.write_text("".join(json.dumps(r) + "\n" for r in RANGE_LOG))
    con = duckdb.connect()
    lines_view(con, logs)
    out = tmp_path / "result.csv"
    con.execute(f"COPY ({emit_sql('duckdb', preset='canonical').sql}) TO '{out}' (HEADER)")
    return logs, list(csv.reader(out.open()))


def _write(path: Path, table: list[list[str]]) -> Path:
    import csv

    with path.open("w", newline="") as handle:
        csv.writer(handle).writerows(table)
    return path


def test_counts_at_the_int64_edge_and_instants_out_of_range_as_locally(tmp_path: Path) -> None:
    logs, table = _range_result(tmp_path)
    local = scope_run([str(logs)], preset="canonical").result
    engine = scope_engine_run(_write(tmp_path / "r.csv", table), preset="canonical").result
    assert engine.counts == local.counts and engine.counts.records_skipped == 2
    assert sorted(engine.possibly_affected.request_ids) == ["c", "f"]  # 2**63 - 1 read exactly
    reasons = engine.breakdown.skipped_reasons
    assert any(r.startswith("timestamp out of range") for r in reasons)
    assert engine.disclosed == local.disclosed
    assert sum(a.prompt_tokens for a in engine.disclosed.by_account) == 400  # a + g


def test_a_result_value_outside_int64_is_a_skipped_record_not_a_crash(tmp_path: Path) -> None:
    """A result whose export wrote a count or instant outside int64 (text, a float): that row
    is skipped with its reason, the totals stay conserved."""
    _, table = _range_result(tmp_path)
    head = table[0]
    rows = [r for r in table[1:] if r[0] == "row"]
    by_id = {r[head.index("request_id")]: r for r in rows}
    by_id["a"][head.index("prompt_tokens")] = str(10 * BIG)
    by_id["g"][head.index("timestamp_ns")] = "1.0E20"
    result = scope_engine_run(_write(tmp_path / "r.csv", table), preset="canonical").result
    reasons = result.breakdown.skipped_reasons
    assert reasons["unparseable prompt_tokens: out of range (2**63 or more)"] == 1
    assert sum(n for r, n in reasons.items() if r.startswith("timestamp out of range")) == 2
    counts = result.counts
    assert counts.records_read == len(RANGE_LOG)
    assert counts.records_read == (
        result.breakdown.requests + counts.non_request_records + counts.records_skipped
    )
    by_id["c"][head.index("prompt_tokens")] = "many"
    with pytest.raises(InputError, match="prompt_tokens 'many' is not a whole number"):
        scope_engine_run(_write(tmp_path / "bad.csv", table), preset="canonical")


def _three_parts(folder: Path) -> list[Path]:
    """The result in three Parquet parts: rows 0-3, rows 4-7, rows 8-10 with every totals row
    (acc39 B2's cut)."""
    rows, totals = _result()
    folder.mkdir()
    parts = [rows.slice(0, 4), rows.slice(4, 4), pa.concat_tables([rows.slice(8), totals])]
    paths = [folder / f"part-{n:05d}.parquet" for n in range(3)]
    for part, path in zip(parts, paths, strict=True):
        pq.write_table(part, path)
    return paths


def test_a_part_given_twice_does_not_stand_in_for_a_missing_one(
    tmp_path: Path, run_cli: Any
) -> None:
    """acc39 B2: part 0 twice (a byte-identical second download, "part-00000 (1).parquet"),
    part 1 missing: 4 + 4 + 3 rows met the 11 the totals expect, "not affected", exit 0. The
    copy is read once and named, and the count falls short."""
    parts = _three_parts(tmp_path / "all")
    given = tmp_path / "given"
    given.mkdir()
    for name, part in (("part-00000", 0), ("part-00000 (1)", 0), ("part-00002", 2)):
        (given / f"{name}.parquet").write_bytes(parts[part].read_bytes())
    with pytest.raises(InputError, match=rf"7 of the {ROWS} rows .* \(4 missing\)") as caught:
        scope_engine_run(given, preset="litellm")
    assert "identical content to" in caught.value.message and "read once" in caught.value.message
    out = run_cli("scope", "--from-engine-results", str(given))
    assert out.exit_code == 2 and "4 missing" in out.stdout + out.stderr
    assert "Traceback" not in out.stdout + out.stderr


def test_rows_repeated_across_parts_do_not_make_up_for_missing_ones(tmp_path: Path) -> None:
    """acc39 B2, not byte-identical: part 0 again as CSV (a re-export) stands in for part 1.
    The query returns each distinct row once, with n its records, so a repeated row is a part
    given twice: refused."""
    parts = _three_parts(tmp_path / "all")
    given = tmp_path / "given"
    given.mkdir()
    for part in (parts[0], parts[2]):
        (given / part.name).write_bytes(part.read_bytes())
    pcsv.write_csv(pq.read_table(parts[0]), given / "part-00000.csv")
    with pytest.raises(InputError, match="4 row.* appear more than once .* a part is given twice"):
        scope_engine_run(given, preset="litellm")


def test_a_record_logged_twice_is_one_row_counting_two(tmp_path: Path) -> None:
    """A request logged twice (same id and content) is one row with n = 2: read back as two
    records, one a duplicate, as locally."""
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    logs = tmp_path / "logs.ndjson"
    local = scope_run([str(SAMPLE)], preset="litellm").result
    wanted = {f'"id":"{i}"'.encode() for i in local.possibly_affected.request_ids}
    twice = next(line for line in lines if any(w in line for w in wanted))
    logs.write_bytes(b"".join(lines) + twice)
    con = duckdb.connect()
    lines_view(con, logs)
    table = con.sql(emit_sql("duckdb", preset="litellm").sql).to_arrow_table()
    rows = table.filter(pa.compute.equal(table.column("kind"), "row"))
    assert rows.num_rows == ROWS and sorted(rows.column("n").to_pylist()) == [1] * 10 + [2]
    out = tmp_path / "result.parquet"
    pq.write_table(table, out)
    doc = scope_engine_run(out, preset="litellm").result
    assert doc.counts == scope_run([str(logs)], preset="litellm").result.counts
    assert doc.duplicates.requests == 1


def test_a_row_without_its_count_is_an_earlier_querys_result(tmp_path: Path) -> None:
    rows, totals = _result()
    old = rows.set_column(2, "n", pa.nulls(rows.num_rows, pa.int64()))
    pq.write_table(pa.concat_tables([old, totals]), tmp_path / "old.parquet")
    with pytest.raises(InputError, match="lack their count n .* an earlier assess emitted"):
        scope_engine_run(tmp_path / "old.parquet", preset="litellm")


def test_a_count_n_changed_after_the_query_is_refused_as_such(tmp_path: Path) -> None:
    """accfinal: a hand-edited n was refused, but as "10 of the 9 rows ... (a part given
    twice?) ... would read as fewer" (n raised) and "lack their count n" (n 0 or -1)."""
    rows, totals = _result()
    for n, match in (
        (2, rf"stand for {ROWS + 1} records .* returned {ROWS}: .* would read as more"),
        (0, r"count n below 1 \(e\.g\. request id 'chatcmpl-lt-r01': n 0\)"),
        (-1, r"count n below 1 .*: n -1\)"),
    ):
        counts = pa.array([n] + rows.column("n").to_pylist()[1:], pa.int64())
        edited = rows.set_column(2, "n", counts)
        pq.write_table(pa.concat_tables([edited, totals]), tmp_path / f"n{n}.parquet")
        with pytest.raises(InputError, match=match) as caught:
            scope_engine_run(tmp_path / f"n{n}.parquet", preset="litellm")
        assert "fewer" not in caught.value.message and "lack" not in caught.value.message


def test_rows_made_equal_by_a_trimming_csv_writer_are_refused_naming_it(tmp_path: Path) -> None:
    """accfinal 5: Spark's CSV writer trims leading and trailing whitespace by default, so two
    rows of a complete result differing only by it read as a row given twice. Still refused
    (safe), but the message names the writer and how to export without it; the same result
    written untrimmed reads as the local run."""
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    again = lines[0].replace(b'"hash-acct-a"', b'"hash-acct-a "')
    assert again != lines[0]
    logs = tmp_path / "logs.ndjson"
    logs.write_bytes(b"".join(lines) + again)
    con = duckdb.connect()
    lines_view(con, logs)
    table = con.sql(emit_sql("duckdb", preset="litellm").sql).to_arrow_table()
    pcsv.write_csv(table, tmp_path / "kept.csv")
    doc = scope_engine_run(tmp_path / "kept.csv", preset="litellm").result
    assert doc.counts == scope_run([str(logs)], preset="litellm").result.counts
    trimmed = pa.table(
        {
            name: pa.compute.utf8_trim_whitespace(column)
            if pa.types.is_string(column.type)
            else column
            for name, column in zip(table.column_names, table.columns, strict=True)
        }
    )
    pcsv.write_csv(trimmed, tmp_path / "trimmed.csv")
    with pytest.raises(InputError, match="1 row.* appear more than once") as caught:
        scope_engine_run(tmp_path / "trimmed.csv", preset="litellm")
    assert "Spark's CSV writer trims leading and trailing whitespace" in caught.value.message
    assert '.option("ignoreTrailingWhiteSpace", False)' in caught.value.advice
    assert '.option("ignoreLeadingWhiteSpace", False)' in caught.value.advice


def test_two_copies_of_the_result_are_read_once_or_refused_never_doubled(tmp_path: Path) -> None:
    """acc39: two full copies in one folder were read with every count doubled. Byte-identical
    copies are read once (and named); a second export of the result (other bytes: its totals
    rows again) is refused."""
    local = scope_run([str(SAMPLE)], preset="litellm").result
    parts = _three_parts(tmp_path / "result")
    for part in parts:
        (part.parent / f"{part.stem} (1).parquet").write_bytes(part.read_bytes())
    doc = scope_engine_run(tmp_path / "result", preset="litellm").result
    assert doc.counts == local.counts
    assert len(doc.inputs_not_read) == 3 and len(doc.inputs) == 3
    assert all("identical content" in note.reason for note in doc.inputs_not_read)
    rows, totals = _result()
    pcsv.write_csv(pa.concat_tables([rows, totals]), tmp_path / "result" / "again.csv")
    with pytest.raises(InputError, match="totals row.* appear more than once .* given twice"):
        scope_engine_run(tmp_path / "result", preset="litellm")


def test_a_json_export_leaving_out_null_fields_is_read(tmp_path: Path) -> None:
    """acc39 minor: Spark's JSON writer leaves out null fields (a part of totals rows has no
    prompt column at all); such a result was refused "no column prompt, response" even whole."""
    rows, totals = _result()
    folder = tmp_path / "result"
    folder.mkdir()
    body = rows.to_pylist()
    chunks = [body[:5], body[5:] + totals.to_pylist()]
    for n, chunk in enumerate(chunks):
        text = "".join(
            json.dumps({k: v for k, v in r.items() if v is not None}) + "\n" for r in chunk
        )
        (folder / f"part-{n:05d}.json").write_text(text)
    local = scope_run([str(SAMPLE)], preset="litellm").result
    doc = scope_engine_run(folder, preset="litellm").result
    assert doc.counts == local.counts
    assert sorted(doc.possibly_affected.request_ids) == sorted(local.possibly_affected.request_ids)
