"""The columnar fast path: a preset's paths as an Arrow schema, canonical columns by compute.

Only the columns the filter needs are converted (never prompts). Every row the fast path is not
sure of (no timestamp or model, a timestamp it cannot parse, negative tokens, a row a non-request
rule may apply to) is flagged for the reference path in :mod:`assess.scope.logs.records`, and a
block whose types do not fit the plan is sent there whole. So the fast path changes speed, never
answers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from assess.scope.fields import CANONICAL_FIELDS, FAST_FIELDS, LOADED_FIELDS
from assess.scope.logs.paths import MISSING
from assess.scope.logs.presets import Condition, Preset
from assess.scope.logs.timestamps import TimestampFormat, parse_array, parse_timestamp
from assess.scope.models import TEXT

#: A timestamp text that is a bare number (polars writes a JSON number read as text so).
_BARE_NUMBER = r"^\s*-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?\s*$"


class NotColumnar(Exception):
    """This block (or file) cannot take the fast path; use the reference path."""


def _arrow_type(values: list[Any], default: pa.DataType) -> pa.DataType | None:
    kinds = {type(v) for v in values if v is not None}
    if not kinds:
        return default  # never seen in the sample: a later misfit sends its block to the slow path
    if kinds == {str}:
        return TEXT
    if kinds == {int}:
        return pa.int64()
    if all(issubclass(kind, datetime) for kind in kinds):
        return pa.timestamp("ns", tz="UTC")  # Parquet timestamps: only the column name is used
    if kinds <= {int, float}:
        return pa.float64()  # epoch seconds with fractions; tokens are then refused below
    return None  # floats, bools, objects or mixtures: not worth guessing


def _walk_sample(record: dict[str, Any], path: str) -> tuple[bool, Any]:
    """Return (path is flat key, value) in a sample record; raise NotColumnar when unsure."""
    if path in record:
        return True, record[path]
    if "[" in path or "*" in path:
        raise NotColumnar(f"'{path}' names a key in brackets or any key (*)")
    node: Any = record
    for part in path.split("."):
        if node is None:
            return False, None
        if not isinstance(node, dict):
            raise NotColumnar(f"'{path}' crosses a non-object value")
        if part not in node and any(k.startswith(part + ".") for k in node):
            raise NotColumnar(f"'{path}' reaches a key holding dots")
        node = node.get(part, None)
    return False, node


@dataclass(frozen=True)
class ColumnPlan:
    """An explicit Arrow schema for a preset's fast fields, and how to read them back."""

    schema: pa.Schema
    fields: dict[str, list[str]]
    rule_paths: list[str]
    missing_rules: bool
    timestamp_format: TimestampFormat
    #: Detail fields (ids, status) and prompt/response read as text (NDJSON only), from the
    #: lines of the rows the estimate asks for, never with the block: name -> flat keys.
    texts: dict[str, list[str]] = field(default_factory=dict)
    #: The non-request tests, in the order of ``rule_paths``.
    rules: list[Condition] = field(default_factory=list)
    #: Top-level columns polars may read as its Null type (see :func:`_unheld`).
    null_columns: frozenset[str] = frozenset()
    #: The account id's placeholder values (``Preset.no_value``): passed over like "".
    no_account: tuple[str, ...] = ()

    @classmethod
    def build(
        cls, preset: Preset, sample: Iterable[dict[str, Any]], details: bool = False
    ) -> ColumnPlan:
        """Plan from ``preset`` and sample records; ``details`` also plans the detail fields and
        prompt/response as text read from the lines of the rows asked for (by a reader that turns
        any JSON value into text, as ``polars.read_ndjson`` does; see ``TextRows``).

        Raises:
            NotColumnar: when a path has list indices, mixed types or crosses JSON strings.
        """
        records = [r for r in sample if isinstance(r, dict)]
        wanted = {name: preset.fields.get(name, []) for name in FAST_FIELDS}
        rule_paths = [rule.when.path for rule in preset.non_request]
        token_paths = set(wanted["prompt_tokens"])
        tree: dict[str, Any] = {}
        held: set[str] = set()  # the paths holding a value in some sampled record
        for path in {p for paths in wanted.values() for p in paths} | set(rule_paths):
            if any(part.isdigit() for part in path.split(".")):
                raise NotColumnar(f"'{path}' indexes a list")
            flat_votes, values = set(), []
            for record in records:
                flat, value = _walk_sample(record, path)
                if value is not None and value is not MISSING:
                    flat_votes.add(flat)
                    values.append(value)
            if values:
                held.add(path)
            kind = _arrow_type(values, pa.int64() if path in token_paths else TEXT)
            if kind is None or len(flat_votes) > 1:
                raise NotColumnar(f"'{path}' has values of mixed or nested types")
            parts = [path] if flat_votes == {True} else path.split(".")
            node = tree
            for part in parts[:-1]:
                child = node.setdefault(part, {})
                if not isinstance(child, dict):
                    raise NotColumnar(f"'{path}' overlaps another path")
                node = child
            if isinstance(node.get(parts[-1]), dict):
                raise NotColumnar(f"'{path}' overlaps another path")
            node[parts[-1]] = (kind, flat_votes == {True})
        # the details are only needed for the rows whose texts are (affected, possibly affected):
        # read with the texts, they cost nothing for the others (a third of polars' columns)
        texts = _text_columns(preset, records, tree) if details else {}
        return cls(
            schema=pa.schema(_fields(tree)),
            null_columns=_unheld(wanted, held, set(rule_paths), tree),
            fields={k: list(v) for k, v in wanted.items()},
            rule_paths=rule_paths,
            missing_rules=any(rule.when.missing for rule in preset.non_request),
            rules=[rule.when for rule in preset.non_request],
            timestamp_format=preset.timestamp_format,
            texts=texts,
            no_account=tuple(preset.no_value.get("account_id", ())),
        )

    def polars_schema(self, lean: bool = False) -> dict[str, Any]:
        """Return the plan's schema for ``polars.read_ndjson``; ``lean`` reads
        :attr:`null_columns` as polars' Null type."""
        import polars as pl

        def convert(kind: pa.DataType) -> Any:
            if pa.types.is_struct(kind):
                return pl.Struct({f.name: convert(f.type) for f in kind})
            return {TEXT: pl.String, pa.int64(): pl.Int64}.get(kind, pl.Float64)

        nulls = self.null_columns if lean else frozenset()
        return {f.name: pl.Null if f.name in nulls else convert(f.type) for f in self.schema}

    def _column(self, table: pa.Table, path: str) -> Any:
        if path in self.schema.names and path in table.column_names:
            return table.column(path)
        head, *rest = path.split(".")
        if head not in table.column_names:  # a CSV without that column: null everywhere
            return pa.nulls(table.num_rows, TEXT)
        column: Any = table.column(head)
        for part in rest:
            column = pc.struct_field(column, part)
        return column

    def _coalesce(self, table: pa.Table, name: str, skip: tuple[str, ...] | None = None) -> Any:
        """The first candidate column's value row by row; ``skip`` (text fields): values that
        are no value besides "" (as the record path's ``_first`` passes them over)."""
        paths = self.fields.get(name, [])
        if not paths:
            return pa.nulls(table.num_rows, TEXT)
        columns = [self._column(table, p) for p in paths]
        # a candidate absent from the whole block (a camelCase twin, say) has no say in its type
        columns = [c for c in columns if c.null_count < len(c)] or columns[:1]
        if len({c.type for c in columns}) > 1:
            raise NotColumnar(f"the paths of '{name}' have different types")
        kind = columns[0].type
        if skip is not None and (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
            empty = pa.array(["", *skip], kind)
            columns = [pc.if_else(pc.is_in(c, value_set=empty), None, c) for c in columns]
        return columns[0] if len(columns) == 1 else pc.coalesce(*columns)

    def may_round(self, table: pa.Table) -> bool:
        """True when a timestamp of ``table`` was a JSON number, which polars has read as a
        double (or a double's text): a block where one may have had more digits than a double
        holds is read by the reference path (:mod:`~assess.scope.logs.exactjson`)."""
        raw = self._coalesce(table, "timestamp")
        if pa.types.is_floating(raw.type):
            return True
        if not (pa.types.is_string(raw.type) or pa.types.is_large_string(raw.type)):
            return False
        return bool(pc.any(pc.match_substring_regex(raw, _BARE_NUMBER)).as_py())

    def extract(self, table: pa.Table) -> tuple[pa.Table, Any]:
        """Return (canonical table without text, mask of rows for the reference path).

        Raises:
            NotColumnar: when a column's type does not fit.
        """
        raw_ts = self._coalesce(table, "timestamp")
        stamps = parse_array(
            pa.concat_arrays(raw_ts.chunks) if isinstance(raw_ts, pa.ChunkedArray) else raw_ts,
            self.timestamp_format,
        )
        if stamps is None:
            stamps = pa.array(
                [parse_timestamp(v, self.timestamp_format) for v in raw_ts.to_pylist()],
                pa.int64(),
            )
        tokens = self._coalesce(table, "prompt_tokens")
        if not pa.types.is_integer(tokens.type) and self.fields.get("prompt_tokens"):
            raise NotColumnar("prompt_tokens are not integers")
        tokens = _as(tokens, pa.int64())
        model = _as(self._coalesce(table, "model"), TEXT)
        slow = pc.or_kleene(pc.is_null(stamps), pc.is_null(model))
        slow = pc.or_(slow, pc.fill_null(pc.less(tokens, 0), False))
        if self.missing_rules:
            slow = pa.array([True] * table.num_rows)
        for index, path in enumerate(self.rule_paths):
            rule = self.rules[index] if index < len(self.rules) else None
            slow = pc.or_(slow, _may_hold(rule, self._column(table, path)))
        columns = {
            "timestamp": stamps,
            "model": model,
            "prompt_tokens": pc.if_else(pc.equal(tokens, 0), None, tokens),
            "account_id": _as(self._coalesce(table, "account_id", self.no_account), TEXT),
        }
        nulls = pa.nulls(table.num_rows, TEXT)  # the loaded fields: filled for kept rows only
        return pa.table({name: columns.get(name, nulls) for name in CANONICAL_FIELDS}), slow


def _unheld(
    wanted: dict[str, list[str]], held: set[str], rule_paths: set[str], tree: dict[str, Any]
) -> frozenset[str]:
    """Return the top-level candidate columns no sampled record holds a value at, beside another
    candidate of the same field that does: a camelCase twin (``promptTokens`` beside
    ``prompt_tokens``), typically absent from the whole file.

    polars reads them as its Null type: each still costs a key lookup per row, but about a third
    less than a typed column of nulls (benchmark log: parsing +2.6% instead of +3.8% for the two
    twins). polars refuses a block where one holds a value after all; that block is read again
    with every column typed (see :func:`~assess.scope.logs.fast.blocks.parse_block`), so the
    answer never depends on it.
    """
    unheld: set[str] = set()
    for paths in wanted.values():
        if not any(p in held for p in paths):
            continue  # no candidate seen: the field's first path keeps the type it has now
        unheld.update(p for p in paths if p not in held and p in tree and p not in rule_paths)
    return frozenset(p for p in unheld if not isinstance(tree[p], dict))


def _may_hold(rule: Condition | None, column: Any) -> Any:
    """Return the mask of rows a non-request rule may apply to: they go by the record path, which
    decides (and counts the non-request with its reason); the other rows stay columnar.

    ``in`` and ``equals`` hold only on a listed value; ``not_in`` on any other value and on null
    (an explicit null is "not in" the list, a missing key is not: the record path tells them
    apart). A column of another type than text or integers, or no rule: every row with a value.
    """
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if rule is None:
        return pc.is_valid(column)
    listed = rule.in_ if rule.in_ is not None else rule.not_in
    values = list(listed) if listed is not None else [rule.equals]
    kind = column.type
    same: list[Any]
    if pa.types.is_integer(kind):
        same = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
        same = [v for v in values if isinstance(v, str)]
    else:
        return pc.is_valid(column)
    hit = pc.is_in(column, value_set=pa.array(same, kind))
    if rule.not_in is not None:
        return pc.fill_null(pc.invert(hit), True)
    if None in values:
        return pc.or_(pc.fill_null(hit, False), pc.is_null(column))
    return pc.fill_null(hit, False)


def _text_columns(
    preset: Preset, records: list[dict[str, Any]], tree: dict[str, Any]
) -> dict[str, list[str]]:
    """Return the detail and text fields (ids, status, prompt, response) whose every path is a
    plain top-level key (no dot) holding text in the sample (status: text or integers), so a
    text column gives what the reference path gives.

    A value of another type later (a list of messages, say) comes back as JSON text starting
    with ``[`` or ``{``; the reader re-reads such rows from their line (see ``needs_line``).
    Known difference left: a float where the sample held text or integers reads as polars
    prints it (``200`` for ``200.0``, where the reference path gives ``200.0``).
    """
    planned: dict[str, list[str]] = {}
    for name in LOADED_FIELDS:
        paths = preset.fields.get(name, [])
        allowed = (
            (str, int) if name in ("status", "output_tokens", "prompt_tokens_native") else (str,)
        )
        if not paths or name in preset.no_value or any(p in tree for p in paths):
            continue  # (placeholders: the record path's loader passes them over)
        fits = True
        for path in paths:
            if "." in path:
                fits = False  # a nested path (or a dotted key that could be nested later)
            for record in records:
                value = record.get(path)
                if value is not None and (
                    isinstance(value, bool) or not isinstance(value, allowed)
                ):
                    fits = False
        if fits:
            planned[name] = list(paths)
    return planned


def first_text(columns: list[Any]) -> Any:
    """Return the first non-empty text of ``columns`` row by row ("" is no value, as in the
    reference path)."""
    texts = [_as(c, TEXT) for c in columns]
    texts = [pc.if_else(pc.equal(t, ""), pa.scalar(None, TEXT), t) for t in texts]
    return texts[0] if len(texts) == 1 else pc.coalesce(*texts)


def needs_line(table: pa.Table, names: Iterable[str]) -> Any:
    """Return the mask of rows whose planned detail text came from a list or object."""
    mask = pa.array([False] * table.num_rows)
    for name in names:
        column = table.column(name)
        starts = pc.or_(pc.starts_with(column, "["), pc.starts_with(column, "{"))
        mask = pc.or_(mask, pc.fill_null(starts, False))
    return mask


def _as(column: Any, kind: pa.DataType) -> Any:
    return column if column.type == kind else column.cast(kind)


def _fields(tree: dict[str, Any]) -> list[pa.Field]:
    out = []
    for name, node in tree.items():
        if isinstance(node, dict):
            out.append(pa.field(name, pa.struct(_fields(node))))
        else:
            out.append(pa.field(name, node[0]))
    return out
