"""Load a questionnaire (the shipped one, one by id, or a file) and check its references."""

from __future__ import annotations

from pathlib import Path

from assess.kernel.errors import CatalogueError, InputError
from assess.kernel.resources import data_dir
from assess.kernel.structured import Located, load_document
from assess.vendor.questionnaire import Questionnaire

#: The questionnaire shipped with assess.
DEFAULT_QUESTIONNAIRE = "llm-inference-isolation"


class UnknownQuestionnaire(InputError):
    """A questionnaire reference that is neither a file nor a shipped id."""


def questionnaire_from_located(doc: Located) -> Questionnaire:
    """Validate a parsed questionnaire, including its references (ids unique, rules resolve).

    Raises:
        InputError: when a field is invalid (``file:line: field: message`` per problem).
        CatalogueError: listing every duplicate id and dangling reference with its line.
    """
    bank = Questionnaire.from_located(doc, "Fix the questionnaire fields listed above.")
    problems = sorted(bank.problems(), key=lambda item: doc.line_of(item[0]) or 0)
    if problems:
        raise CatalogueError(
            "\n".join(f"{doc.where(loc)}: {msg}" for loc, msg in problems),
            "Fix the questionnaire: ids must be unique and rules must name real questions.",
        )
    return bank


def load_questionnaire_file(path: Path | str) -> Questionnaire:
    """Load and check a questionnaire file.

    Raises:
        InputError, CatalogueError: see :func:`questionnaire_from_located`.
    """
    doc = load_document(path)
    kind = doc.data.get("kind") if isinstance(doc.data, dict) else None
    if isinstance(kind, str) and kind.startswith("assess."):
        raise InputError(
            f"{doc.where(('kind',))}: this is an {kind} document, not a questionnaire",
            "Give a questionnaire file (see questionnaires/) or a shipped questionnaire id.",
        )
    return questionnaire_from_located(doc)


def load_questionnaire(ref: str | Path | None = None) -> Questionnaire:
    """Return a questionnaire given a file path, a shipped id, or None for the shipped default.

    Raises:
        UnknownQuestionnaire: when ``ref`` is neither a file nor a shipped questionnaire id.
        InputError: when the file is invalid.
        CatalogueError: when the questionnaire's references do not resolve.
    """
    if ref is None:
        ref = DEFAULT_QUESTIONNAIRE
    path = Path(ref)
    if path.suffix.lower() in {".yaml", ".yml", ".json"} or path.exists():
        return load_questionnaire_file(path)
    folder = data_dir("questionnaires")
    candidate = folder / f"{ref}.yaml"
    if candidate.is_file():
        return load_questionnaire_file(candidate)
    known = ", ".join(sorted(p.stem for p in folder.glob("*.y*ml"))) or "(none)"
    raise UnknownQuestionnaire(
        f"{ref}: neither a questionnaire file nor a shipped questionnaire id",
        f"Give a questionnaire file or one of the shipped ids: {known}.",
    )


def shipped_questionnaire() -> Questionnaire:
    """Return the questionnaire shipped with assess (``llm-inference-isolation``).

    Raises:
        CatalogueError: if the shipped file is broken (a packaging bug).
    """
    return load_questionnaire(DEFAULT_QUESTIONNAIRE)
