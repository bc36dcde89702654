"""Write a blank, commented answers file: every question with its help and allowed values."""

from __future__ import annotations

import datetime as dt
import json
import textwrap

from assess.kernel.common import EvidenceLevel
from assess.vendor.questionnaire import AnswerType, Question, Questionnaire
from assess.vendor.sheet_write import allowed_text

_EXAMPLES = {
    AnswerType.PER_ROLE: "{prefill: 681280, decode: 2040000}",
    AnswerType.LIST: '["@cf/zai-org/glm-5.3"]',
    AnswerType.VERSION: '"0.5.22"  (quoted)',
}


def _quote(text: str) -> str:
    """Return ``text`` as a YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def _comment(text: str, indent: str = "  ") -> list[str]:
    return [f"{indent}# {line}" for line in textwrap.wrap(text, 94 - len(indent))]


def _question_block(q: Question) -> list[str]:
    lines = _comment(q.text)
    if q.help:
        lines += _comment(q.help)
    flags = [f"type: {q.type.value}", f"allowed: {allowed_text(q)}"]
    if q.type in _EXAMPLES:
        flags.append(f"e.g. {_EXAMPLES[q.type]}")
    if q.critical:
        flags.append("critical: weighs high in the evidence coverage")
    lines += _comment("; ".join(flags))
    lines += [
        f"  {q.id}:",
        "    value: unknown",
        "    evidence: attested",
        '    note: ""',
        '    ref: ""',
    ]
    return lines


def answers_template(bank: Questionnaire, vendor: str, date: dt.date) -> str:
    """Return a blank answers file for ``bank`` (valid as is: every answer unknown)."""
    levels = " < ".join(e.value for e in EvidenceLevel)
    head = [
        f"# Answers to questionnaire {bank.id} v{bank.version}: {bank.title}",
        "# For each question give a value (or leave 'unknown'), the evidence behind it",
        f"# ({levels}: the vendor says so < public documentation < tested),",
        "# an optional note and a reference (URL, document, ticket). Optional: 'date' (when the",
        "# answer held), 'per' (values per model, deployment or Region), 'conflicts'",
        "# ([{ref, note}]: the provider's own documents saying otherwise). A question that cannot",
        "# apply: 'not_applicable', with a note saying why.",
        "# Check it with: assess questionnaire validate THIS_FILE",
        "schema_version: 1",
        "kind: assess.answers",
        f"questionnaire: {bank.id}",
        f"vendor: {_quote(vendor)}",
        f"date: {date.isoformat()}",
        "answers:",
    ]
    section = ""
    for q in bank.questions:
        if q.section != section:
            section = q.section
            head += ["", f"  # ==== {section} " + "=" * (84 - len(section))]
        head += ["", *_question_block(q)]
    return "\n".join(head) + "\n"
