"""Finding texts for reading: merged findings' ids reduced to their severity, and the questions a
text cites by id shown by their text (the lookup of the answers appendix: each answer's
``question`` and the unanswered questions). ``report.json`` keeps the ids; the HTML/PDF findings
and the register's description and observation read as sentences."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from assess.report.models import Report

#: "(control-absent.isolation.transfer_checksums, medium)": a merged finding's id in its text.
_MERGED_ID = re.compile(r"\(([a-z0-9_\-]+(?:\.[a-z0-9_\-:]+)+), (critical|high|medium|low|info)\)")


def question_texts(report: Report) -> dict[str, str]:
    """Return the question of every id the review knows the text of (answered or not)."""
    texts = {a.id: a.question for a in report.answers if a.question}
    texts.update((q.id, q.question) for q in report.unanswered if q.question)
    return texts


def _cited(ids: Iterable[str]) -> re.Pattern[str] | None:
    """A pattern for any of ``ids`` standing alone: not part of a longer id (a finding id such
    as ``control-absent.isolation.x`` holds the question id ``isolation.x``)."""
    known = sorted(set(ids), key=len, reverse=True)
    if not known:
        return None
    return re.compile(r"(?<![\w.\-:])(" + "|".join(map(re.escape, known)) + r")(?![\w\-:]|\.\w)")


def cite_questions(text: str, questions: Mapping[str, str]) -> str:
    """Return ``text`` with every question id it cites replaced by the question, quoted."""
    pattern = _cited(questions)
    if pattern is None:
        return text
    return pattern.sub(lambda m: f"\u201c{questions[m.group(1)]}\u201d", text)


def prose(text: str, questions: Mapping[str, str] | None = None) -> str:
    """Return a finding's text for reading: the ids of merged findings (kept in report.json and
    the appendix) reduced to their severity, the doubled full stop a merge leaves dropped, and
    the question ids it cites shown as the questions, and no Markdown backticks around
    commands (`assess scope` reads as assess scope)."""
    text = _MERGED_ID.sub(r"(\2)", text)
    text = re.sub(r"`([^`\n]+)`", r"\1", text)
    text = re.sub(r"(?<!\.)\.\.(?!\.)", ".", text)
    return cite_questions(text, questions) if questions else text
