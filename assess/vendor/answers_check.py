"""Check raw answers against their questionnaire, reporting all problems at once.

Each problem is reported as ``file:line: id: message`` (for spreadsheets ``file: row N: id: ...``),
sorted by line, in one :class:`~assess.kernel.errors.InputError`: a vendor fixes them in one pass.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from typing import Any

from packaging.version import InvalidVersion, Version
from pydantic import ValidationError

from assess.kernel.errors import InputError
from assess.kernel.structured import Loc
from assess.vendor.answers import AnswerSet, AnswersFile, CheckedAnswer, Value, is_long_form
from assess.vendor.questionnaire import (
    NOT_APPLICABLE,
    UNKNOWN,
    AnswerType,
    Question,
    Questionnaire,
)

#: Turns a location in the raw document into ``file:line`` (or ``file: row N``).
Where = Callable[[Loc], str]

_TRUE = {"true", "yes", "y"}
_FALSE = {"false", "no", "n"}
_ROLE_PAIR = re.compile(r"([a-z][a-z_-]*)\s*[=:]\s*([0-9][0-9,_ ]*)")


def is_unknown(raw: Any) -> bool:
    """Return True when ``raw`` means "not known": missing, empty or the word ``unknown``."""
    return raw is None or (isinstance(raw, str) and raw.strip().lower() in {"", UNKNOWN})


def is_not_applicable(raw: Any) -> bool:
    """Return True when ``raw`` says the question cannot apply: ``not_applicable`` (or n/a)."""
    return isinstance(raw, str) and raw.strip().lower().replace(" ", "_") in {
        NOT_APPLICABLE,
        "n/a",
    }


def _to_bool(q: Question, raw: Any) -> Value:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().lower() in _TRUE | _FALSE:
        return raw.strip().lower() in _TRUE
    raise ValueError(f"expected yes/no (true/false) or unknown, got {raw!r}")


def _to_int(q: Question, raw: Any) -> int:
    number: int | None = None
    if isinstance(raw, bool):
        number = None
    elif isinstance(raw, int):
        number = raw
    elif isinstance(raw, float) and raw.is_integer():
        number = int(raw)
    elif isinstance(raw, str) and re.fullmatch(r"\s*-?[0-9][0-9,_ ]*\s*", raw):
        number = int(re.sub(r"[,_ ]", "", raw))
    if number is None:
        raise ValueError(f"expected a whole number or unknown, got {raw!r}")
    if q.min is not None and number < q.min:
        raise ValueError(f"must be at least {q.min}, got {number}")
    return number


def _to_version(q: Question, raw: Any) -> str:
    if isinstance(raw, float):
        raise ValueError(f"write the version in quotes ({raw!r} was read as a number)")
    if not isinstance(raw, str | int) or isinstance(raw, bool):
        raise ValueError(f"expected a version such as 0.5.22, got {raw!r}")
    text = str(raw).strip()
    try:
        Version(text)
    except InvalidVersion:
        raise ValueError(f"'{text}' is not a version (PEP 440, e.g. 0.5.22)") from None
    return text


def _to_text(q: Question, raw: Any) -> str:
    if isinstance(raw, str | int | float) and not isinstance(raw, bool):
        return str(raw).strip()
    raise ValueError(f"expected text, got {type(raw).__name__}")


def _to_list(q: Question, raw: Any) -> list[str]:
    items: list[Any] = re.split(r"[,;\n]", raw) if isinstance(raw, str) else raw
    if not isinstance(items, list) or any(isinstance(i, dict | list) for i in items):
        raise ValueError("expected a list of text (or comma-separated text)")
    return [str(i).strip() for i in items if str(i).strip()]


def _to_enum(q: Question, raw: Any) -> str:
    if not isinstance(raw, str):
        raise ValueError(f"expected one of: {', '.join(q.values)}; got {raw!r}")
    key = raw.strip().lower()
    key = q.aliases.get(key, key)
    if key not in q.values:
        raise ValueError(f"'{raw}' is not one of: {', '.join(q.values)}")
    return key


def _to_per_role(q: Question, raw: Any) -> dict[str, int]:
    pairs: dict[str, Any]
    if isinstance(raw, dict):
        pairs = {str(k).strip().lower(): v for k, v in raw.items()}
    elif isinstance(raw, str):
        found = _ROLE_PAIR.findall(raw.lower())
        leftover = _ROLE_PAIR.sub("", raw.lower()).strip(" ,;\n")
        if not found or leftover:
            raise ValueError("expected numbers per role, e.g. 'prefill=681280; decode=2040000'")
        pairs = {role: num.strip().rstrip(",") for role, num in found}
    else:
        raise ValueError(
            f"expected numbers per role ({', '.join(q.roles)}), e.g. {{prefill: 681280}}"
        )
    out: dict[str, int] = {}
    errors: list[str] = []
    for role, value in pairs.items():
        if role not in q.roles:
            errors.append(f"unknown role '{role}' (roles: {', '.join(q.roles)})")
        elif not is_unknown(value):
            try:
                out[role] = _to_int(q, value)
            except ValueError as exc:
                errors.append(f"{role}: {exc}")
    if errors:
        raise ValueError("; ".join(errors))
    return out if out else {}


_COERCE: dict[AnswerType, Callable[[Question, Any], Value]] = {
    AnswerType.BOOL: _to_bool,
    AnswerType.INT: _to_int,
    AnswerType.VERSION: _to_version,
    AnswerType.TEXT: _to_text,
    AnswerType.LIST: _to_list,
    AnswerType.ENUM: _to_enum,
    AnswerType.PER_ROLE: _to_per_role,
}


def coerce_value(question: Question, raw: Any) -> Value:
    """Return ``raw`` as the checked value of ``question`` (``'unknown'`` when not known).

    Raises:
        ValueError: saying what was expected.
    """
    if is_unknown(raw):
        return UNKNOWN
    if is_not_applicable(raw):
        return NOT_APPLICABLE
    value = _COERCE[question.type](question, raw)
    return UNKNOWN if value == {} or value == [] else value


def _suggest(question_id: str, bank: Questionnaire) -> str:
    close = difflib.get_close_matches(question_id, [q.id for q in bank.questions], n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _structure_problems(data: Any) -> list[tuple[Loc, str, str]]:
    try:
        AnswersFile.model_validate(data)
    except ValidationError as exc:
        out: list[tuple[Loc, str, str]] = []
        for err in exc.errors(include_url=False):
            loc = tuple(p for p in err.get("loc", ()) if isinstance(p, str | int))
            if len(loc) >= 2 and loc[0] == "answers":
                rest = ".".join(str(p) for p in loc[2:])
                out.append((loc, str(loc[1]), f"{rest}: {err['msg']}" if rest else err["msg"]))
            else:
                out.append((loc, ".".join(str(p) for p in loc) or "(document)", err["msg"]))
        return out
    return []


def _answer_problems(data: Any, bank: Questionnaire) -> list[tuple[Loc, str, str]]:
    out: list[tuple[Loc, str, str]] = []
    answers = data.get("answers") if isinstance(data, dict) else None
    if not isinstance(answers, dict):
        return out
    for qid, entry in answers.items():
        question = bank.question(str(qid))
        if question is None:
            msg = f"not a question of {bank.id}{_suggest(str(qid), bank)}"
            out.append((("answers", qid), str(qid), msg))
            continue
        has_value = is_long_form(entry)
        raw = entry.get("value") if has_value else entry
        loc: Loc = ("answers", qid, "value") if has_value else ("answers", qid)
        values: list[tuple[Loc, Any]] = [(loc, raw)]
        per = entry.get("per") if has_value else None
        if isinstance(per, dict):
            values += [(("answers", qid, "per", label), v) for label, v in per.items()]
        for where, one in values:
            try:
                coerce_value(question, one)
            except ValueError as exc:
                label = f"per.{where[3]}: " if len(where) > 3 else ""
                out.append((where, str(qid), f"{label}{question.type.value}: {exc}"))
        note = entry.get("note") if has_value else None
        if any(is_not_applicable(v) for _, v in values) and not question.not_applicable_allowed:
            out.append((loc, str(qid), _NA_REFUSED))
        elif any(is_not_applicable(v) for _, v in values) and not (
            isinstance(note, str) and note.strip()
        ):
            out.append(
                (loc, str(qid), "not_applicable needs a note saying why the question cannot apply")
            )
    return out


_NA_REFUSED = (
    "not_applicable is not accepted for this question (the questionnaire allows it only where "
    "a question can fail to apply: `not_applicable_allowed`); answer it, or 'unknown'"
)

#: One problem: where (raw location), which id or field, what is wrong.
Problem = tuple[Loc, str, str]


def check_answers(
    data: Any,
    where: Where,
    bank: Questionnaire,
    source: str = "",
    extra: Iterable[Problem] = (),
) -> AnswerSet:
    """Check raw answers ``data`` against ``bank`` and return them typed.

    Raises:
        InputError: listing every problem (structure, unknown ids, wrong types, bad versions).
    """
    problems = [*extra, *_structure_problems(data), *_answer_problems(data, bank)]
    if isinstance(data, dict) and data.get("questionnaire", bank.id) != bank.id:
        problems.append(
            (
                ("questionnaire",),
                "questionnaire",
                f"answers are for '{data['questionnaire']}', not '{bank.id}'",
            )
        )
    if problems:
        lines = sorted({(where(loc), ident, msg) for loc, ident, msg in problems}, key=_line_key)
        raise InputError(
            "\n".join(f"{w}: {ident}: {msg}" for w, ident, msg in lines),
            f"Fix the answers listed above ({len(lines)} problem(s)); "
            "`assess questionnaire new` writes a file with every question and its allowed values.",
        )
    parsed = AnswersFile.model_validate(data)
    checked: dict[str, CheckedAnswer] = {}
    for qid, answer in parsed.answers.items():
        question = bank.question(qid)
        assert question is not None  # unknown ids were reported above
        checked[qid] = CheckedAnswer(
            value=coerce_value(question, answer.value),
            evidence=answer.evidence,
            note=answer.note,
            ref=answer.ref,
            date=answer.date,
            per={label: coerce_value(question, v) for label, v in answer.per.items()},
            conflicts=answer.conflicts,
        )
    return AnswerSet(
        questionnaire=parsed.questionnaire,
        vendor=parsed.vendor,
        date=parsed.date,
        source=source,
        answers=checked,
    )


def _line_key(item: tuple[str, str, str]) -> tuple[int, str]:
    match = re.search(r"(?::| row )(\d+)$", item[0])
    return (int(match.group(1)) if match else 0, item[1] + item[2])
