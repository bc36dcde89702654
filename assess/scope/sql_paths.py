"""Dotted paths in the scoping query (see :mod:`assess.scope.sql`), walked as
:func:`assess.scope.logs.paths.get_path` walks them.

The local reader opens a string holding JSON at any level of a path (a stringified ``metadata``
column, a string inside such a string) and JSON whose quotes were doubled once more than CSV needs
(Helicone's export CSV: ``{""k"":""v""}``). The query does the same one level at a time: a
:class:`Walk` gives each prefix of a path a column holding that prefix's node as JSON text, the
child of the parent's column (``ASSESS_JSON_CHILD``: an object's or array's JSON text, a string's
contents), opened when it starts with ``{`` or ``[`` and is JSON as it stands or with ``""`` read
as ``"``, and strict JSON as the local reader parses it (:mod:`assess.scope.sql_json`'s check, for
a child that was a JSON string; a lone surrogate escape in it read as U+FFFD, as in the line),
else NULL. Six CTEs per level (:meth:`Walk.ctes`), so the text
grows with the number of prefixes, not with the nesting. A field is then read as before from the
line (the whole dotted key, then the nested path) and otherwise from its parent's column; a rule's
null and number tests read the JSON type there too.
"""

from __future__ import annotations

import re

from assess.scope.sql_json import (
    PASSES,
    collapsed,
    json_tokens,
    strict_json,
    without_lone_surrogates,
)
from assess.scope.sql_time import lit

#: A string the local reader tries to parse as JSON (paths._maybe_json): ``{`` or ``[`` first.
_OPENS = r"^\s*[\[{]"


def json_path(path: str, flat: bool = False) -> str:
    """Return the JSONPath of a dotted path (``a.0.b`` -> ``$.a[0].b``); ``flat``: one key."""
    keys = [path] if flat else path.split(".")
    out = "$"
    for key in keys:
        if key.isdigit() and not flat:
            out += f"[{key}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            out += f".{key}"
        else:
            out += '."' + key.replace('"', '\\"') + '"'
    return out


def _opened(raw: str) -> str:
    """``raw`` (a child's text) as the JSON text the local reader walks into, or NULL."""
    undoubled = f"REPLACE({raw}, '\"\"', '\"')"
    return (
        f"CASE WHEN REGEXP_MATCHES({raw}, {lit(_OPENS)}) THEN CASE WHEN JSON_VALID({raw}) "
        f"THEN {raw} WHEN JSON_VALID({undoubled}) THEN {undoubled} END END"
    )


class Walk:
    """The nodes the query opens on the way to each dotted path: one column per prefix."""

    def __init__(self) -> None:
        self.nodes: dict[tuple[str, ...], str] = {}

    def node(self, keys: tuple[str, ...]) -> str:
        """The column holding the node at ``keys`` as JSON text (``()``: the line)."""
        if not keys:
            return "line"
        if keys not in self.nodes:
            self.node(keys[:-1])
            self.nodes[keys] = f"node_{len(self.nodes)}"
        return self.nodes[keys]

    def _split(self, path: str) -> tuple[str, str, str, str]:
        """(the whole dotted key's JSONPath, the nested JSONPath, the parent's column, the
        last key's JSONPath in it)."""
        keys = tuple(path.split("."))
        return json_path(path, True), json_path(path), self.node(keys[:-1]), json_path(keys[-1])

    def extract(self, path: str) -> str:
        """The text at ``path``; a key equal to the whole dotted path wins, as in get_path."""
        if "." not in path:
            return f"json_extract_string(line, {lit(json_path(path))})"
        flat, nested, parent, last = self._split(path)
        texts = [f"json_extract_string(line, {lit(p)})" for p in (flat, nested)]
        return f"COALESCE({', '.join(texts)}, json_extract_string({parent}, {lit(last)}))"

    def is_null(self, path: str) -> str:
        """SQL true when the value get_path finds at ``path`` is JSON null."""
        if "." not in path:
            return f"ASSESS_JSON_NULL(line, {lit(json_path(path))}, '$', {lit(path)})"
        flat, _, parent, last = self._split(path)
        key = path.rsplit(".", 1)[1]
        whole = f"ASSESS_JSON_NULL(line, {lit(flat)}, '$', {lit(path)})"
        inside = f"ASSESS_JSON_NULL({parent}, {lit(last)}, '$', {lit(key)})"
        return f"({whole} OR (json_extract_string(line, {lit(flat)}) IS NULL AND {inside}))"

    def json_type(self, path: str) -> str:
        """DuckDB's JSON type of the value get_path finds at ``path`` (DuckDB only)."""
        if "." not in path:
            return f"json_type(line, {lit(json_path(path))})"
        flat, _, parent, last = self._split(path)
        return f"COALESCE(json_type(line, {lit(flat)}), json_type({parent}, {lit(last)}))"

    def _child(self, keys: tuple[str, ...]) -> str:
        parent = self.node(keys[:-1])
        child = f"ASSESS_JSON_CHILD({parent}, {lit(json_path(keys[-1]))})"
        return f"CASE WHEN ok THEN {child} END" if parent == "line" else child

    def _steps(self, keys: tuple[str, ...]) -> list[str]:
        """The columns that open the node at ``keys``, one CTE each: the child's text and
        whether it is a JSON string (an object or array in a strict line is strict), that text
        with its lone surrogates read as U+FFFD, the text to open, its JSON tokens, those
        collapsed, then the node when it is strict JSON."""
        n = self.nodes[keys]
        parent, key = self.node(keys[:-1]), lit(json_path(keys[-1]))
        held = f"ASSESS_JSON_STRING({parent}, {key})"
        if parent == "line":  # CASE, not AND: DuckDB evaluates both sides of an AND
            held = f"CASE WHEN ok THEN {held} END"
        held = f"COALESCE({held}, FALSE)"
        strict = strict_json(f"tok_{n}", f"before_{n}", collapsed(f"before_{n}"))
        return [
            f"{self._child(keys)} AS raw_{n}, {held} AS str_{n}",
            f"{without_lone_surrogates('raw_' + n)} AS read_{n}",
            f"{_opened('read_' + n)} AS cand_{n}",
            f"CASE WHEN str_{n} THEN {json_tokens('cand_' + n)} ELSE '0' END AS tok_{n}",
            f"{collapsed('tok_' + n, PASSES - 1)} AS before_{n}",
            f"CASE WHEN {strict} THEN cand_{n} END AS {n}",
        ]

    def ctes(self, source: str) -> tuple[list[str], str]:
        """The CTEs that open each level's nodes from ``source`` (which has ``line`` and
        ``ok``), six a level, and the name of the last one."""
        out: list[str] = []
        depth = max((len(k) for k in self.nodes), default=0)
        for level in range(1, depth + 1):
            steps = [self._steps(k) for k in self.nodes if len(k) == level]
            for step in range(len(steps[0])):
                name = f"walk{level}_{step}"
                columns = ", ".join(columns[step] for columns in steps)
                out.append(f"{name} AS (\n  SELECT *, {columns} FROM {source}\n)")
                source = name
        return out, source
