"""The mapping of an export no preset recognises, inferred from field names and value shapes.

Every leaf of the sampled records is a candidate path (nested objects, ``{key, value}``
attribute lists, keys holding dots, JSON strings), written as a ``--map`` path so the run reads
it through the preset machinery (no reader of its own). Each canonical field scores its
candidates by name (an exact synonym 3, a telling word 2) plus the share of records holding a
value, among the paths whose values all have the field's shape (model ids; ISO or epoch times
in 2000-2100; non-negative integer counts...). A field goes on only with one clear winner: a
runner-up within :data:`MARGIN` that does not hold the same values makes it ambiguous.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any

from assess.kernel.errors import InputError
from assess.kernel.model import Model
from assess.scope.logs.paths import MISSING, _maybe_json, any_value, split_path
from assess.scope.logs.presets import Preset
from assess.scope.logs.timestamps import parse_timestamp
from assess.scope.models import InferredField

#: Fields that must have a clear winner for the run to go on (prompt_tokens too when present).
REQUIRED = ("timestamp", "model")
INFERRED = ("timestamp", "model", "prompt_tokens", "request_id", "account_id", "status")
MARGIN = 0.5
_MIN_NAME = 2
_EARLIEST, _LATEST = 946_684_800 * 10**9, 4_102_444_800 * 10**9  # 2000-01-01, 2100-01-01
_MODEL_ID = re.compile(r"^[A-Za-z][A-Za-z0-9._:/@+-]{1,99}$")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")

#: Per field: exact names (snake_case), telling words, and words that rule a name out.
_NAMES: dict[str, tuple[frozenset[str], tuple[str, ...], tuple[str, ...]]] = {
    "model": (
        frozenset({"model", "model_name", "model_id", "llm_model", "request_model", "engine"}),
        ("model",),
        ("provider", "system", "family", "version", "type", "class"),
    ),
    "timestamp": (
        frozenset(
            {"timestamp", "time", "ts", "created_at", "created", "start", "start_time",
             "started_at", "request_time", "datetime", "date", "event_time", "start_time_unix_nano",
             "time_unix_nano", "received_at", "logged_at", "when"}
        ),
        ("time", "start", "created", "date"),
        ("end", "finish", "complet", "updated", "expire", "duration", "latency", "elapsed"),
    ),
    "prompt_tokens": (
        frozenset(
            {"prompt_tokens", "input_tokens", "token_count_prompt", "prompt_token_count",
             "tokens_in", "input_token_count", "tokens_prompt", "prompt_tokens_count"}
        ),
        ("prompt_token", "input_token", "tokens_in"),
        ("completion", "output", "total", "response", "cached", "cache", "reasoning", "max"),
    ),
    "request_id": (
        frozenset({"request_id", "req_id", "call_id", "generation_id", "completion_id", "id"}),
        ("request_id", "requestid"),
        ("session", "trace", "parent", "user", "account", "key", "model", "conversation"),
    ),
    "account_id": (
        frozenset({"user", "user_id", "end_user", "account", "account_id", "customer",
                   "customer_id", "tenant", "tenant_id", "team_id", "org_id", "enduser_id"}),
        ("user", "account", "customer", "tenant"),
        ("agent", "name_of", "role", "message", "token", "prompt"),
    ),
    "status": (
        frozenset({"status", "status_code", "http_status", "response_status", "code", "outcome"}),
        ("status",),
        ("message", "text", "reason", "finish"),
    ),
}  # fmt: skip


class Candidate(Model):
    """One path scored for one canonical field."""

    path: str
    score: float
    records_with_value: int


class FieldInference(Model):
    """The paths inferred for one field (first the winner, then paths holding its values) and
    the best rival; ``ambiguous`` when the rival came within the margin."""

    field: str
    paths: list[str]
    candidates: list[Candidate]
    runner_up: Candidate | None
    ambiguous: bool


class Inference(Model):
    """The mapping inferred from a sample of records."""

    records: int
    fields: list[FieldInference]

    def field(self, name: str) -> FieldInference | None:
        """Return the inference of ``name``, or None when no path has its shape."""
        return next((f for f in self.fields if f.field == name), None)

    def blocking(self, mapped: Collection[str] = ()) -> list[str]:
        """The fields (not in ``mapped``) that keep the run from going on: a required one with
        no clear path, or an ambiguous prompt token count."""
        out = []
        for name in (*REQUIRED, "prompt_tokens"):
            one = self.field(name)
            if name in mapped or (one is None and name not in REQUIRED):
                continue
            if one is None or one.ambiguous or not one.paths:
                out.append(name)
        return out

    def usable_with(self, mapped: Collection[str] = ()) -> bool:
        """True when every required field not in ``mapped`` has one clear path."""
        return not self.blocking(mapped)

    def reading(self) -> list[InferredField]:
        """Each field's inference as reported in ``reading[].inference`` (every inferred field,
        those no path fits with no paths)."""
        out = []
        for name in INFERRED:
            f = self.field(name)
            best = f.candidates[0] if f and f.paths and not f.ambiguous else None
            rival = f.runner_up if f else None
            out.append(
                InferredField(
                    field=name,
                    paths=f.paths if f and best else [],
                    score=best.score if best else None,
                    runner_up=rival.path if rival else None,
                    runner_up_score=rival.score if rival else None,
                )
            )
        return out

    def mapping(self) -> dict[str, list[str]]:
        """The ``--map`` paths of every clear field (ambiguous optional ones are left out)."""
        return {f.field: f.paths for f in self.fields if f.paths and not f.ambiguous}


def _part(key: str) -> str:
    return f"[{key}]" if "." in key or "[" in key or key == "*" else key


def _join(prefix: str, key: str) -> str:
    if not prefix:  # a top-level key is found as written, dots and all
        return key
    part = _part(key)
    return f"{prefix}{part}" if part.startswith("[") else f"{prefix}.{part}"


def _is_pairs(node: list[Any]) -> bool:
    return bool(node) and all(
        isinstance(i, dict) and isinstance(i.get("key"), str) and "value" in i for i in node
    )


def leaves(node: Any, prefix: str = "", depth: int = 0) -> Iterator[tuple[str, Any]]:
    """Yield every (``--map`` path, value) of ``node`` that is not an object or a list."""
    if isinstance(node, str) and depth:
        decoded = _maybe_json(node)
        node = node if decoded is MISSING else decoded
    if depth > 8:
        return
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(key, str) and key:
                yield from leaves(value, _join(prefix, key), depth + 1)
    elif isinstance(node, list):
        if _is_pairs(node):
            for item in node:
                yield from leaves(any_value(item["value"]), _join(prefix, item["key"]), depth + 1)
        elif node:
            yield from leaves(node[0], f"{prefix}.0" if prefix else "0", depth + 1)
    elif prefix and node is not None and node != "":
        yield prefix, node


def _words(path: str) -> tuple[str, str]:
    """The leaf name and the last two parts, snake_case (``token_count.prompt`` ->
    ``token_count_prompt``)."""
    parts = [p for p in split_path(path) if not p.isdigit()]
    norm = [_CAMEL.sub("_", p).lower().replace("-", "_").replace(".", "_") for p in parts]
    leaf = norm[-1].lstrip("@_") if norm else ""
    return leaf, "_".join(norm[-2:]).lstrip("@_")


def name_score(field: str, path: str) -> int:
    """3 for a synonym, 2 for a telling word, 0 otherwise (or for a word ruling it out)."""
    exact, words, bad = _NAMES[field]
    leaf, last_two = _words(path)
    if any(b in leaf for b in bad):
        return 0
    if leaf in exact or last_two in exact:
        return 3
    return 2 if any(w in leaf or w in last_two for w in words) else 0


def _model_like(v: Any) -> bool:
    return (
        isinstance(v, str)
        and bool(_MODEL_ID.match(v))
        and not _UUID.match(v)
        and parse_timestamp(v) is None
    )


def _time_like(v: Any) -> bool:
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        return False
    try:
        nanos = parse_timestamp(v)
    except (ValueError, OverflowError):
        return False
    return nanos is not None and _EARLIEST <= nanos < _LATEST


def _count_like(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    return (isinstance(v, int) and v >= 0) or (isinstance(v, float) and v >= 0 and v.is_integer())


def _id_like(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    return isinstance(v, int) or (isinstance(v, str) and 0 < len(v) <= 200 and " " not in v)


def _status_like(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int) or (isinstance(v, str) and v.isdigit()):
        return 100 <= int(v) <= 599
    return isinstance(v, str) and v.lower() in {"ok", "success", "error", "failed", "failure"}


_SHAPES: dict[str, Callable[[Any], bool]] = {
    "model": _model_like,
    "timestamp": _time_like,
    "prompt_tokens": _count_like,
    "request_id": _id_like,
    "account_id": _id_like,
    "status": _status_like,
}

Columns = dict[str, dict[int, Any]]


def columns(records: Sequence[Any]) -> Columns:
    """Return, per candidate path, its value in each record (by index) that holds one."""
    out: Columns = {}
    for index, record in enumerate(records):
        for path, value in leaves(record):
            out.setdefault(path, {}).setdefault(index, value)
    return out


def _agrees(a: dict[int, Any], b: dict[int, Any]) -> bool:
    """True when two paths share records and never hold different values in one (the same
    value twice)."""
    shared = [i for i in a if i in b]
    return bool(shared) and all(a[i] == b[i] for i in shared)


def _unique(values: dict[int, Any]) -> bool:
    return len(values) < 2 or len({str(v) for v in values.values()}) >= 0.9 * len(values)


def _candidates(field: str, cols: Columns, records: int) -> list[Candidate]:
    shape = _SHAPES[field]
    found = []
    for path, values in cols.items():
        name = name_score(field, path)
        if not name and field not in REQUIRED:
            continue
        if not all(shape(v) for v in values.values()):
            continue
        if field == "request_id" and not _unique(values):
            continue
        score = name + len(values) / max(1, records)
        found.append(Candidate(path=path, score=round(score, 3), records_with_value=len(values)))
    found.sort(key=lambda c: (-c.score, c.path))
    return found


def infer_field(field: str, cols: Columns, records: int) -> FieldInference | None:
    """Return the inference of ``field`` over ``cols``, or None when no path has its shape."""
    found = _candidates(field, cols, records)
    if not found:
        return None
    best = found[0]
    if name_score(field, best.path) < _MIN_NAME:
        return FieldInference(
            field=field, paths=[], candidates=found[:5], runner_up=None, ambiguous=False
        )
    paths, rival = [best.path], None
    for other in found[1:]:
        if _agrees(cols[best.path], cols[other.path]):
            paths.append(other.path)  # the same values elsewhere: a fallback, not a rival
        elif rival is None:
            rival = other
    ambiguous = rival is not None and best.score - rival.score < MARGIN
    return FieldInference(
        field=field, paths=paths[:4], candidates=found[:5], runner_up=rival, ambiguous=ambiguous
    )


def infer_mapping(records: Sequence[Any]) -> Inference:
    """Infer the canonical fields of ``records`` (a sample of one export)."""
    cols = columns(records)
    fields = [infer_field(name, cols, len(records)) for name in INFERRED]
    return Inference(records=len(records), fields=[f for f in fields if f is not None])


def inferred_preset(
    base: Preset, inference: Inference, mapping: Mapping[str, str | Sequence[str]]
) -> Preset:
    """The preset ``inferred``: ``base`` reading only the inferred paths, the user's ``--map``
    over them."""
    bare = base.model_copy(
        update={"id": "inferred", "title": "Mapping inferred from field names and values"}
    )
    return bare.only_mapped({**inference.mapping(), **mapping})


def describe(candidate: Candidate | None, records: int) -> str:
    """``path (score 3.9, 40/40 records)``, or ``-``."""
    if candidate is None:
        return "-"
    held = f"{candidate.records_with_value}/{records} records"
    return f"{candidate.path} (score {candidate.score:g}, {held})"


def ambiguous_error(path: Any, inference: Inference, mapping: Mapping[str, Any] = {}) -> InputError:
    """The refusal when a field has no clear path: the candidates of each such field."""
    lines = []
    for name in inference.blocking(mapping):
        one = inference.field(name)
        if one is None:
            lines.append(f"{name}: no field has its shape")
            continue
        found = ", ".join(describe(c, inference.records) for c in one.candidates[:4])
        lines.append(
            f"{name}: {'no clear winner' if one.ambiguous else 'no telling name'} among {found}"
        )
    return InputError(
        f"{path}: --preset auto recognises no known log format, and the mapping cannot be "
        f"inferred with confidence: {'; '.join(lines)}",
        "Say which path holds each field: --map FIELD=PATH (e.g. --map model=PATH), or write "
        "a preset to edit with --suggest-preset FILE.",
    )
