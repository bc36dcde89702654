"""Log presets: which fields of a product's export hold the canonical fields.

A preset is data, ``assess/scope/logs/presets/<id>.yaml``, validated at load (see
docs/scope-formats.md for the format). ``--map canonical=dotted.path`` overrides a preset's
candidates; ``--preset auto`` scores a sample of records against every preset's ``detect`` rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from assess.kernel.errors import CatalogueError, UsageError
from assess.kernel.model import Model
from assess.scope.fields import CANONICAL_FIELDS as CANONICAL_FIELDS  # its one home
from assess.scope.fields import ID_FIELDS
from assess.scope.logs.candidates import alternatives, expand
from assess.scope.logs.paths import MISSING, get_path

PRESETS_DIR = Path(__file__).resolve().parent / "presets"


def has_path(record: Any, path: str) -> bool:
    """True when ``record`` holds ``path`` or its camelCase/snake_case twin (even as null)."""
    for spelling in alternatives(path):  # a loop, not any(): this runs per record and rule
        if get_path(record, spelling) is not MISSING:
            return True
    return False


class Detect(Model):
    """Paths whose presence identifies a product's records (one export form: ``name``)."""

    name: str = Field(default="", description="Optional: the export form this rule recognises")
    all_of: list[str] = Field(min_length=1)
    any_of: list[str] = Field(default_factory=list)

    def matches(self, record: Any) -> bool:
        """Return True when ``record`` has every ``all_of`` path and one ``any_of`` path
        (each path or its camelCase/snake_case twin)."""
        for path in self.all_of:  # loops, not all()/any(): this runs per record and rule
            if not has_path(record, path):
                return False
        if not self.any_of:
            return True
        for path in self.any_of:
            if has_path(record, path):
                return True
        return False

    def missing(self, record: Any) -> list[str]:
        """Return the paths ``record`` lacks for this rule (all ``any_of`` when none is there)."""
        absent = [p for p in self.all_of if not has_path(record, p)]
        if self.any_of and not any(has_path(record, p) for p in self.any_of):
            absent.append(" or ".join(self.any_of))
        return absent

    def present(self, record: Any) -> list[str]:
        """Return this rule's paths that ``record`` has, spelled as the record spells them."""
        found: list[str] = []
        for path in (*self.all_of, *self.any_of):
            found.extend(p for p in alternatives(path) if get_path(record, p) is not MISSING)
        return found


class Condition(Model):
    """A test on one path: ``in``, ``not_in``, ``equals`` or ``missing`` (exactly one)."""

    path: str
    in_: list[Any] | None = Field(default=None, alias="in")
    not_in: list[Any] | None = None
    equals: Any = None
    missing: bool | None = None

    @model_validator(mode="after")
    def _one_test(self) -> Condition:
        given = [
            self.in_ is not None,
            self.not_in is not None,
            "equals" in self.model_fields_set,
            self.missing is not None,
        ]
        if sum(given) != 1:
            raise ValueError("give exactly one of in, not_in, equals, missing")
        return self

    def holds(self, record: Any) -> bool:
        """Return True when ``record`` satisfies this condition."""
        value = get_path(record, self.path)
        if self.missing is not None:
            absent = value is MISSING or value is None or value == ""
            return absent == self.missing
        if value is MISSING:
            return False
        if self.in_ is not None:
            return value in self.in_
        if self.not_in is not None:
            return value not in self.not_in
        return bool(value == self.equals)


class NonRequestRule(Model):
    """Valid rows that are not requests (spans, events, billing rows)."""

    when: Condition
    reason: str


class Join(Model):
    """A side table joined to fill canonical fields (e.g. APIM subscription, Langfuse traces):
    a request's ``key`` equals a side row's ``side_key`` (default: the same path)."""

    key: str
    side_key: str | None = Field(default=None, description="Optional: the side table's key")
    detect: Detect
    fields: dict[str, list[str]]

    @field_validator("fields")
    @classmethod
    def _canonical(cls, fields: dict[str, list[str]]) -> dict[str, list[str]]:
        return _check_fields(fields)

    @property
    def side_path(self) -> str:
        """The path of the key in a side-table row."""
        return self.side_key or self.key


def _check_fields(fields: dict[str, list[str]], twins: bool = True) -> dict[str, list[str]]:
    """Refuse unknown canonical names; return the fields with their candidates expanded."""
    unknown = sorted(set(fields) - set(CANONICAL_FIELDS))
    if unknown:
        raise ValueError(
            f"unknown canonical field(s) {', '.join(unknown)}; known: {', '.join(CANONICAL_FIELDS)}"
        )
    return {name: expand(paths, twins) for name, paths in fields.items()}


class Preset(Model):
    """One product's log export mapped to the canonical fields."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_\-]*$")
    title: str
    docs: list[str] = Field(default_factory=list)
    detect: list[Detect] = Field(min_length=1, description="One rule, or one per export form")
    twins: bool = Field(
        default=True, description="Optional: also try each path's camelCase/snake_case twin"
    )
    fields: dict[str, list[str]]
    timestamp_format: Literal["auto", "iso", "epoch_s", "epoch_ms", "epoch_us", "epoch_ns"] = "auto"
    non_request: list[NonRequestRule] = Field(default_factory=list)
    no_value: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Optional: per text field, values that stand for no value (a product's "
        "placeholder, e.g. LiteLLM's master key alias as the key hash): a candidate path "
        "holding one is passed over, as an empty one is",
    )
    join: Join | None = None
    platform: str | None = Field(
        default=None,
        description="Optional: the platform every record of this export was served by "
        "(Bedrock's own logs: aws-bedrock), for rows with no provider field",
    )
    provider_no_evidence: list[str] = Field(
        default_factory=list,
        description="Optional: provider values that do not tell who served the request (the "
        "client's API protocol, e.g. 'openai' for any OpenAI-compatible endpoint, or a "
        "gateway): such a row's platform is told by its endpoint or not at all",
    )
    priority: int = Field(
        default=0, description="Optional: breaks --preset auto ties (higher wins)"
    )
    no_sql: str | None = Field(
        default=None,
        description="Optional: why --emit-sql cannot express this export (records opened from "
        "an envelope, attributes selected by key): the emission refuses it with this reason",
    )

    @field_validator("detect", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, dict) else value

    @field_validator("fields")
    @classmethod
    def _canonical(cls, fields: dict[str, list[str]], info: ValidationInfo) -> dict[str, list[str]]:
        for name in ("timestamp", "model"):
            if not fields.get(name):
                raise ValueError(f"'{name}' needs at least one path")
        return _check_fields(fields, bool(info.data.get("twins", True)))

    @field_validator("no_value")
    @classmethod
    def _text_fields(cls, no_value: dict[str, list[str]]) -> dict[str, list[str]]:
        wrong = sorted(set(no_value) - set(ID_FIELDS))
        if wrong:
            raise ValueError(
                f"no_value: {', '.join(wrong)} is not a text field; use {', '.join(ID_FIELDS)}"
            )
        return no_value

    def matches(self, record: Any) -> bool:
        """Return True when ``record`` fits one of the preset's detect rules."""
        return any(rule.matches(record) for rule in self.detect)

    def with_map(self, overrides: Mapping[str, str | Sequence[str]]) -> Preset:
        """Return a copy whose fields in ``overrides`` use only the given dotted paths, in
        order (``@user`` expanded, no twins: a mapped path is taken as written)."""
        if not overrides:
            return self
        fields = dict(self.fields)
        for name, paths in overrides.items():
            fields[name] = expand([paths] if isinstance(paths, str) else paths, twins=False)
        return self.model_copy(update={"fields": fields})

    def only_mapped(self, overrides: Mapping[str, str | Sequence[str]]) -> Preset:
        """Return a copy that reads only the fields in ``overrides``: the unmapped ones read
        nothing (no other preset's defaults are inherited by a file no preset recognises)."""
        bare = self.model_copy(update={"fields": {}})
        return bare.with_map(overrides)

    def non_request_reason(self, record: Any) -> str | None:
        """Return why ``record`` is a valid non-request row, or None when it is a request."""
        if self.join is not None and self.join.detect.matches(record):
            return f"joined {self.id} side table"
        for rule in self.non_request:
            if rule.when.holds(record):
                return rule.reason
        return None


def parse_map(items: Sequence[str]) -> dict[str, list[str]]:
    """Parse ``--map canonical=dotted.path`` options; a field mapped again gets a fallback
    (its paths are tried in the order given).

    Raises:
        UsageError: for a malformed item or an unknown canonical name.
    """
    result: dict[str, list[str]] = {}
    for item in items:
        name, sep, path = item.partition("=")
        name, path = name.strip(), path.strip()
        if not sep or not name or not path:
            raise UsageError(
                f"--map '{item}': expected canonical=dotted.path",
                "Example: --map prompt_tokens=usage.input_tokens",
            )
        if name not in CANONICAL_FIELDS:
            raise UsageError(
                f"--map '{item}': '{name}' is not a canonical field",
                f"Use one of: {', '.join(CANONICAL_FIELDS)}.",
            )
        result.setdefault(name, []).append(path)
    return result


def load_presets(folder: Path | None = None) -> dict[str, Preset]:
    """Return every preset in ``folder`` (default: the shipped ``assess/scope/logs/presets``) by id.

    Raises:
        CatalogueError: when a file's id differs from its name or two ids clash.
        InputError: when a file is invalid (file, line and field).
    """
    paths = sorted((folder or PRESETS_DIR).glob("*.yaml"))
    shipped = folder is None or Path(folder).resolve() == PRESETS_DIR
    key = tuple((str(path), _stamp(path)) for path in paths) if shipped else None
    cached = _SHIPPED.get(key) if key is not None else None
    if cached is not None:  # the same files, unchanged: presets are immutable, share them
        return dict(cached)
    found: dict[str, Preset] = {}
    for path in paths:
        preset = Preset.from_path(path)
        if preset.id != path.stem:
            raise CatalogueError(
                f"{path}: id '{preset.id}' differs from the file name",
                f"Name the file {preset.id}.yaml or change the id.",
            )
        found[preset.id] = preset
    if key is not None:
        _SHIPPED.clear()
        _SHIPPED[key] = dict(found)
    return found


#: The shipped catalogue, by its files' paths, sizes and modification times: a scope run asks
#: for it when it opens the logs and again for the reading report (10 YAML files, ~6 ms).
_SHIPPED: dict[tuple[tuple[str, tuple[int, int]], ...], dict[str, Preset]] = {}


def _stamp(path: Path) -> tuple[int, int]:
    """Return the size and modification time (ns) of ``path``, or (-1, -1) when it is gone."""
    try:
        info = path.stat()
    except OSError:
        return -1, -1  # from_path reports it
    return info.st_size, info.st_mtime_ns


def get_preset(name: str, catalogue: Mapping[str, Preset] | None = None) -> Preset:
    """Return the preset ``name`` (an id, or a path to a preset YAML file).

    Raises:
        UsageError: naming the known presets when there is no such preset.
    """
    if name.endswith((".yaml", ".yml")) and Path(name).is_file():
        return Preset.from_path(name)
    presets = catalogue if catalogue is not None else load_presets()
    if name == "inferred" and name not in presets:
        raise UsageError(
            "--preset 'inferred': not a preset: 'inferred' is what --preset auto reports when no "
            "preset fits a log and it infers the mapping from the fields' names and values",
            "Give --preset auto (the default) with the same log to infer it again, --map "
            "FIELD=PATH to set a field yourself, or --suggest-preset FILE to write the mapping "
            "as a preset to edit and pass with --preset FILE.",
        )
    if name not in presets:
        raise UsageError(
            f"--preset '{name}': no such preset",
            f"Known presets: auto, {', '.join(sorted(presets))}; or give a preset YAML file.",
        )
    return presets[name]


def detect_preset(
    sample: Iterable[Any], catalogue: Mapping[str, Preset]
) -> tuple[Preset | None, dict[str, int]]:
    """Score ``sample`` records against every preset's detect rule.

    Returns the best preset (most matching records, then most ``all_of`` paths, then
    ``priority``), or None when nothing matches, and the score of each preset.
    """
    records = list(sample)
    scores: dict[str, int] = {}
    for preset in catalogue.values():
        hits = sum(1 for r in records if preset.matches(r))
        if preset.join is not None:
            hits += sum(1 for r in records if preset.join.detect.matches(r))
        scores[preset.id] = hits
    ranked = sorted(
        (p for p in catalogue.values() if scores[p.id] > 0),
        key=lambda p: (
            scores[p.id],
            max(len(d.all_of) + len(d.any_of) for d in p.detect),
            p.priority,
            p.id != "canonical",
        ),
        reverse=True,
    )
    return (ranked[0] if ranked else None), scores
