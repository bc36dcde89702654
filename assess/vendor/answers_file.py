"""Load an answers file (YAML, JSON, or a filled-in xlsx/csv spreadsheet) with its questionnaire.

Every problem is reported at once as ``file:line: id: message`` (``file: row N: id: message`` for
spreadsheets); see :mod:`assess.vendor.answers_check`.
"""

from __future__ import annotations

import re
from pathlib import Path

from assess.kernel.errors import InputError
from assess.kernel.structured import Located, parse_json, parse_yaml, read_text
from assess.vendor.answers import AnswerSet
from assess.vendor.answers_check import check_answers
from assess.vendor.bank import UnknownQuestionnaire, load_questionnaire
from assess.vendor.questionnaire import Questionnaire
from assess.vendor.sheet_read import SPREADSHEET_SUFFIXES, read_spreadsheet


def read_answers_document(path: Path | str) -> Located:
    """Parse an answers file (YAML, or JSON with line numbers where it also parses as YAML).

    Raises:
        InputError: when the file is missing, empty, unparsable or has a duplicate key.
    """
    p = Path(path)
    text = read_text(p)
    if p.suffix.lower() != ".json":
        return parse_yaml(text, str(p), collect_duplicates=True)
    try:
        doc = parse_json(text, str(p))
    except InputError:
        repeated = _json_duplicates(text, str(p))
        if repeated is None:
            raise
        return repeated
    try:
        lined = parse_yaml(text, str(p))
    except InputError:
        return doc
    return lined if lined.data == doc.data else doc


def _json_duplicates(text: str, source: str) -> Located | None:
    """Return a JSON answers file with repeated keys as the YAML reader gives it (every repeat
    with its line, the first entry kept), so each is reported beside the other problems; None
    when the text is not JSON with repeats that the YAML reader reads to the same values."""
    import json

    def first_wins(pairs: list[tuple[str, object]]) -> dict[str, object]:
        kept: dict[str, object] = {}
        for key, value in pairs:
            kept.setdefault(key, value)
        return kept

    try:
        data = json.loads(text, object_pairs_hook=first_wins)
        lined = parse_yaml(text, source, collect_duplicates=True)
    except (ValueError, InputError, RecursionError):  # the caller reports the first error
        return None
    return lined if lined.duplicates and lined.data == data else None


def load_answers(path: Path | str, bank: Questionnaire) -> AnswerSet:
    """Load answers (YAML, JSON, xlsx or csv, by extension) and check them against ``bank``.

    Raises:
        InputError: naming the file, line (or row) and question id of every problem.
    """
    if Path(path).suffix.lower() in SPREADSHEET_SUFFIXES:
        return read_spreadsheet(path, bank)
    doc = read_answers_document(path)
    kind = doc.data.get("kind") if isinstance(doc.data, dict) else None
    if isinstance(kind, str) and kind.startswith("assess.") and kind != "assess.answers":
        raise InputError(
            f"{doc.where(('kind',))}: this is an {kind} document, not an answers file",
            "Give the vendor's answers (YAML, JSON, xlsx or csv); "
            "`assess questionnaire new` writes a blank one.",
        )
    repeated = [
        (
            loc,
            str(loc[-1]),
            f"duplicate key: given again on line {again} (the entry on line {first} is the one "
            "read); keep one of the two",
        )
        for loc, first, again in doc.duplicates
    ]
    return check_answers(doc.data, doc.where, bank, source=str(path), extra=repeated)


def _named_questionnaire(path: Path | str) -> str | None:
    if Path(path).suffix.lower() in SPREADSHEET_SUFFIXES:
        return None
    data = read_answers_document(path).data
    named = data.get("questionnaire") if isinstance(data, dict) else None
    if isinstance(named, str) and re.fullmatch(r"[a-z0-9][a-z0-9\-]*", named):
        return named
    return None


def load_answers_and_bank(
    path: Path | str, questionnaire: str | Path | None = None
) -> tuple[Questionnaire, AnswerSet]:
    """Load answers with their questionnaire: ``questionnaire`` (id or file) when given, else
    the shipped one the file names, else the default one.

    Raises:
        InputError: naming the file, line and question id of every problem.
        CatalogueError: when the questionnaire itself is broken.
    """
    if questionnaire is not None:
        bank = load_questionnaire(questionnaire)
    else:
        try:
            bank = load_questionnaire(_named_questionnaire(path))
        except UnknownQuestionnaire:  # reported with its line by check_answers
            bank = load_questionnaire(None)
    return bank, load_answers(path, bank)
