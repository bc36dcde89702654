"""One definition, one answer (issue 39): every trap through every path gives the local answer.

The fixed cases (tests/scope/sqldiff.py) go through the local JSON array and Parquet readers and
through DuckDB running ``--emit-sql duckdb``, read back with ``--from-engine-results``; the answer
of each (counts, skip and non-request totals, request ids, disclosed tokens, verdict) must equal
the local NDJSON reader's exactly. Spark runs the same cases in test_sql_spark.py. A property test
draws random record sets from the same traps for DuckDB.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import REPO
from tests.scope import sqldiff
from tests.scope.sqldiff import Case

pytest.importorskip("duckdb")

CASES = {case.id: case for case in sqldiff.fixed_cases()}
RUN = {
    "array": sqldiff.local_array,
    "parquet": sqldiff.local_parquet,
    "duckdb": sqldiff.duckdb_answer,
}


def _params() -> list[Any]:
    out = []
    for case in CASES.values():
        for path in RUN:
            if (case.id, path) in sqldiff.NOT_APPLICABLE:
                continue
            if path in ("array", "parquet") and sqldiff.records(case) is None:
                continue  # a malformed line is no element of an array or a Parquet row
            marks = sqldiff.known(case.id, path)
            out.append(pytest.param(case.id, path, marks=marks, id=f"{case.id}-{path}"))
    return out


@pytest.mark.parametrize(("case_id", "path"), _params())
def test_every_path_gives_the_local_answer(tmp_path: Path, case_id: str, path: str) -> None:
    case = CASES[case_id]
    reference = sqldiff.local_ndjson(case, tmp_path)
    assert "error" not in reference and reference["counts"]["in_window"]  # the controls are read
    found = RUN[path](case, tmp_path)
    if found is None:
        pytest.skip(f"Arrow cannot type the records of {case_id} as one table")
    assert found == sqldiff.expected(case, path, reference)


# -- the property: random record sets with the traps, local NDJSON against DuckDB ------------------

_STAMPS = st.sampled_from(
    [
        "2026-09-01T10:00:00Z",
        "2026-08-27T00:00:00Z",
        "2026-08-26T23:59:59.999Z",
        "2026-09-10T01:59:59+02:00",
        " 2026-09-01 12:00:00.250Z ",
        1788220800,
        1788220800.25,
        1788220800500,
        "1788220800",
        "1787788799.9999999",
        "0001-01-01T00:00:00Z",
        "9999-12-31T23:59:59Z",
        10**20,
        "soon",
        None,
        "",
    ]
)
_MODELS = st.sampled_from(
    [
        "glm-5.3",
        "GLM-5.3",
        "glm-5.3\t",
        " zai-org/glm-5.3",
        "us.zai.glm-5.3-v1:0",
        "glm-5.3-flash",
        "gpt-4o",
        None,
        "",
    ]
)
_TOKENS = st.one_of(
    st.sampled_from([None, 0, "", "700000", " 12 ", "12\t", "12.0", 12.0, 12.5, -1, True, "x"]),
    st.integers(min_value=0, max_value=2**64),
)
_JUNK = st.sampled_from(
    [
        "not json",
        "[1, 2]",
        '{"timestamp": "2026-09-01T10:00:00Z", "model": "glm-5.3", "prompt_tokens": NaN}',
        '{"timestamp": "2026-09-01T10:00:00Z", "model": "glm-5.3", "prompt_tokens": 5,}',
        '{"timestamp": "2026-09-01T10:00:00Z", "model": "glm-5.3"} tail',
        '{"error": {"message": "rate limited"}}',
        "",
    ]
)


@st.composite
def _lines(draw: Any) -> list[str]:
    out = []
    for i in range(draw(st.integers(min_value=1, max_value=12))):
        if draw(st.integers(0, 5)) == 0:
            out.append(draw(_JUNK))
            continue
        record = {
            "timestamp": draw(_STAMPS),
            "model": draw(_MODELS),
            "prompt_tokens": draw(_TOKENS),
            "request_id": f"r{i}",
        }
        out.append(json.dumps(record))
    return out


#: The property tests' settings: few examples (each runs DuckDB), the same ones every run.
_PROPERTY = settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@_PROPERTY
@given(lines=_lines())
def test_random_record_sets_give_the_local_answer_in_duckdb(
    tmp_path: Path, lines: list[str]
) -> None:
    _same_in_duckdb(Case("random", lines), tmp_path)


def _same_in_duckdb(case: Case, tmp_path: Path) -> None:
    reference = sqldiff.local_ndjson(case, tmp_path)
    assert sqldiff.duckdb_answer(case, tmp_path) == reference


def test_a_number_test_inside_a_json_string_gives_the_local_answer(tmp_path: Path) -> None:
    """json39: new-api's rule (``type`` not in [2, "2", 5, "5"]) moved below strings holding JSON
    (``meta.log.type``, as a preset file): DuckDB's json_type reads the type inside the string as
    get_path does (2.0 is 2, "2.0" is not, null is a value); it read the text and took 2.0 for a
    string, so a consume row became "not a call"."""
    shipped = (REPO / "assess/scope/logs/presets/new-api.yaml").read_text()
    moved = shipped.replace("{path: type, not_in:", "{path: meta.log.type, not_in:")
    assert moved != shipped
    preset = tmp_path / "new-api-meta.yaml"
    preset.write_text(moved)
    lines = []
    for i, kind in enumerate([2, 2.0, "2.0", None, 5.0, 7, "2", 2e0, 5, 2.0]):
        row = json.loads(sqldiff.new_api(i, 1)) | {"meta": {"log": {"type": kind}}}
        inner = ("meta.log",) if i % 3 == 1 else ("meta",) if i % 3 == 2 else ("meta", "meta.log")
        lines.append(sqldiff.nest(row, *inner, doubled=i == 8))
    case = Case("number-in-json-string", lines, preset=str(preset))
    reference = sqldiff.local_ndjson(case, tmp_path)
    assert reference["non_request_reasons"] and reference["counts"]["in_window"]
    assert sqldiff.duckdb_answer(case, tmp_path) == reference


#: json39: the objects a span's fields are read through, each of which may be a JSON string
_HOLDERS = [
    "attributes",
    "attributes.llm",
    "attributes.llm.token_count",
    "attributes.openinference",
    "attributes.openinference.span",
    "context",
]


@st.composite
def _spans(draw: Any) -> list[str]:
    """OpenInference spans whose objects are drawn as objects, strings holding JSON (a string
    inside a string where two nest), JSON with doubled quotes, or lax JSON in a string."""
    out = []
    for i in range(draw(st.integers(min_value=1, max_value=8))):
        record = sqldiff.span(
            f"s{i}",
            draw(st.sampled_from([700_000, 5, None, "700000", 0])),
            kind=draw(st.sampled_from(["LLM", "CHAIN", None, "", 2])),
            model=draw(st.sampled_from(["glm-5.3", "gpt-4o"])),
        )
        held = draw(st.lists(st.sampled_from(_HOLDERS), unique=True, max_size=4))
        doubled = len(held) == 1 and draw(st.booleans())
        line = sqldiff.nest(record, *held, doubled=doubled)
        lax = held and draw(st.integers(0, 3)) == 0  # a trailing comma in a string's JSON
        out.append(line.replace('}"', '},}"', 1) if lax else line)
    return out


@_PROPERTY
@given(lines=_spans())
def test_fields_inside_json_strings_give_the_local_answer_in_duckdb(
    tmp_path: Path, lines: list[str]
) -> None:
    _same_in_duckdb(Case("random-json-strings", lines, preset="openinference"), tmp_path)


# -- the dialects not run here, and the refusals ---------------------------------------------------

#: json39's cases: fields and rules read through strings holding JSON
_JSON_STRINGS = [
    "json-string-deep",
    "rule-null-in-json-string",
    "doubled-quotes",
    "lax-json-in-string",
]


@pytest.mark.parametrize("dialect", ["trino", "athena", "bigquery"])
@pytest.mark.parametrize(
    "case_id",
    ["bedrock-null-schema", "canonical-traps", *_JSON_STRINGS],
)
def test_the_other_dialects_carried_back_to_duckdb_give_the_local_answer(
    tmp_path: Path, dialect: str, case_id: str
) -> None:
    """As tests/scope/test_sql_dialects.py: each dialect's text, parsed in that dialect and
    transpiled back to DuckDB, keeps the null and strict-JSON rules (not run on the engine)."""
    import duckdb

    from tests.scope.test_sql_dialects import to_duckdb

    cases = [c for c in CASES.values() if c.preset == "canonical" and not c.options]
    # string-exponent-epoch included: BigQuery's REGEXP_EXTRACT has no group index, so each part
    # of an exponent is its own one-group pattern (it took the whole match: "1e50" failed a cast)
    skip = {"duplicate-keys", *sqldiff.REFUSED["duckdb"]}
    agree = [c for c in cases if not sqldiff.known(c.id, "duckdb") and c.id not in skip]
    assert "string-exponent-epoch" in {c.id for c in agree}  # no longer left out (fix39c)
    case = CASES.get(case_id) or sqldiff.merged(agree, case_id)
    path = tmp_path / "logs.ndjson"
    path.write_bytes(case.ndjson())
    con = duckdb.connect()
    sqldiff.duckdb_lines(con, path)
    out = tmp_path / "result.parquet"
    query = to_duckdb(sqldiff.emit_sql(dialect, preset=case.preset).sql, dialect)
    con.execute(f"COPY ({query}) TO '{out}' (FORMAT parquet)")
    found, reference = (
        sqldiff.engine_answer(case, dialect, out),
        sqldiff.local_ndjson(case, tmp_path),
    )
    # the reasons of NUL and not-UTF-8 lines are the local ones in DuckDB and Spark only (these
    # dialects' text readers were not run: such a line is "not a JSON object" there)
    assert found["counts"]["records_skipped"] == reference["counts"]["records_skipped"]
    assert found | {"binary_skips": {}} == reference | {"binary_skips": {}}


@pytest.mark.parametrize("dialect", ["spark", "trino", "athena", "bigquery"])
def test_a_rule_comparing_numbers_is_refused_where_a_number_reads_as_text(dialect: str) -> None:
    from assess.kernel.errors import UsageError

    with pytest.raises(UsageError, match=r'new-api compares type with numbers.*"2\.0"'):
        sqldiff.emit_sql(dialect, preset="new-api")
    assert "json_type" in sqldiff.emit_sql("duckdb", preset="new-api").sql.lower()


@pytest.mark.parametrize(
    ("case_id", "ids"),
    [
        (
            "lone-surrogates",
            ["\\\ufffd\\\\ud83d", "ctl-affected", "ctl-unknown"]
            + ["u1", "u2", "u3", "u4\U0001f600", "u5", "u6\ufffd", "u7", "u8", "u9"],
        ),
        ("cut-emoji-in-5000", ["ctl-affected", "ctl-unknown", "cut"]),
        ("lone-surrogate-in-json-string", ["o1", "o2", "w1", "w3"]),
    ],
)
def test_lone_surrogates_are_read_as_u_fffd_whatever_the_neighbours(
    tmp_path: Path, case_id: str, ids: list[str]
) -> None:
    """acc39 B1: a record holding a lone surrogate escape (a cut emoji, a lone low one, a
    reversed pair; in a text, an id, a key, a string holding JSON) is read, the escape as
    U+FFFD, its id kept; a pair stays a pair, ``\\\\ud83d`` is no escape. The local answer does
    not change with a broken line beside it (the fast path read such a record, losing its id;
    the strict reader skipped it). The other paths give this answer (the test above)."""
    case = CASES[case_id]
    found = sqldiff.local_ndjson(case, tmp_path)
    assert found["counts"]["records_skipped"] == 0
    assert sorted(found["affected"] + found["possibly_affected"]) == sorted(ids)
    broken = Case(case_id + "-broken", [*case.lines, '{"broken'], case.preset)
    beside = sqldiff.local_ndjson(broken, tmp_path)
    assert beside["counts"]["records_skipped"] == 1
    assert beside["affected"] == found["affected"]
    assert beside["possibly_affected"] == found["possibly_affected"]
    assert sqldiff.records(case) is not None  # and so the JSON array and Parquet paths run


_ESCAPES = st.lists(
    st.sampled_from(
        ["\\", "\\\\", "u", "d", "D", "8", "c", "e", "F", "0", "x", '"', "\x01"]
        + ["\\ud83d", "\\ude00", "\\uDBFF", "\\udc00", "\\u0041", "\\ud8"]
    ),
    max_size=14,
).map("".join)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(texts=st.lists(_ESCAPES, min_size=1, max_size=60))
def test_the_query_reads_lone_surrogates_as_the_local_reader(texts: list[str]) -> None:
    """acc39 B1: the SQL rewrite (``sql_json.without_lone_surrogates``) and the local one
    (``exactjson.without_lone_surrogates``) give the same text, and the local quick check misses
    no text the escapes, read left to right, would change."""
    import duckdb

    from assess.scope.logs import exactjson
    from assess.scope.sql_json import without_lone_surrogates

    con = duckdb.connect()
    con.execute("CREATE TABLE t (i INTEGER, line VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(texts)))
    rows = con.execute(f"SELECT i, {without_lone_surrogates('line')} FROM t ORDER BY i").fetchall()
    for (_, found), text in zip(rows, texts, strict=True):
        read = exactjson._TOKENS_TEXT.sub(exactjson._lone_text, text)
        assert exactjson.without_lone_surrogates(text) == read
        assert exactjson.without_lone_surrogates(text.encode()) == read.encode()
        assert found == (text if "\x01" in text else read)
