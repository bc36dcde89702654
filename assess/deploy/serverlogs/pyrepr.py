"""Read the Python reprs engines print at startup, without evaluating anything.

SGLang logs ``server_args=ServerArgs(model_path='...', disable_radix_cache=False, ...)``, vLLM
``non-default args: {'model': '...', 'enable_prefix_caching': True, ...}`` and, on its engine line,
``with config: model='...', ..., enable_prefix_caching=True, ...``. Pastes cut these lines short,
vLLM's V0 engine line drops a comma
(``chunked_prefill_enabled=True multi_step_stream_outputs=True``, vllm-project/vllm#9532) and
values may be bare words (``dtype=torch.float16``) or enum reprs (``<ConfigFormat.AUTO: 'auto'>``).
So this is a small tolerant reader, not ``eval`` nor ``ast.literal_eval``: it returns every
``key=value`` read before the text ends or stops making sense, and says whether the record was
read to its end.
"""

from __future__ import annotations

from dataclasses import dataclass

from assess.deploy.models import Scalar

#: A value as read: scalars, lists, and nested records (dicts or ``Name(k=v)`` calls).
Value = Scalar | list["Value"] | dict[str, "Value"]

_CLOSE = {"(": ")", "[": "]", "{": "}"}
_STOP = set(",)]}:=") | {" ", "\t", "\n"}
_LIMIT = 400_000  # characters read at most (a ServerArgs repr is ~10-15k)


class _Cut(Exception):
    """The text ended (or broke) inside a value."""


@dataclass(frozen=True)
class Record:
    """The ``key=value`` pairs of one record and whether it was read to its closing bracket."""

    values: dict[str, Value]
    complete: bool


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text[:_LIMIT]
        self.pos = 0

    def _skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1

    def _peek(self) -> str:
        self._skip()
        if self.pos >= len(self.text):
            raise _Cut
        return self.text[self.pos]

    def value(self) -> Value:
        char = self._peek()
        if char in "'\"":
            return self._string(char)
        if char in "[(":
            return self._sequence(_CLOSE[char])
        if char == "{":
            return self._mapping()
        if char == "<":
            return self._enum()
        word = self._word()
        if self.pos < len(self.text) and self.text[self.pos] == "(":
            start = self.pos
            self.pos += 1
            record = self.pairs(")")  # Name(k=v, ...): a nested record
            if record.complete:
                return record.values
            self.pos = start  # Name('positional', ...): kept as its text
            return word + self._balanced()
        return _scalar(word)

    def _balanced(self) -> str:
        """Return the bracketed text at the cursor up to its matching close (quotes honoured)."""
        start, depth, quote = self.pos, 0, ""
        while self.pos < len(self.text):
            char = self.text[self.pos]
            self.pos += 1
            if quote:
                quote = "" if char == quote else quote
            elif char in "'\"":
                quote = char
            elif char in "([{":
                depth += 1
            elif char in ")]}":
                depth -= 1
                if depth == 0:
                    return self.text[start : self.pos]
            elif char == "\n":
                break
        raise _Cut

    def _string(self, quote: str) -> str:
        out: list[str] = []
        self.pos += 1
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == "\\" and self.pos + 1 < len(self.text):
                out.append(self.text[self.pos + 1])
                self.pos += 2
                continue
            self.pos += 1
            if char == quote:
                return "".join(out)
            if char == "\n":
                break
            out.append(char)
        raise _Cut

    def _word(self) -> str:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in _STOP | {"("}:
            self.pos += 1
        if self.pos == start:
            raise _Cut
        return self.text[start : self.pos]

    def _enum(self) -> str:
        end = self.text.find(">", self.pos)
        if end < 0:
            raise _Cut
        inner = self.text[self.pos + 1 : end]
        self.pos = end + 1
        # <ConfigFormat.AUTO: 'auto'> -> 'auto'; <Foo.BAR: 3> -> '3'
        return inner.partition(":")[2].strip().strip("'\"") or inner

    def _sequence(self, close: str) -> list[Value]:
        self.pos += 1
        items: list[Value] = []
        while self._peek() != close:
            items.append(self.value())
            if self._peek() == ",":
                self.pos += 1
        self.pos += 1
        return items

    def _mapping(self) -> dict[str, Value]:
        self.pos += 1
        out: dict[str, Value] = {}
        while self._peek() != "}":
            key = self.value()
            if self._peek() != ":":
                raise _Cut
            self.pos += 1
            out[str(key)] = self.value()
            if self._peek() == ",":
                self.pos += 1
        self.pos += 1
        return out

    def pairs(self, close: str | None) -> Record:
        """Read ``key=value`` pairs up to ``close`` (None: until they stop)."""
        out: dict[str, Value] = {}
        try:
            while True:
                char = self._peek()
                if char == close or (close is None and char == ")"):
                    self.pos += 1
                    return Record(out, True)
                if char == "\n":
                    return Record(out, close is None)
                key = self._word()
                if self._peek() != "=":
                    return Record(out, False)
                self.pos += 1
                out[key] = self.value()
                if self._peek() == ",":
                    self.pos += 1
        except _Cut:
            return Record(out, False)


def _scalar(word: str) -> Scalar:
    """Return a bare printed word as a scalar ('False' -> False, '0.9' -> 0.9, 'None')."""
    if word in ("True", "False", "true", "false"):  # Python reprs, and JSON on command lines
        return word in ("True", "true")
    if word in ("None", "null"):
        return None
    for kind in (int, float):
        try:
            return kind(word)
        except ValueError:
            continue
    return word


def read_call(text: str) -> Record:
    """Return the ``key=value`` pairs of ``text``, which starts right after ``Name(``."""
    return _Reader(text).pairs(")")


def read_pairs(text: str) -> Record:
    """Return the ``key=value`` pairs of a bare list (``a=1, b='x', ...``) up to a line end."""
    return _Reader(text).pairs(None)


def read_dict(text: str) -> Record:
    """Return the ``'key': value`` items of ``text``, which starts at ``{``."""
    reader = _Reader(text)
    try:
        if reader._peek() != "{":
            return Record({}, False)
        return Record(reader._mapping(), True)
    except _Cut:
        return Record(_partial_dict(text), False)


def _partial_dict(text: str) -> dict[str, Value]:
    """Return the items of a dict cut short: every complete item before the cut."""
    out: dict[str, Value] = {}
    reader = _Reader(text)
    reader.pos = text.find("{") + 1
    try:
        while True:
            key = reader.value()
            if reader._peek() != ":":
                return out
            reader.pos += 1
            out[str(key)] = reader.value()
            if reader._peek() != ",":
                return out
            reader.pos += 1
    except _Cut:
        return out


def flatten(values: dict[str, Value], prefix: str = "") -> dict[str, Scalar]:
    """Return nested records as dotted keys ('kv_transfer_config.kv_role'); lists as text."""
    out: dict[str, Scalar] = {}
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, f"{name}."))
        elif isinstance(value, list):
            out[name] = ", ".join(str(v) for v in value)
        else:
            out[name] = value
    return out
