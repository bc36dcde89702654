"""The table and column the scoping query reads (``--source-table``, ``--source-column``), as
the dialect names them.

A name is read as the dialect's SQL reads it: ``my-project.logs.assess_logs`` (BigQuery, whose
project ids hold hyphens), `` `my-project.logs.assess_logs` ``, ``"my-db".assess_logs`` (Athena,
Trino, DuckDB), `` `my-db`.assess_logs `` (Spark). A dotted name of plain parts (letters, digits,
``_``, ``-``) that the dialect cannot read unquoted (``my-db.assess_logs`` for Athena) has each
part quoted. Anything else (a statement, an alias, a call, a space outside quotes, nothing) is
refused naming the option: the name goes into the query's text, and must stay a name there.
In the query, a part that is not a plain identifier is quoted.
"""

from __future__ import annotations

import re
from typing import Any

from assess.kernel.errors import UsageError

#: Placeholders of the definition's source table and column, replaced in the parsed query.
TABLE = "assess_source_table"
COLUMN = "assess_source_column"
_PLAIN = re.compile(r"[A-Za-z0-9_-]+")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_QUOTE = {"bigquery": "`", "spark": "`"}


def source_names(table: str, column: str, dialect: str, read: str) -> tuple[Any, Any]:
    """Return ``table`` as a sqlglot Table (catalog, schema and table at most) and ``column``
    as an Identifier, read in ``dialect`` (sqlglot's name ``read``).

    Raises:
        UsageError: naming the option, for text that is not such a name in the dialect.
    """
    from sqlglot import exp

    found = _parsed(table, read, exp.Table, 3)
    if found is None:
        raise _refused("--source-table", table, dialect, "a [catalog.][schema.]table", "my db.logs")
    named = _parsed(column, read, exp.Column, 1)
    if named is None:
        raise _refused("--source-column", column, dialect, "a column", "raw line")
    return found, named.this


def _parsed(text: str, read: str, into: Any, most: int) -> Any:
    """``text`` read in the dialect as a name of ``most`` parts at most (else a dotted name of
    plain parts, each part quoted), its parts quoted where not plain identifiers; or None."""
    from sqlglot import exp, parse_one
    from sqlglot.errors import SqlglotError

    try:
        node = parse_one(text, read=read, into=into)
    except (SqlglotError, ValueError):
        node = None
    if not (isinstance(node, into) and _names_only(node, most) and _no_empty_part(text, read)):
        parts = text.split(".")
        if len(parts) > most or not all(_PLAIN.fullmatch(p) for p in parts):
            return None
        quoted = [exp.to_identifier(p, quoted=True) for p in parts]
        if into is exp.Column:
            return exp.Column(this=quoted[0])
        return exp.Table(**dict(zip(("this", "db", "catalog"), reversed(quoted), strict=False)))
    for part in node.parts:
        if not _IDENTIFIER.fullmatch(part.name):
            part.set("quoted", True)
    return node


def _names_only(node: Any, most: int) -> bool:
    """Whether ``node`` is a name of identifiers only (no alias, call, join, ...)."""
    from sqlglot import exp

    parts = node.parts
    used = {key for key, value in node.args.items() if value}
    return (
        0 < len(parts) <= most
        and all(isinstance(p, exp.Identifier) and p.name for p in parts)
        and used <= {"this", "db", "catalog"}
    )


def _no_empty_part(text: str, read: str) -> bool:
    """Whether every dot of ``text`` (outside quotes) stands between two parts: sqlglot reads
    ``a..b`` as a name with an empty schema and ``.a`` as ``a``, which no engine would."""
    from sqlglot import TokenType
    from sqlglot.dialects.dialect import Dialect
    from sqlglot.errors import SqlglotError

    try:
        tokens = Dialect.get_or_raise(read).tokenize(text)
    except (SqlglotError, ValueError):
        return False
    quoted = {TokenType.IDENTIFIER, TokenType.STRING}
    shape = "".join(
        "." if t.token_type == TokenType.DOT else "q" if t.token_type in quoted else t.text
        for t in tokens
    )
    return all(shape.split("."))


def _refused(option: str, text: str, dialect: str, form: str, example: str) -> UsageError:
    q = _QUOTE.get(dialect, '"')
    quoted = ".".join(f"{q}{p}{q}" if " " in p else p for p in example.split("."))
    return UsageError(
        f"{option} {text!r}: not a {option.split('-')[-1]} name in {dialect} SQL",
        f"Give {form} name, as {dialect} SQL writes it; quote a part holding characters other "
        f"than letters, digits, _ and - as {dialect} does (e.g. {quoted}).",
    )


def substitute(tree: Any, table: Any, column: Any) -> Any:
    """Return the parsed query ``tree`` reading ``table`` and ``column`` (from
    :func:`source_names`) in place of the placeholders."""
    from sqlglot import exp

    def swap(node: Any) -> Any:
        if isinstance(node, exp.Table) and node.name == TABLE:
            return table.copy()
        if isinstance(node, exp.Column) and node.name == COLUMN:
            return exp.Column(this=column.copy())
        return node

    return tree.transform(swap)
