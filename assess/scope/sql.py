"""The scoping query for a distributed engine, from one definition, in each engine's dialect.

One definition, written once here in DuckDB's SQL from the preset (field paths, non-request rules,
timestamp format) and the filter (model names, window, threshold), is transpiled by sqlglot into
Spark, Trino, Athena and BigQuery SQL; the one function sqlglot does not map (is this text JSON?) is
rewritten per dialect (:data:`_JSON_VALID`). The query reads a table of raw NDJSON lines
(``assess_logs(line)``, see docs/scope-remote.md) and mirrors the reference reader
(:func:`assess.scope.logs.records.classify`) rule for rule: blank lines are not records; a line that
is not a JSON object is skipped; a non-request rule's rows are counted by reason; no timestamp and
no model, no timestamp, an unparseable timestamp or token count are skipped; the rest are requests.
Timestamps become UTC nanoseconds by integer arithmetic (no session time zone); model ids are
normalised as :func:`assess.kernel.model_ids.normalise_model_id` does, by regular expressions.

The result set is one table: ``kind = 'row'`` rows are the in-scope requests (prompt and response
only for tokens over the trigger or unknown); ``kind = 'total'`` rows carry ``name`` and ``n``: the
records of each outcome (a skip or non-request reason, or a request by model id, matched or not),
the rows and records the query counted (``expect:rows``, ``expect:records``: a part of a sharded
export is told from the whole by them), and constants naming the dialect, fingerprint and preset,
which ``--from-engine-results`` checks.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from assess.kernel.errors import UsageError
from assess.kernel.model_ids import BUILD_SUFFIXES
from assess.scope.fields import CANONICAL_FIELDS, EXPOSURE_FIELDS, INTEGER_FIELDS
from assess.scope.filter import threshold, window_ns, with_preset
from assess.scope.logs.presets import Preset
from assess.scope.logs.timestamps import OUT_OF_RANGE
from assess.scope.models import ScopeFilter
from assess.scope.sql_json import (
    GROUP_REFERENCES,
    PASSES,
    collapsed,
    json_tokens,
    strict_json,
    without_lone_surrogates,
)
from assess.scope.sql_paths import Walk
from assess.scope.sql_rules import ENVELOPE, JSON_FORMS, condition, envelope, typed_rule
from assess.scope.sql_source import COLUMN, TABLE, source_names, substitute
from assess.scope.sql_time import (
    ISO_PARTS,
    NUMBER,
    epoch_ns,
    iso_part,
    iso_seconds,
    plain_number,
    seconds_ns,
    strip,
)
from assess.scope.sql_time import lit as lit

#: ``--emit-sql`` dialects and sqlglot's name for each.
DIALECTS = {
    "duckdb": "duckdb",
    "spark": "spark",
    "athena": "athena",
    "trino": "trino",
    "bigquery": "bigquery",
}
SOURCE_TABLE = "assess_logs"
#: Columns of the result set, in order: three of the totals' rows, then the canonical fields with
#: the timestamp as UTC nanoseconds.
RESULT_COLUMNS = ("kind", "name", "n", "timestamp_ns", *CANONICAL_FIELDS[1:])
_TEXT = tuple(f for f in CANONICAL_FIELDS if f not in (*INTEGER_FIELDS, "model"))
# assess.kernel.model_ids, as regular expressions (RE2, Java and DuckDB alike)
_SUFFIX = r"^(.*?)(?:-v\d+:\d+|:\d+|:[a-z]+)?$"
_PREFIX = r"^(?:(?:us|eu|apac|global|us-gov|jp|au|ca|zai|z-ai)\.)*(.+)$"
_BUILD = rf"^(.*?)(?:[-_.](?:{BUILD_SUFFIXES}))*$"
_COUNT = r"^[0-9]+(?:\.0)?$"
_DIGITS = r"^([0-9]+)"
_NOT_BLANK = r"\S"
_OBJECT = r"^\s*\{"


@dataclass(frozen=True)
class Query:
    """A scoping query: its dialect, text, and the fingerprint of the definition it came from."""

    dialect: str
    sql: str
    definition: str


def _first(walk: Walk, paths: list[str], skip: Sequence[str] = ()) -> str:
    """The first of ``paths`` whose text is not null, "" or one of ``skip`` (placeholders)."""
    texts = [walk.extract(p) for p in paths]
    for value in ("", *skip):
        texts = [f"NULLIF({t}, {lit(value)})" for t in texts]
    return f"COALESCE({', '.join(texts)})" if texts else "CAST(NULL AS VARCHAR)"


def _non_request(preset: Preset, walk: Walk) -> str:
    if not preset.non_request:
        return "CAST(NULL AS VARCHAR)"
    cases = " ".join(
        f"WHEN {condition(r.when, walk)} THEN {lit(r.reason)}" for r in preset.non_request
    )
    return f"CASE {cases} END"


def _tokens() -> tuple[str, str]:
    """(prompt tokens or NULL for unknown, whether the count is accepted) from ``tok_raw``."""
    text = f"REPLACE({strip('tok_raw')}, '_', '')"
    whole = f"TRY_CAST(REGEXP_EXTRACT({text}, {lit(_DIGITS)}, 1) AS BIGINT)"
    shaped = f"REGEXP_MATCHES({text}, {lit(_COUNT)})"
    return f"NULLIF({whole}, 0)", f"(tok_raw IS NULL OR ({shaped} AND {whole} IS NOT NULL))"


def _model(column: str) -> str:
    """The normalised model id of ``column`` (see assess.kernel.model_ids)."""
    last = f"REGEXP_EXTRACT(LOWER({strip(column)}), {lit('([^/]*)$')}, 1)"
    bare = f"REGEXP_EXTRACT({last}, {lit(_SUFFIX)}, 1)"
    kept = f"CASE WHEN {bare} = '' THEN {last} ELSE {bare} END"
    built = f"REGEXP_EXTRACT({kept}, {lit(_BUILD)}, 1)"
    named = f"CASE WHEN {built} = '' THEN {kept} ELSE {built} END"
    return f"REGEXP_EXTRACT({named}, {lit(_PREFIX)}, 1)"


_ON_FILES = "Scope these logs with `assess scope` on the files (the query does not do that)."


def definition(preset: Preset, scope: ScopeFilter, table: str, column: str) -> str:
    """Return the one definition: the scoping query in DuckDB's SQL."""
    if preset.join is not None:
        raise UsageError(f"--emit-sql: preset {preset.id} joins a side table", _ON_FILES)
    if preset.no_sql:
        raise UsageError(f"--emit-sql: preset {preset.id}: {preset.no_sql}", _ON_FILES)
    if any("[" in p or "*" in p for ps in preset.fields.values() for p in ps):
        raise UsageError("--emit-sql: a path selects a key in brackets or any key (*)", _ON_FILES)
    ctes = [_fields(preset, table, column), _typed(preset), _classified(scope)]
    return "\nWITH " + ",\n".join(ctes) + "\n" + _select(threshold(scope))


def _fields(preset: Preset, table: str, column: str) -> str:
    """CTEs src, parsed, the walk's (the nodes of dotted paths), f: the records (non-blank
    lines, each lone surrogate escape read as U+FFFD), which are objects, their raw fields."""
    fields, skip, walk = preset.fields, preset.no_value, Walk()
    first = {n: _first(walk, fields.get(n, []), skip.get(n, ())) for n in _TEXT}
    texts = ", ".join(f"CASE WHEN ok THEN {first[n]} END AS {n}" for n in _TEXT)
    raw = {n: _first(walk, fields.get(n, [])) for n in ("timestamp", "model", "prompt_tokens")}
    rules = _non_request(preset, walk)
    walked, source = walk.ctes("parsed")
    return f"""src AS (
  SELECT {without_lone_surrogates(column)} AS line
  FROM {table} WHERE REGEXP_MATCHES({column}, {lit(_NOT_BLANK)})
), lexed AS (
  SELECT line, JSON_VALID(line) AND REGEXP_MATCHES(line, {lit(_OBJECT)}) AS valid,
    {json_tokens("line")} AS tokens
  FROM src
), folded AS (
  SELECT line, valid, tokens, {collapsed("tokens", PASSES - 1)} AS before FROM lexed
), parsed AS (
  SELECT line, ASSESS_UNDECODED(line) AS undecoded, ASSESS_HOLDS_NUL(line) AS nul,
    valid AND {strict_json("tokens", "before", "last")} AS ok
  FROM (SELECT line, valid, tokens, before, {collapsed("before")} AS last FROM folded) AS l
), {"".join(w + ", " for w in walked)}f AS (
  SELECT ok, undecoded, nul,
    CASE WHEN ok THEN {rules} END AS non_request,
    CASE WHEN ok THEN json_extract(line, '$.error') END AS error,
    CASE WHEN ok THEN {envelope()} END AS envelope,
    CASE WHEN ok THEN {raw["timestamp"]} END AS ts_raw,
    CASE WHEN ok THEN {raw["model"]} END AS model_raw,
    CASE WHEN ok THEN {raw["prompt_tokens"]} END AS tok_raw,
    {texts}
  FROM {source}
)"""


def _typed(preset: Preset) -> str:
    """CTEs iso_text, iso, typed: timestamps in UTC nanoseconds, token counts, model ids."""
    fmt = preset.timestamp_format
    tokens, tokens_ok = _tokens()
    parts = ", ".join(f"{iso_part(i)} AS {name}_text" for i, name in enumerate(ISO_PARTS))
    numbers = ", ".join(
        f"TRY_CAST(COALESCE(NULLIF({name}_text, ''), '0') AS BIGINT) AS {name}"
        for name in ("y", "mo", "d", "h", "mi", "s")
    )
    epoch = epoch_ns(fmt) if fmt != "iso" else "CAST(NULL AS BIGINT)"
    iso = "y_text <> '' AND NOT is_number" if fmt in ("auto", "iso") else "FALSE"
    # an instant read but outside int64 nanoseconds is out of range (timestamps.check_timestamp)
    outside = "is_number" if fmt != "iso" else "FALSE"
    return f"""num AS (
  SELECT *, {plain_number("ts_raw")} AS ts_num FROM f
), iso_text AS (
  SELECT *, REGEXP_MATCHES(ts_num, {lit(NUMBER)}) AS is_number, {parts} FROM num
), iso AS (
  SELECT *, {numbers},
    CAST(RPAD(COALESCE(frac_text, ''), 9, '0') AS BIGINT) AS frac,
    NULLIF(zone_text, '') AS zone
  FROM iso_text
), secs AS (
  SELECT *, CASE WHEN {iso} THEN {iso_seconds()} END AS iso_s FROM iso
), typed AS (
  SELECT *,
    CASE WHEN is_number THEN {epoch} WHEN iso_s IS NOT NULL THEN {seconds_ns("iso_s", "frac")}
      END AS ts_ns,
    {tokens} AS prompt_tokens, {tokens_ok} AS tokens_ok, {_model("model_raw")} AS model_id
  FROM secs
), ranged AS (
  SELECT *, (ts_ns IS NULL AND ({outside} OR iso_s IS NOT NULL)) AS ts_out FROM typed
)"""


def _classified(scope: ScopeFilter) -> str:
    """CTEs c (each record's outcome, in the order of records.classify) and kept (in scope)."""
    names = ", ".join(lit(n) for n in scope.model_names)
    since, until = window_ns(scope)
    return f"""c AS (
  SELECT *,
    CASE WHEN undecoded THEN 'skip:binary data, not UTF-8 JSON'
      WHEN nul THEN 'skip:binary data, not JSON'
      WHEN NOT ok THEN 'skip:not a JSON object'
      WHEN non_request IS NOT NULL THEN 'non_request:' || non_request
      WHEN ts_raw IS NULL AND model_raw IS NULL AND envelope THEN {lit("skip:" + ENVELOPE)}
      WHEN ts_raw IS NULL AND model_raw IS NULL AND error IS NOT NULL
        THEN 'skip:error envelope, not a request record'
      WHEN ts_raw IS NULL AND model_raw IS NULL
        THEN 'skip:no timestamp and no model: not a request record'
      WHEN ts_raw IS NULL THEN 'skip:missing timestamp'
      WHEN ts_out THEN {lit("skip:timestamp " + OUT_OF_RANGE)}
      WHEN ts_ns IS NULL THEN 'skip:unparseable timestamp'
      WHEN NOT tokens_ok THEN 'skip:unparseable prompt_tokens'
      ELSE 'request' END AS outcome,
    COALESCE(model_id IN ({names}), FALSE) AS matched
  FROM ranged
), kept AS (
  SELECT * FROM c WHERE outcome = 'request' AND matched AND ts_ns BETWEEN {since} AND {until}
)"""


def _select(threshold: int) -> str:
    """The result set: in-scope rows (texts where the scoping needs them), each distinct one
    once with ``n`` the records it stands for (so a whole result holds no row twice: a repeated
    row is a part given twice), then the totals."""
    columns = ", ".join(RESULT_COLUMNS[3:])
    return f"""SELECT 'row' AS kind, CAST(NULL AS VARCHAR) AS name, COUNT(*) AS n, {columns}
FROM (
  SELECT ts_ns AS timestamp_ns, model_raw AS model, prompt_tokens, request_id, account_id,
    session_id, status,
    CASE WHEN prompt_tokens IS NULL OR prompt_tokens > {threshold} THEN prompt END AS prompt,
    CASE WHEN prompt_tokens IS NULL OR prompt_tokens > {threshold} THEN response END AS response,
    {", ".join(EXPOSURE_FIELDS)}
  FROM kept
) AS k
GROUP BY {columns}
UNION ALL
SELECT 'total', name, n, {_nulls()}
FROM (
  SELECT
    CASE WHEN outcome <> 'request' THEN outcome WHEN model_raw IS NULL THEN 'request:no_model'
      WHEN matched THEN 'matched:' || model_raw ELSE 'model:' || model_raw END AS name,
    COUNT(*) AS n
  FROM c
  GROUP BY 1
  UNION ALL SELECT 'expect:rows', COUNT(*) FROM kept
  UNION ALL SELECT 'expect:records', COUNT(*) FROM c
  UNION ALL SELECT {{marker}}, 0
) AS totals
"""


def _nulls() -> str:
    types = {"timestamp_ns": "BIGINT", "prompt_tokens": "BIGINT"}
    return ", ".join(f"CAST(NULL AS {types.get(name, 'VARCHAR')})" for name in RESULT_COLUMNS[3:])


def fingerprint(preset: Preset, scope: ScopeFilter) -> str:
    """Return the fingerprint (16 hex digits) of what the query depends on: not the platform
    binding of :func:`assess.scope.filter.with_preset`, which --from-engine-results applies to
    the rows read back (--emit-sql, before it, gave a bedrock or new-api result it refused).
    The filter is hashed bound to the preset on both sides (whatever fields the binding sets,
    one added later included), with the user's --served-by left out."""
    bound = with_preset(scope, preset).model_copy(
        update={"serving_platform": None, "own_overlap": True}  # read-back options, not the query
    )
    text = json.dumps(
        {"preset": preset.model_dump(mode="json"), "filter": bound.model_dump(mode="json")},
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


#: Dialects whose REGEXP_REPLACE names a group ``$1`` in the replacement (DuckDB, BigQuery: ``\1``).
_DOLLAR_GROUPS = ("spark", "trino", "athena")


def _dollar_group(node: Any) -> Any:
    from sqlglot import exp

    if isinstance(node, exp.Literal) and node.is_string and node.this in GROUP_REFERENCES:
        return exp.Literal.string("$" + node.this[1:])
    return node


def _json_valid(dialect: str) -> Callable[[Any], Any]:
    """Return the sqlglot rewrite of JSON_VALID(x) for ``dialect`` (sqlglot maps none), and of
    REGEXP_REPLACE's ``'g'`` (sqlglot keeps it for Trino, which takes three arguments)."""
    from sqlglot import exp, parse_one

    forms = {
        "spark": "GET_JSON_OBJECT(x, '$') IS NOT NULL",
        "trino": "TRY(JSON_PARSE(x)) IS NOT NULL",
        "athena": "TRY(JSON_PARSE(x)) IS NOT NULL",
        "bigquery": "SAFE.PARSE_JSON(x) IS NOT NULL",
    }

    def rewrite(node: Any) -> Any:
        if isinstance(node, exp.RegexpReplace) and dialect != "duckdb":
            node.set("modifiers", None)  # DuckDB's 'g': the others replace every match anyway
            if dialect in _DOLLAR_GROUPS:  # Java's replacement text names a group $1
                node.set("replacement", node.args["replacement"].transform(_dollar_group))
            return node
        if isinstance(node, exp.Anonymous) and node.name.upper() in JSON_FORMS:
            typed = JSON_FORMS[node.name.upper()](dialect, list(node.expressions))
            return parse_one(typed, read=DIALECTS[dialect])
        if dialect not in forms or not isinstance(node, exp.Anonymous):
            return node
        if node.name.upper() != "JSON_VALID":
            return node
        argument = node.expressions[0]
        form = parse_one(forms[dialect], read=DIALECTS[dialect])
        return form.transform(
            lambda n: argument.copy() if isinstance(n, exp.Column) and n.name == "x" else n
        )

    return rewrite


def scoping_query(
    preset: Preset,
    scope: ScopeFilter,
    dialect: str,
    table: str = SOURCE_TABLE,
    column: str = "line",
) -> Query:
    """Return the scoping query in ``dialect`` over ``table(column)`` of raw NDJSON lines
    (names as the dialect writes them, quoted in the query where they need it).

    Raises:
        UsageError: for an unknown dialect, a preset the query cannot express (a join), or a
            ``table``/``column`` that is not a table/column name in ``dialect``
            (:mod:`assess.scope.sql_source`).
    """
    import sqlglot

    if dialect not in DIALECTS:
        raise UsageError(
            f"--emit-sql '{dialect}': no such dialect", f"Use one of: {', '.join(DIALECTS)}."
        )
    names = source_names(table, column, dialect, DIALECTS[dialect])
    typed = typed_rule(preset)
    if typed is not None and dialect != "duckdb":
        raise UsageError(
            f"--emit-sql {dialect}: preset {preset.id} compares {typed} with numbers, and "
            f'{dialect}\'s JSON text functions give the number 2.0 and the string "2.0" as the '
            "same text (the local reader tells them apart)",
            "Emit the query for duckdb, or scope these logs with `assess scope` on the files.",
        )
    mark = fingerprint(preset, scope)
    marker = ", 0 UNION ALL SELECT ".join(
        lit(m) for m in (f"definition:{mark}", f"dialect:{dialect}", f"preset:{preset.id}")
    )
    source = definition(preset, scope, TABLE, COLUMN).replace("{marker}", marker)
    tree = sqlglot.parse_one(source, read="duckdb")
    tree = substitute(tree.transform(_json_valid(dialect)), *names)
    text = tree.sql(dialect=DIALECTS[dialect], pretty=True)
    return Query(dialect=dialect, sql=text + "\n", definition=mark)
