"""The differential harness of issue 39: one record set, every path, one answer.

A :class:`Case` is a preset, options and the raw lines of an NDJSON file (str or bytes: a line
may be malformed on purpose). Each path turns it into the scope document:

- ``ndjson``: the local reader over the file (the reference);
- ``array``: the local reader over the same records as one JSON array (only when every line is
  one strict JSON value: a malformed line cannot be an element of an array);
- ``parquet``: the same records as a Parquet file (only when Arrow can type every column);
- ``duckdb``: ``--emit-sql duckdb`` run by DuckDB over the file's lines, read back with
  ``--from-engine-results``; ``spark``: the same with Spark (tests/scope/test_sql_spark.py).

:func:`answer` keeps what must match exactly: every count, the skip and non-request totals, the
affected and possibly affected request ids (as sets: engines keep no order), the disclosed token
total and the verdict. Every fixed case carries controls (an affected and a possibly affected
request that every path reads the same), so a path that reads nothing cannot agree by accident.

Trap sources: issue 39 (/work/notes/issue-39.txt) lists each one as measured on a real engine;
the record-level cases of tests/damaged/ (test_scope_damaged.BAD_TOKENS,
test_scope_numbers.OUT_OF_RANGE, the 4,400-digit epoch, the 100 ns epoch text) are repeated here.
The LiteLLM case is the shipped sample (samples/logs/litellm.ndjson), whose float ``startTime``
Spark's ``get_json_object`` renders as ``1.78826400025E9``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from assess.kernel.errors import AssessError
from assess.scope.api import emit_sql, scope_engine_run, scope_run
from assess.scope.logs import exactjson
from tests.conftest import REPO

PATHS = ("array", "parquet", "duckdb", "spark")
#: (case, path) pairs that disagree today; each fix of issue 39 removes its pairs.
KNOWN: dict[str, set[str]] = {
    "array": set(),
    "parquet": set(),
    "duckdb": set(),
    "spark": set(),
}
#: Cases a path refuses, and how (the refusal is the expected answer): new-api's rule compares
#: numbers, which only DuckDB's json_type tells from strings (--emit-sql refuses); envelopes the
#: query cannot open (--from-engine-results refuses the result); Spark cannot tell a JSON string
#: holding an object from an object, so it refuses ``{"data": "{...}"}`` too.
REFUSED: dict[str, dict[str, str]] = {
    "array": {},
    "parquet": {},
    "duckdb": {"envelope": "InputError"},
    "spark": {
        "new-api-float-type": "UsageError",
        "envelope": "InputError",
        "json-in-string": "InputError",
    },
}


def expected(case: Case, path: str, reference: dict[str, Any]) -> dict[str, Any]:
    """The answer ``path`` must give: the local one, or its refusal."""
    refusal = REFUSED[path].get(case.id)
    return {"error": refusal} if refusal else reference


#: Paths that do not apply: a Parquet file holds no API envelope (a ``data`` column of structs is
#: a column, not an envelope).
NOT_APPLICABLE = {("envelope", "parquet")}


def known(case: str, path: str) -> list[Any]:
    """The xfail mark of a pair that disagrees today (strict: a fix must remove it)."""
    import pytest

    if case in KNOWN[path]:
        return [pytest.mark.xfail(strict=True, reason=f"issue 39: {path} differs on {case}")]
    return []


IN_WINDOW = "2026-09-01T10:00:00Z"


@dataclass(frozen=True)
class Case:
    """A record set: its id, the preset, ``scope`` options, and the NDJSON lines."""

    id: str
    lines: Sequence[str | bytes]
    preset: str = "canonical"
    options: dict[str, Any] = field(default_factory=dict)

    def ndjson(self) -> bytes:
        return b"".join((x if isinstance(x, bytes) else x.encode()) + b"\n" for x in self.lines)


def rec(rid: str, tokens: Any = 700_000, **fields: Any) -> dict[str, Any]:
    """A canonical record in the advisory's window (over the trigger: affected when it matches)."""
    base = {"timestamp": IN_WINDOW, "model": "glm-5.3", "prompt_tokens": tokens, "request_id": rid}
    return base | fields


def line(rid: str, tokens: Any = 700_000, **fields: Any) -> str:
    return json.dumps(rec(rid, tokens, **fields))


#: Controls in every canonical case: one affected, one possibly affected, one out of scope.
CONTROLS = [line("ctl-affected"), line("ctl-unknown", None), line("ctl-other", model="gpt-4o")]


def _bedrock(rid: str, schema: Any, tokens: Any = 700_000) -> str:
    """A ModelInvocationLog record (fields as assess/scope/logs/presets/bedrock.yaml cites)."""
    return json.dumps(
        {
            "schemaType": schema,
            "schemaVersion": "1.0",
            "timestamp": IN_WINDOW,
            "accountId": "123456789012",
            "identity": {"arn": "arn:aws:sts::123456789012:assumed-role/app/x"},
            "region": "us-east-1",
            "requestId": rid,
            "operation": "Converse",
            "modelId": "zai.glm-5.3-v1:0",
            "input": {"inputContentType": "application/json", "inputTokenCount": tokens},
            "output": {"outputContentType": "application/json", "outputTokenCount": 10},
        }
    )


def _input_as(rid: str, text: str) -> str:
    """A bedrock record whose ``input`` object is replaced by the JSON ``text`` (a string)."""
    held = '"input": {"inputContentType": "application/json", "inputTokenCount": 700000}'
    return _bedrock(rid, "ModelInvocationLog").replace(held, '"input": ' + text)


def new_api(rid: int, kind: Any, tokens: Any = 700_000, **extra: Any) -> str:
    """A new-api logs row (model/log.go: type 2 consume, 5 error; created_at epoch seconds)."""
    row = {
        "id": rid,
        "user_id": 1,
        "created_at": 1788256800,
        "type": kind,
        "content": "",
        "username": "alice",
        "token_name": "t",
        "model_name": "glm-5.3",
        "quota": 10,
        "prompt_tokens": tokens,
        "completion_tokens": 3,
        "use_time": 1,
        "request_id": f"na-{rid}",
    }
    return json.dumps(row | extra)


def span(
    rid: str, tokens: Any = 700_000, kind: Any = "LLM", model: str = "glm-5.3"
) -> dict[str, Any]:
    """An OpenInference span as Phoenix's span JSON nests it (attributes as nested objects; see
    assess/scope/logs/presets/openinference.yaml for the spec it cites)."""
    return {
        "context": {"span_id": rid, "trace_id": "t-1"},
        "span_kind": "LLM",
        "start_time": IN_WINDOW,
        "attributes": {
            "llm": {"model_name": model, "token_count": {"prompt": tokens, "completion": 3}},
            "openinference": {"span": {"kind": kind}},
        },
    }


def stringified(record: dict[str, Any], path: str, doubled: bool = False) -> dict[str, Any]:
    """``record`` with the object at dotted ``path`` replaced by its JSON text (a stringified
    column); ``doubled``: its quotes doubled once more than CSV needs (Helicone's export CSV)."""
    out = json.loads(json.dumps(record))
    *parents, last = path.split(".")
    holder = out
    for key in parents:
        holder = holder[key]
    text = json.dumps(holder[last])
    holder[last] = text.replace('"', '""') if doubled else text
    return out


def _noted(record: dict[str, Any], note: str) -> dict[str, Any]:
    """``record`` (a span) with a ``note`` text in each object of its ``attributes``."""
    for value in record["attributes"].values():
        value["note"] = note
    return record


def nest(record: dict[str, Any], *paths: str, doubled: bool = False) -> str:
    """``record`` with each of ``paths`` stringified, innermost first (a string in a string):
    the line's text."""
    for path in sorted(paths, key=len, reverse=True):
        record = stringified(record, path, doubled)
    return json.dumps(record)


def _helicone(rid: str, body: Any, tokens: Any = 700_000) -> str:
    """A HeliconeRequest row (samples/logs/helicone.jsonl's keys) with ``request_body``."""
    row = {
        "request_id": rid,
        "request_created_at": IN_WINDOW,
        "request_model": "z-ai/glm-5.3",
        "prompt_tokens": tokens,
        "request_body": body,
    }
    return json.dumps(row)


def _litellm_sample() -> list[str]:
    return (REPO / "samples" / "logs" / "litellm.ndjson").read_text().splitlines()


BAD_TOKENS = [2**63, str(2**63), 2**64 + 5, str(10**30), 12.5, "12.5", 1e30, -3, True, "12a"]
OUT_OF_RANGE: list[Any] = [
    "0001-01-01T00:00:00Z",  # Go's zero time.Time
    "9999-12-31T23:59:59Z",
    "1677-09-21T00:12:43Z",  # just before int64 nanoseconds begin
    "2262-04-12T00:00:00Z",  # just after they end
    10**20,
    10**30,
    str(10**25),
    -(10**19),
]
_OBJ = '{"timestamp": "2026-09-01T10:00:00Z", "model": "glm-5.3", "prompt_tokens": 700000'


def merged(cases: Sequence[Case], name: str) -> Case:
    """The canonical ``cases`` as one record set (the controls once)."""
    traps = [x for c in cases for x in c.lines if x not in CONTROLS]
    return Case(name, [*CONTROLS, *traps])


def fixed_cases() -> list[Case]:
    """Every trap issue 39 lists, and the record-level cases of tests/damaged/."""
    c = CONTROLS
    return [
        Case("litellm-sample", _litellm_sample(), preset="litellm"),
        Case(
            "float-epoch",
            [*c, line("f1", timestamp=1788264000.25), line("f2", timestamp=1788256860.0)]
            + [line("f3", timestamp="1788264000.25"), line("f4", timestamp=1.7882640002512e12)],
        ),
        Case(
            "string-exponent-epoch",
            [*c, line("x1", timestamp="1.78826400025E9"), line("x2", timestamp="17882640002.5e-1")]
            + [line("x3", timestamp=" 1.7882640002512E12 "), line("x4", timestamp="1e50")]
            + [line("x5", timestamp="1788264000E0"), line("x6", timestamp="0.1788264000e+10")]
            + [line("x7", timestamp="1.5E9"), line("x8", timestamp="1.7882640002512E12.5")],
        ),
        Case("tab-in-model", [*c, line("m1", model="glm-5.3\t"), line("m2", model="\tGLM-5.3 ")]),
        Case(
            "tab-in-tokens",
            [*c, line("t1", "700000\t"), line("t2", "\t700000"), line("t3", " 5\n")],
        ),
        Case(
            "nan",
            [*c, _OBJ + ', "request_id": "n1", "x": NaN}', _OBJ[:-3] + 'NaN, "request_id": "n2"}'],
        ),
        Case("infinity", [*c, _OBJ + ', "request_id": "i1", "x": -Infinity}']),
        Case(
            "trailing-comma",
            [*c, _OBJ + ', "request_id": "c1",}', _OBJ + ', "request_id": "c2", "x": [1,]}'],
        ),
        Case("raw-tab", [*c, _OBJ + ', "request_id": "x\ty"}']),
        Case(
            "junk-after",
            [*c, _OBJ + ', "request_id": "j1"} junk', _OBJ + ', "request_id": "j2"}{}'],
        ),
        Case(
            "duplicate-keys",
            [*c, _OBJ + ', "model": "gpt-4o", "request_id": "d1"}']
            + ['{"model": "gpt-4o", ' + _OBJ[1:] + ', "request_id": "d2"}']
            + [_OBJ + ', "request_id": "d3", "request_id": "d3-last"}'],
        ),
        Case(
            "duplicate-keys-nested",
            [
                _bedrock("n1", "ModelInvocationLog").replace(
                    '"inputTokenCount": 700000', '"inputTokenCount": 700000, "inputTokenCount": 5'
                ),
                _bedrock("n2", "ModelInvocationLog", 5).replace(
                    '"inputTokenCount": 5', '"inputTokenCount": 5, "inputTokenCount": 700000'
                ),
                _bedrock("n3", "ModelInvocationLog").replace(
                    '"modelId": "zai.glm-5.3-v1:0"',
                    '"modelId": "zai.glm-5.3-v1:0", "modelId": "amazon.titan-text-v1"',
                ),
                _bedrock("n4", "ModelInvocationLog"),
                _bedrock("n5", "ModelInvocationLog", None),
            ],
            preset="bedrock",
        ),
        Case(
            "nul-bytes",
            [*c, (_OBJ + ', "request_id": "z1"}\0junk').encode(), b"\0\0", b"\0"]
            + [("\0" + _OBJ + ', "request_id": "z2"}').encode(), b"\0\0\0\0\0\0"],
        ),
        Case(
            "carriage-returns",  # acc39b #1: a raw CR inside a line, a lone CR line, CRLF ends
            [*c, _OBJ + ',\r"request_id": "r1"}', "\r", _OBJ + ', "request_id": "r2"}\r']
            + [_OBJ + ', "request_id": "r3",\r\r"x": 1}\r', "\r\r"],
        ),
        Case(  # accfinal N1: a UTF-8 BOM opens the file (the recipe kept it on line 1)
            "byte-order-mark",
            [("\ufeff" + _OBJ + ', "request_id": "m1"}').encode(), *c]
            + [("\ufeff" + _OBJ + ', "request_id": "m2"}').encode()],
        ),
        Case(
            "latin-1", [*c, (_OBJ + ', "request_id": "l1", "prompt": "caf\xe9"}').encode("latin-1")]
        ),
        Case(
            "bedrock-null-schema",
            [
                _bedrock("b1", "ModelInvocationLog"),
                _bedrock("b2", None),
                _bedrock("b3", "ModelInvocationLog", None),
                _bedrock("b4", "Other"),
            ],
            preset="bedrock",
        ),
        Case(
            "new-api-float-type",
            [
                new_api(1, 2),
                new_api(2, 2.0),
                new_api(3, None),
                new_api(4, "2"),
                new_api(5, 2, None),
            ]
            + [new_api(6, 5.0, model_name=None), new_api(7, 1), new_api(8, 2, username=None)],
            preset="new-api",
        ),
        Case(
            "envelope",
            [*c, json.dumps({"data": [rec("e1"), rec("e2")]}), json.dumps({"data": rec("e3")})],
        ),
        Case("json-in-string", [*c, json.dumps({"data": json.dumps(rec("s1"))})]),
        Case(
            "rule-field-in-json-string",
            [_input_as("j1", '"{\\"inputTokenCount\\": 700000}"')]
            + [_input_as("j2", '" {\\"inputTokenCount\\": \\"x\\"}"')]
            + [_input_as("j3", '"not json"'), _bedrock("j4", "ModelInvocationLog")]
            + [_bedrock("j5", "ModelInvocationLog", None)],
            preset="bedrock",
        ),
        Case(  # json39: a string holding JSON below the first key, a string inside a string
            "json-string-deep",
            [
                json.dumps(span("o1")),
                json.dumps(span("o2", None)),
                json.dumps(span("o3", model="x")),
            ]
            + [
                nest(span("d1"), "attributes.llm"),
                nest(span("d2"), "attributes", "attributes.llm"),
            ]
            + [nest(span("d3"), "attributes.llm.token_count")]
            + [nest(span("d4", 5), "attributes", "attributes.llm", "attributes.llm.token_count")]
            + [nest(span("d5"), "context"), nest(span("d6", model="gpt-4o"), "attributes.llm")],
            preset="openinference",
        ),
        Case(  # json39: a rule's null test inside a string (kind null: not an LLM call locally)
            "rule-null-in-json-string",
            [
                json.dumps(span("o1")),
                json.dumps(span("o2", None)),
                json.dumps(span("o3", model="x")),
            ]
            + [
                nest(span("n1", kind=None), "attributes"),
                nest(span("n2", kind=None), "attributes.openinference"),
            ]
            + [nest(span("n3", kind=None), "attributes", "attributes.openinference.span")]
            + [nest(span("n4", kind="CHAIN"), "attributes.openinference.span")]
            + [
                nest(span("n5"), "attributes.openinference"),
                nest(span("n6", kind=""), "attributes"),
            ],
            preset="openinference",
        ),
        Case(  # json39: a string holding lax JSON stays closed, as the local (strict) reader
            "lax-json-in-string",
            [
                json.dumps(span("o1")),
                json.dumps(span("o2", None)),
                json.dumps(span("o3", model="x")),
            ]
            + [nest(span("l1"), "attributes.llm").replace('3}}"', '3},}"')]
            + [nest(span("l2"), "attributes.llm").replace('"completion\\": 3', '"x\\": NaN')]
            + [nest(span("l3", kind="CHAIN"), "attributes").replace('"{', '"\\f{', 1)]
            + [
                nest(span("l4", kind=None), "attributes.openinference").replace(
                    '}}"', '}}\\t junk"'
                )
            ],
            preset="openinference",
        ),
        Case(  # json39: quotes doubled once too often (Helicone's export CSV landed as NDJSON)
            "doubled-quotes",
            [_helicone("h1", {"messages": []}), _helicone("h2", {}, None)]
            + [_helicone("h3", json.dumps({"_type": "tool"}).replace('"', '""'))]
            + [_helicone("h4", json.dumps({"_type": "chat"}).replace('"', '""'))]
            + [_helicone("h5", json.dumps({"_type": "data"}))]
            + [_helicone("h6", '{""_type"": ""vector_db"", ""note"": ""say """"hi""""""}')],
            preset="helicone",
        ),
        Case(  # acc39 B1: lone surrogate escapes (a cut emoji) are read as U+FFFD everywhere
            "lone-surrogates",
            [*c, line("u1", prompt="emoji cut here \ud83d"), line("u2", prompt="\udc00 low")]
            + [
                line("u3", prompt="reversed \ude00\ud83d"),
                line("u4\U0001f600", prompt="pair \U0001f600"),
            ]
            + [line("u5", prompt="\\ud83d"), line("u6\ud800"), line("u7", **{"k\ud83d": 1})]
            + [line("u8", account_id="acct\ud83d", session_id="\udbff\udfff\udbff")]
            + [line("u9", None, prompt="x\ud83d"), line("u10\udc00", model="gpt-4o\ud83d")]
            + [line("u11", request_id="\\\ud83d\\\\ud83d")],
        ),
        Case(  # acc39 B1 as found: 5,000 clean records and one cut emoji (the fast path)
            "cut-emoji-in-5000",
            [*c]
            + [line(f"c{i}", 1000 + i, prompt="hi") for i in range(2500)]
            + [line("cut", prompt="emoji cut here \ud83d")]
            + [line(f"c{i}", 1000 + i, prompt="hi") for i in range(2500, 5000)],
        ),
        Case(  # acc39 B1: a lone surrogate escape inside a string holding JSON
            "lone-surrogate-in-json-string",
            [
                json.dumps(span("o1")),
                json.dumps(span("o2", None)),
                json.dumps(span("o3", model="x")),
            ]
            + [nest(span("w1") | {"note": "\ud83d"}, "attributes.llm")]
            + [nest(_noted(span("w2", kind="CHAIN"), "\udc00"), "attributes.openinference")]
            + [nest(_noted(span("w3"), "\\ud83d\U0001f600"), "attributes", "attributes.llm")],
            preset="openinference",
        ),
        Case(
            "out-of-range-time",
            [*c] + [line(f"o{i}", timestamp=t) for i, t in enumerate(OUT_OF_RANGE)],
        ),
        Case("bad-tokens", [*c] + [line(f"k{i}", t) for i, t in enumerate(BAD_TOKENS)]),
        Case(
            "max-tokens",
            [*c, line("x1", 2**63 - 1), line("x2", 2**63 - 1), line("x3", 5)],
            options={"min_prompt_tokens": 2**63 - 1},
        ),
        Case(
            "epoch-4400-digits",
            [*c, '{"timestamp": ' + "1" * 4400 + ', "model": "glm-5.3", "prompt_tokens": 1}'],
        ),
        Case(
            "epoch-100ns",
            [
                *c,
                line("e1", timestamp="1787788799.9999999"),
                line("e2", timestamp="1787788800.0000001"),
                line("e3", timestamp="1787788799999.9999"),
            ],
        ),
        Case(
            "deep-nesting",
            [
                *c,
                '{"timestamp": "2026-09-01T10:00:00Z", "model": "glm-5.3", "x": '
                + "[" * 600
                + "]" * 600
                + "}",
            ],
        ),
    ]


def answer(doc: dict[str, Any]) -> dict[str, Any]:
    """What every path must agree on, from a scope document."""
    return {
        "counts": doc["counts"],
        "affected": sorted(doc["affected"]["request_ids"]),
        "possibly_affected": sorted(doc["possibly_affected"]["request_ids"]),
        "non_request_reasons": doc["breakdown"]["non_request_reasons"],
        "requests": doc["breakdown"]["requests"],
        "prompt_tokens_total": doc["disclosed"]["prompt_tokens_total"],
        "binary_skips": {  # json39: NUL and not-UTF-8 lines carry the local reason
            k: n for k, n in doc["breakdown"]["skipped_reasons"].items() if "binary" in k
        },
        "verdict": doc["verdict"],
    }


def _run(fn: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
    try:
        return answer(fn(*args, **kwargs).result.model_dump(mode="json"))
    except AssessError as exc:  # the same refusal on two paths is the same answer
        return {"error": type(exc).__name__}


def local_ndjson(case: Case, tmp: Path) -> dict[str, Any]:
    path = tmp / f"{case.id}.ndjson"
    path.write_bytes(case.ndjson())
    return _run(scope_run, [str(path)], preset=case.preset, **case.options)


def records(case: Case) -> list[Any] | None:
    """The case's records when every line is one strict JSON value, else None (an object's
    duplicate keys: the first, as every reader takes it; a Parquet row cannot hold two)."""
    try:
        return [exactjson.loads(x) for x in case.lines]
    except orjson.JSONDecodeError:
        return None


def local_array(case: Case, tmp: Path) -> dict[str, Any] | None:
    if records(case) is None:
        return None
    text = [x.decode("utf-8") if isinstance(x, bytes) else x for x in case.lines]
    path = tmp / f"{case.id}.json"
    path.write_text("[\n" + ",\n".join(text) + "\n]\n")
    return _run(scope_run, [str(path)], preset=case.preset, **case.options)


def local_parquet(case: Case, tmp: Path) -> dict[str, Any] | None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = records(case)
    if rows is None or not all(isinstance(r, dict) for r in rows):
        return None
    try:
        table = pa.Table.from_pylist(rows)
    except (pa.ArrowException, OverflowError, TypeError):
        return None
    path = tmp / f"{case.id}.parquet"
    pq.write_table(table, path)
    return _run(scope_run, [str(path)], preset=case.preset, **case.options)


#: docs/scope-remote.md's DuckDB recipe: ``assess_logs(line)`` over NDJSON files ({path}). Each file
#: is read whole as bytes and split at ``\n`` only (``read_csv`` also ends a line at a raw ``\r``,
#: which is JSON whitespace: acc39b #1): a BLOB cast to VARCHAR escapes every byte outside
#: printable ASCII, the backslash and the quote as ``\xNN``, so ``\x0A`` there is exactly a newline
#: byte; each piece is cast back to its bytes. A line longer than 16 MiB (the local
#: ``--max-line-bytes`` default) becomes ``\x01`` (not JSON), a line holding a NUL one NUL (the
#: query's "binary data, not JSON"), a line that is not UTF-8 NUL and ``\x01`` (its "binary data,
#: not UTF-8 JSON"), the local reasons. A UTF-8 BOM opening the file is dropped, as the local
#: readers drop it (accfinal N1: kept, it made line 1 not JSON: a false all-clear).
DUCKDB_RECIPE = (
    "CREATE OR REPLACE TEMP TABLE assess_lines AS SELECT piece::BLOB AS bytes FROM (SELECT "
    "unnest(string_split(CASE WHEN starts_with(content::VARCHAR, '\\xEF\\xBB\\xBF') THEN "
    "substr(content::VARCHAR, 13) ELSE content::VARCHAR END, '\\x0A')) AS piece "
    "FROM read_blob('{path}'))",
    "CREATE OR REPLACE VIEW assess_logs AS SELECT CASE WHEN octet_length(bytes) > 16777216 "
    "THEN chr(1) WHEN strpos(bytes::VARCHAR, '\\x00') > 0 THEN chr(0) WHEN try(decode(bytes)) "
    "IS NULL THEN chr(0) || chr(1) ELSE decode(bytes) END AS line FROM assess_lines",
)


def duckdb_lines(con: Any, path: Path) -> None:
    """``assess_logs(line)`` over an NDJSON file, as docs/scope-remote.md's recipe makes it."""
    for statement in DUCKDB_RECIPE:
        con.execute(statement.format(path=path))


def engine_answer(case: Case, dialect: str, result: Path) -> dict[str, Any]:
    return _run(scope_engine_run, result, preset=case.preset, **case.options)


def duckdb_answer(case: Case, tmp: Path) -> dict[str, Any]:
    import duckdb

    path = tmp / f"{case.id}.ndjson"
    path.write_bytes(case.ndjson())
    con = duckdb.connect()
    con.execute("SET TimeZone = 'America/New_York'")
    duckdb_lines(con, path)
    out = tmp / f"{case.id}.duckdb.parquet"
    try:
        query = emit_sql("duckdb", preset=case.preset, **case.options)
    except AssessError as exc:
        return {"error": type(exc).__name__}
    try:
        con.execute(f"COPY ({query.sql}) TO '{out}' (FORMAT parquet)")
    except duckdb.Error as exc:
        return {"engine error": type(exc).__name__}
    return engine_answer(case, "duckdb", out)


def spark_answer(case: Case, tmp: Path, spark: Any) -> dict[str, Any]:
    path = tmp / f"{case.id}.ndjson"
    path.write_bytes(case.ndjson())
    try:
        query = emit_sql("spark", preset=case.preset, **case.options)
    except AssessError as exc:
        return {"error": type(exc).__name__}
    spark.read.option("lineSep", "\n").text(str(path)).withColumnRenamed(
        "value", "line"
    ).createOrReplaceTempView("assess_logs")
    out = tmp / f"{case.id}.spark"
    try:
        spark.sql(query.sql).coalesce(1).write.parquet(str(out))
    except Exception as exc:  # noqa: BLE001 - py4j and Spark errors have no common base
        return {"engine error": type(exc).__name__}
    (part,) = out.glob("part-*.parquet")
    return engine_answer(case, "spark", part)
