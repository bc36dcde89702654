"""Check a document against NIST's OSCAL assessment-results JSON schema (vendored, see
``assess/report/schemas/README.md``).

The schema is draft-07 and its token pattern is ``^(\\p{L}|_)(\\p{L}|\\p{N}|[.\\-_])*$``: Unicode
property classes, which Python's :mod:`re` does not know (jsonschema would raise ``re.error`` on
the first token it checks). :func:`validator` keeps the schema as NIST published it and checks
patterns through :func:`python_pattern`, which rewrites the two classes into their :mod:`re`
equivalents (``\\p{L}``: a word character that is neither a digit nor ``_``; ``\\p{N}``: a digit).
That is exact for the ASCII and Latin text assess writes; it differs from the Unicode classes
only for numerals that are not decimal digits (Roman numeral letters, superscripts).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

SCHEMA_FILE = Path(__file__).resolve().parent / "schemas" / "oscal_assessment-results_schema.json"
#: The OSCAL release the vendored schema belongs to (its ``$id`` says the same).
OSCAL_VERSION = "1.1.3"

_CLASSES = {r"\p{L}": r"[^\W\d_]", r"\p{N}": r"\d"}


def python_pattern(pattern: str) -> str:
    """Return ``pattern`` with ``\\p{L}`` and ``\\p{N}`` written as :mod:`re` classes."""
    for prop, klass in _CLASSES.items():
        pattern = pattern.replace(prop, klass)
    return pattern


@cache
def schema() -> dict[str, Any]:
    """Return the vendored schema (parsed once)."""
    loaded: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return loaded


@cache
def validator() -> Any:
    """Return a draft-07 jsonschema validator of the vendored schema whose ``pattern`` keyword
    understands the schema's Unicode classes."""
    import jsonschema
    from jsonschema import validators

    def pattern(checker: Any, patrn: str, instance: Any, _schema: dict[str, Any]) -> Iterator[Any]:
        if isinstance(instance, str) and not re.search(python_pattern(patrn), instance):
            yield jsonschema.ValidationError(f"{instance!r} does not match {patrn!r}")

    base = jsonschema.Draft7Validator
    kind = validators.extend(base, {"pattern": pattern})
    return kind(schema())


def schema_errors(document: dict[str, Any]) -> list[str]:
    """Return every way ``document`` breaks the schema, as ``path: message`` (empty: valid)."""
    found = sorted(validator().iter_errors(document), key=lambda e: list(e.absolute_path))
    return ["/".join(str(p) for p in error.absolute_path) + f": {error.message}" for error in found]
