"""Tables that fit the terminal without cutting what they exist to show.

rich squeezes a table wider than the console by narrowing its columns below their longest word
(``_collapse_widths`` does not keep minimums), then folds or crops that word: a finding id split
mid-word, ``(affecte…``, ``prefill=681,2…``. :func:`print_table` renders the table at the
console's width first and checks that every word of every cell and header came out whole (a
word is what lies between spaces: ids, paths and numbers are single words). When one did not,
the rows are printed vertically instead, one ``header: value`` line each, wrapped at spaces
only, so no word is ever split (a word longer than the line stays whole on its own line).
"""

from __future__ import annotations

import io
import re
import textwrap
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

#: what separates words in a rendered table: white space and the boxes' vertical rules
_SEPARATORS = re.compile(r"[\s│┃┆┇┊┋║╎╏|]+")
#: the narrowest line the vertical layout wraps to
MIN_WIDTH = 20


def plain(cell: Any) -> str:
    """Return a cell's text without its markup (a str cell is rich markup, as in a Table)."""
    if isinstance(cell, Text):
        return cell.plain
    if isinstance(cell, str):
        return Text.from_markup(cell).plain
    return "" if cell is None else str(cell)


def table_rows(table: Table) -> tuple[list[str], list[list[str]]]:
    """Return the plain headers and rows of ``table``."""
    headers = [plain(column.header) for column in table.columns]
    columns = [[plain(cell) for cell in column.cells] for column in table.columns]
    return headers, [list(row) for row in zip(*columns, strict=True)]


def fits(table: Table, width: int) -> bool:
    """Return whether ``table`` rendered at ``width`` columns shows every word of its cells and
    headers whole (none folded across lines, none cropped with an ellipsis)."""
    out = io.StringIO()
    console = Console(
        file=out, width=width, color_system=None, force_terminal=False, highlight=False
    )
    console.print(table)
    shown = set(_SEPARATORS.split(out.getvalue()))
    headers, rows = table_rows(table)
    texts = [*headers, *(cell for row in rows for cell in row)]
    words = {word for text in texts for word in text.split()}
    return words <= shown


def print_table(console: Console, table: Table) -> None:
    """Print ``table`` whole when it fits the console's width (:func:`fits`), else vertically."""
    if fits(table, console.width):
        console.print(table)
    else:
        print_vertical(console, table)


def print_vertical(console: Console, table: Table) -> None:
    """Print the title, then each row (a blank line between rows): its short one-line cells
    packed as ``header: value  header: value`` lines (two spaces apart), each longer cell on
    lines of its own, wrapped at spaces only to the console's width."""
    width = max(console.width, MIN_WIDTH)
    if table.title:
        console.print(plain(table.title), markup=False, highlight=False)
    headers, rows = table_rows(table)
    for index, row in enumerate(rows):
        if index:
            console.print()
        for line in row_lines(headers, row, width):
            console.print(line, markup=False, highlight=False, soft_wrap=True)


def row_lines(headers: list[str], row: list[str], width: int) -> list[str]:
    """Return the lines of one row in the vertical layout (see :func:`print_vertical`)."""
    lines: list[str] = []
    packed = ""
    for header, value in zip(headers, row, strict=True):
        if not value.strip():
            continue  # an empty cell says nothing in this layout
        label = " ".join(header.split())
        piece = f"{label}: {value}" if label else value
        if "\n" not in value and len(piece) <= width // 2:
            if packed and len(packed) + 2 + len(piece) <= width:
                packed += "  " + piece
                continue
            if packed:
                lines.append(packed)
            packed = piece
            continue
        if packed:
            lines.append(packed)
            packed = ""
        lines += vertical_lines(header, value, width)
    return [*lines, packed] if packed else lines


def vertical_lines(header: str, value: str, width: int) -> list[str]:
    """Return ``header: value`` wrapped at spaces to ``width`` (continuation lines indented)."""
    label = " ".join(header.split())
    lines: list[str] = []
    for number, part in enumerate(value.splitlines() or [""]):
        if number:
            text = "  " + part
        else:
            text = f"{label}: {part}" if label else part
        lines += textwrap.wrap(
            text,
            width=width,
            subsequent_indent="    ",
            break_long_words=False,
            break_on_hyphens=False,
        ) or [text.rstrip()]
    return lines


def print_wrapped(console: Console, text: str, indent: str = "", first: str | None = None) -> None:
    """Print ``text`` wrapped at spaces only to the console's width: ``first`` (default
    ``indent``) before the first line, ``indent`` before the others; no word is ever split."""
    lines = textwrap.wrap(
        text,
        width=max(console.width, MIN_WIDTH),
        initial_indent=indent if first is None else first,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    )
    for line in lines or [""]:
        console.print(line, markup=False, highlight=False, soft_wrap=True)


#: the narrowest value column the aligned ``label  value`` layout of :func:`print_pairs` uses;
#: below it each pair is one ``label: value`` block
MIN_VALUE_WIDTH = 40


def print_pairs(console: Console, pairs: list[tuple[str, str]]) -> None:
    """Print ``label  value`` pairs (a record: `advisories show`), no blank lines between them."""
    for line in pair_lines(pairs, max(console.width, MIN_WIDTH)):
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def pair_lines(pairs: list[tuple[str, str]], width: int) -> list[str]:
    """Return the lines of :func:`print_pairs` at ``width`` columns.

    The labels make a column as wide as the longest, the values are wrapped at spaces beside it.
    A word longer than the value column (a URL) gets a line of its own, indented four spaces (none
    when even that would push it past the width), so it is never split.
    When the value column would be narrower than :data:`MIN_VALUE_WIDTH`, each pair is printed as
    ``label: value`` wrapped to the width, continuation lines indented.
    """
    label_width = max((len(label) for label, _ in pairs), default=0)
    value_width = width - label_width - 2
    if value_width < MIN_VALUE_WIDTH:
        return [line for label, value in pairs for line in vertical_lines(label, value, width)]
    lines: list[str] = []
    indent = label_width + 2
    for label, value in pairs:
        head = label.ljust(label_width) + "  "
        for part in value.splitlines() or [""]:
            current = ""
            for word in part.split():
                if current and len(current) + 1 + len(word) <= value_width:
                    current += " " + word
                    continue
                if current:
                    lines.append((head or " " * indent) + current)
                    head = ""
                    current = ""
                if len(word) <= value_width:
                    current = word
                    continue
                lines.append(("    " if len(word) + 4 <= width else "") + word)
                head = ""
            if current or head:
                lines.append((head or " " * indent) + current)
                head = ""
    return [line.rstrip() for line in lines]
