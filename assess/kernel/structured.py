"""Load YAML or JSON documents keeping the line of every value, and refusing duplicate keys.

PyYAML silently keeps the last of two equal keys; for an attestation that is a lie waiting to
happen, so a duplicate key is an error here. JSON is a subset of YAML 1.2 for our purposes, but
JSON files are parsed with ``json`` so their error messages carry JSON line/column numbers.

Vendors send these files, so they are bounded: nesting deeper than :data:`MAX_DEPTH` and YAML
whose aliases expand to more than :data:`MAX_VALUES` values (a "billion laughs" document of 400
bytes expands to 10^9) are refused with the file's name instead of eating memory for minutes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from assess.kernel.errors import InputError

Loc = tuple[str | int, ...]

#: Deepest nesting of mappings and lists accepted (answers and catalogues nest about 6 deep).
MAX_DEPTH = 100
#: Most values a YAML document may expand to once its aliases are followed (the shipped
#: questionnaire has about 3,000).
MAX_VALUES = 200_000


@dataclass
class _Budget:
    """What a document may still expand to while it is walked (see :data:`MAX_VALUES`)."""

    source: str
    values: int = MAX_VALUES

    def spend(self, node: yaml.Node, depth: int) -> None:
        """Count one value at ``depth``; raise InputError past either limit."""
        self.values -= 1
        if self.values < 0:
            raise InputError(
                f"{self.source}:{node.start_mark.line + 1}: the document expands to more than "
                f"{MAX_VALUES:,} values (YAML aliases repeated inside aliases)",
                "Write the values out instead of nesting aliases; no answers or catalogue "
                "file needs this many.",
            )
        if depth > MAX_DEPTH:
            raise_too_deep(self.source, node.start_mark.line + 1)


def raise_too_deep(source: str, line: int | None = None) -> None:
    """Raise the InputError for a document nested deeper than :data:`MAX_DEPTH`."""
    where = f"{source}:{line}" if line else source
    raise InputError(
        f"{where}: nested more than {MAX_DEPTH} levels deep",
        "Check the file: no answers, evidence or catalogue file nests this deep.",
    )


@dataclass(frozen=True)
class Located:
    """A parsed document plus the 1-based line where each value (by path) starts."""

    data: Any
    lines: dict[Loc, int] = field(default_factory=dict)
    source: str = "<text>"
    #: With ``parse_yaml(..., collect_duplicates=True)``: (key path, first line, repeat line) of
    #: every repeated key; the first entry is the one kept in ``data``.
    duplicates: tuple[tuple[Loc, int, int], ...] = ()

    def line_of(self, loc: Loc) -> int | None:
        """Return the line of ``loc`` or of its nearest ancestor that has one."""
        probe = tuple(loc)
        while probe:
            if probe in self.lines:
                return self.lines[probe]
            probe = probe[:-1]
        return self.lines.get((), None)

    def where(self, loc: Loc) -> str:
        """Return ``file:line`` (or just ``file``) for ``loc``."""
        line = self.line_of(loc)
        return f"{self.source}:{line}" if line else self.source


class _LineLoader(yaml.SafeLoader):
    """SafeLoader that keeps YAML 1.1 quirks away from ids and versions."""


# "0.5.21" must stay a string, "on"/"off"/"yes"/"no" must not become booleans.
_LineLoader.yaml_implicit_resolvers = {
    key: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.copy().items()
}
_LineLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    __import__("re").compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"),
)


class _FastLineLoader(getattr(yaml, "CSafeLoader", _LineLoader)):  # type: ignore[misc]
    """The same resolvers over libyaml's parser (when PyYAML has it): composing the nodes is
    about 8x faster, which every command pays at start for the presets and advisories."""


_FastLineLoader.yaml_implicit_resolvers = _LineLoader.yaml_implicit_resolvers


def _walk(
    node: yaml.Node,
    loader: _LineLoader,
    loc: Loc,
    lines: dict[Loc, int],
    src: str,
    repeats: list[tuple[Loc, int, int]] | None,
    budget: _Budget,
) -> Any:
    container = isinstance(node, yaml.MappingNode | yaml.SequenceNode)
    budget.spend(node, len(loc) + container)  # levels: the containers around and including it
    lines[loc] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            raw_key = _construct(key_node, loader, src)
            if raw_key is None or isinstance(raw_key, bool | float):
                raw_key = str(raw_key).lower() if isinstance(raw_key, bool) else str(raw_key)
            if not isinstance(raw_key, str | int):
                raise InputError(
                    f"{src}:{key_node.start_mark.line + 1}: a mapping key must be a plain value"
                )
            key: str | int = raw_key
            if key in result and repeats is not None:
                repeats.append(((*loc, key), lines[(*loc, key)], key_node.start_mark.line + 1))
                continue
            if key in result:
                raise InputError(
                    f"{src}:{key_node.start_mark.line + 1}: duplicate key '{key}' "
                    f"(first given on line {lines[(*loc, key)]})",
                    "Keep one of the two entries.",
                )
            lines[(*loc, key)] = key_node.start_mark.line + 1
            result[key] = _walk(value_node, loader, (*loc, key), lines, src, repeats, budget)
            lines[(*loc, key)] = key_node.start_mark.line + 1
        return result
    if isinstance(node, yaml.SequenceNode):
        return [
            _walk(item, loader, (*loc, index), lines, src, repeats, budget)
            for index, item in enumerate(node.value)
        ]
    return _construct(node, loader, src)


def _construct(node: yaml.Node, loader: _LineLoader, src: str) -> Any:
    try:
        return loader.construct_object(node, deep=True)
    except yaml.constructor.ConstructorError as exc:  # e.g. a tag such as !foo
        raise InputError(
            f"{src}:{node.start_mark.line + 1}: {exc.problem or exc}",
            "Remove the tag (the word starting with '!') and write a plain value.",
        ) from exc
    except ValueError:
        # Looks like a timestamp but is no date (2026-13-01): keep the text; the model that
        # expects a date reports it with its line.
        return node.value


def parse_yaml(text: str, source: str = "<text>", collect_duplicates: bool = False) -> Located:
    """Parse one YAML document with line numbers.

    With ``collect_duplicates`` a repeated key is recorded in ``Located.duplicates`` (so a checker
    can report it beside every other problem) instead of raised.

    Raises:
        InputError: on a syntax error, a duplicate key (unless collected) or an empty document.
    """
    loader = _FastLineLoader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        raise InputError(
            f"{source}{line}: YAML syntax error: {exc.problem or exc}",
            "Fix the YAML at that line (check indentation, quotes and colons).",
        ) from exc
    except yaml.YAMLError as exc:
        raise InputError(f"{source}: not valid YAML: {exc}") from exc
    finally:
        loader.dispose()
    if node is None:
        raise InputError(f"{source}: the file is empty", "Give a file with content.")
    lines: dict[Loc, int] = {}
    repeats: list[tuple[Loc, int, int]] | None = [] if collect_duplicates else None
    data = _walk(node, _LineLoader(""), (), lines, source, repeats, _Budget(source))
    return Located(data=data, lines=lines, source=source, duplicates=tuple(repeats or ()))


def parse_json(text: str, source: str = "<text>") -> Located:
    """Parse a JSON document (no per-value lines; errors carry the line).

    Raises:
        InputError: on a syntax error, a duplicate key or an empty document.
    """
    if not text.strip():
        raise InputError(f"{source}: the file is empty", "Give a file with content.")

    def no_dupes(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise InputError(f"{source}: duplicate key '{key}'", "Keep one of the two entries.")
            out[key] = value
        return out

    try:
        data = json.loads(text, object_pairs_hook=no_dupes)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source}:{exc.lineno}: JSON syntax error: {exc.msg} (column {exc.colno})",
            "Fix the JSON at that line.",
        ) from exc
    except RecursionError:  # nested deeper than Python's parser goes (~1,000)
        raise_too_deep(source)
    if _depth(data) > MAX_DEPTH:
        raise_too_deep(source)
    return Located(data=data, lines={}, source=source)


def _depth(data: Any) -> int:
    """Return how many containers (dicts, lists) nest in ``data`` at most, without recursion."""
    deepest, stack = 0, [(data, 0)]
    while stack:
        value, outer = stack.pop()
        if isinstance(value, dict | list):
            deepest = max(deepest, outer + 1)
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, outer + 1) for child in children)
    return deepest


def read_text(path: Path | str) -> str:
    """Read a UTF-8 text file.

    Raises:
        InputError: naming the file when it is missing, a folder, unreadable or not UTF-8 text.
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError as exc:
        raise InputError(f"{p}: no such file", "Check the path and try again.") from exc
    except IsADirectoryError as exc:
        raise InputError(f"{p}: is a folder, not a file", "Give the path of a file.") from exc
    except OSError as exc:
        raise InputError(f"{p}: cannot be read ({exc.strerror or exc})") from exc
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{p}: is not UTF-8 text (byte {exc.start} cannot be decoded)",
            "Give a YAML or JSON text file.",
        ) from exc


def load_document(path: Path | str) -> Located:
    """Read and parse a YAML or JSON file, chosen by extension (YAML for anything else).

    Raises:
        InputError: see :func:`read_text`, :func:`parse_yaml` and :func:`parse_json`.
    """
    p = Path(path)
    text = read_text(p)
    if p.suffix.lower() == ".json":
        return parse_json(text, str(p))
    return parse_yaml(text, str(p))
