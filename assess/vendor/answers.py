"""A vendor's answers to a questionnaire: the file a vendor (or a reviewer) fills in.

Two layers: :class:`AnswersFile` is the file's shape (values still raw, so that every problem of
every answer can be reported at once); :class:`AnswerSet` holds values checked against the
questionnaire by :mod:`assess.vendor.answers_file`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import Field, SerializerFunctionWrapHandler, field_validator, model_serializer

from assess.kernel.common import EvidenceLevel
from assess.kernel.model import Model
from assess.vendor.questionnaire import NOT_APPLICABLE, UNKNOWN

#: A checked value: bool, int, text/enum/version, list of text, or per-role numbers.
Value = bool | int | str | list[str] | dict[str, int]


ANSWER_KEYS = frozenset({"value", "evidence", "note", "ref", "date", "per", "conflicts"})


def is_long_form(entry: Any) -> bool:
    """Return True when ``entry`` is ``{value:, evidence:, ...}`` rather than a bare value.

    A mapping with none of those keys is a bare per-role value such as ``{prefill: 681280}``.
    """
    return isinstance(entry, dict) and bool(ANSWER_KEYS & set(entry))


class Conflict(Model):
    """Another of the provider's own documents that says something else (a finding of its own)."""

    ref: str = Field(min_length=1, description="Where the other statement is: URL, document")
    note: str = Field(min_length=1, description="What it says, quoted where possible")


class Answer(Model):
    """One answer as written in the file (``value`` not yet checked)."""

    value: Any = Field(default=UNKNOWN, description="The answer; 'unknown' when not known")
    evidence: EvidenceLevel = Field(
        default=EvidenceLevel.ATTESTED,
        description="attested (the vendor says so) < documented (public docs) < verified (tested)",
    )
    note: str = ""
    ref: str = Field(default="", description="Where the evidence is: URL, document, ticket")
    date: dt.date | None = Field(
        default=None, description="When the answer was true (read, tested, report date)"
    )
    per: dict[str, Any] = Field(
        default_factory=dict,
        description="Values per model, deployment or Region where they differ from 'value'",
    )
    conflicts: list[Conflict] = Field(
        default_factory=list, description="The provider's other documents that say otherwise"
    )


class AnswersFile(Model):
    """An answers file (YAML or JSON). A bare value is shorthand for ``{value: ...}``."""

    schema_version: int = Field(default=1, ge=1, le=1)
    kind: str = Field(default="assess.answers", pattern=r"^assess\.answers$")
    questionnaire: str = Field(default="llm-inference-isolation", description="Questionnaire id")
    vendor: str = Field(min_length=1)
    date: dt.date
    answers: dict[str, Answer] = Field(default_factory=dict)

    @field_validator("answers", mode="before")
    @classmethod
    def _shorthand(cls, raw: Any) -> Any:
        if raw is None:
            return {}
        if isinstance(raw, dict):
            return {k: v if is_long_form(v) else {"value": v} for k, v in raw.items()}
        return raw


class CheckedAnswer(Model):
    """One answer whose value was checked against its question (``'unknown'`` when unknown)."""

    value: Value
    evidence: EvidenceLevel = EvidenceLevel.ATTESTED
    note: str = ""
    ref: str = ""
    date: dt.date | None = None
    per: dict[str, Value] = Field(default_factory=dict)
    conflicts: list[Conflict] = Field(default_factory=list)

    @property
    def known(self) -> bool:
        """Return False when the value is ``'unknown'`` or ``'not_applicable'``."""
        return self.value != UNKNOWN and self.value != NOT_APPLICABLE

    @model_serializer(mode="wrap")
    def _drop_empty(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Leave out ``date``, ``per`` and ``conflicts`` when not given (older readers' shape)."""
        data: dict[str, Any] = handler(self)
        for key in ("date", "per", "conflicts"):
            if data.get(key) in (None, {}, []):
                data.pop(key, None)
        return data

    @property
    def not_applicable(self) -> bool:
        """Return True when the question does not apply (``'not_applicable'``)."""
        return self.value == NOT_APPLICABLE


class AnswerSet(Model):
    """Checked answers of one vendor; questions not answered are absent (unknown)."""

    questionnaire: str
    vendor: str
    date: dt.date
    source: str = ""
    answers: dict[str, CheckedAnswer] = Field(default_factory=dict)

    def get(self, question_id: str) -> CheckedAnswer:
        """Return the answer to ``question_id``, an unknown one when not answered."""
        return self.answers.get(question_id) or CheckedAnswer(value=UNKNOWN)

    def value(self, question_id: str) -> Value:
        """Return the value of ``question_id`` (``'unknown'`` when not answered)."""
        return self.get(question_id).value

    def variant_labels(self) -> list[str]:
        """Return every model, deployment or Region some answer gives its own value for."""
        return sorted({label for a in self.answers.values() for label in a.per})

    def variant(self, label: str) -> AnswerSet:
        """Return the answers as they hold for ``label``: its own values where given."""
        return self.model_copy(
            update={
                "answers": {
                    qid: a.model_copy(update={"value": a.per[label]}) if label in a.per else a
                    for qid, a in self.answers.items()
                }
            }
        )
