"""The shared model base: frozen, ``extra="forbid"``, loaded through one path.

Every file-backed model is loaded with :meth:`Model.from_path` / :meth:`Model.from_text`, which turn
pydantic's ``ValidationError`` into an :class:`~assess.kernel.errors.InputError` listing every
problem at once, each with its file, line and field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, ValidationError

from assess.kernel.errors import InputError
from assess.kernel.structured import Located, load_document, parse_json, parse_yaml


class Model(BaseModel):
    """Base of all assess models: immutable, and unknown fields are errors."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @classmethod
    def from_located(cls, doc: Located, advice: str = "") -> Self:
        """Validate a parsed document.

        Raises:
            InputError: with one line per problem: ``file:line: field: message``.
        """
        try:
            return cls.model_validate(doc.data)
        except ValidationError as exc:
            raise InputError(
                format_validation_error(exc, doc), advice or "Fix the fields listed above."
            ) from exc

    @classmethod
    def from_path(cls, path: Path | str, advice: str = "") -> Self:
        """Load and validate a YAML or JSON file (chosen by extension).

        Raises:
            InputError: when the file is missing, unparsable or invalid.
        """
        return cls.from_located(load_document(path), advice)

    @classmethod
    def from_text(cls, text: str, source: str = "<text>", fmt: str = "yaml") -> Self:
        """Validate YAML (default) or JSON text; ``source`` names it in errors.

        Raises:
            InputError: when the text is unparsable or invalid.
        """
        doc = parse_json(text, source) if fmt == "json" else parse_yaml(text, source)
        return cls.from_located(doc)


class View(Model):
    """A tolerant view of another command's document: its contract keys only, other keys ignored
    (a newer writer may add keys; the reader keeps working). Immutable, as every model."""

    model_config = ConfigDict(frozen=True, extra="ignore")


def format_validation_error(exc: ValidationError, doc: Located) -> str:
    """Return every error of ``exc`` as ``file:line: field: message`` lines."""
    out: list[str] = []
    for err in exc.errors(include_url=False):
        loc: tuple[Any, ...] = tuple(err.get("loc", ()))
        data_loc = tuple(part for part in loc if isinstance(part, str | int))
        field = ".".join(str(p) for p in loc) or "(document)"
        out.append(f"{doc.where(data_loc)}: {field}: {err['msg']}")
    return "\n".join(out)
