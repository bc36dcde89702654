"""The questionnaire bank and its scoring rules (``questionnaires/<id>.yaml``), as data.

A questionnaire is a list of questions (id, text, help, answer type, allowed values, weight,
remediation), condition rules over the answers, the computed checks it enables and the score
formula's numbers. Reference checks (ids unique, rules name real questions and allowed values)
live in :meth:`Questionnaire.problems` so the reader can report them with their lines.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import Field, model_validator

from assess.kernel.common import Severity
from assess.kernel.model import Model
from assess.vendor.questionnaire_scoring import Scoring

Loc = tuple[str | int, ...]

#: Every question accepts this value (or no answer at all) meaning "the vendor did not say".
UNKNOWN = "unknown"

#: Every question accepts this value, with a note saying why: the question cannot apply to this
#: vendor (transfer controls on aggregated serving). It leaves both axes: no risk, no coverage.
NOT_APPLICABLE = "not_applicable"

#: Computed checks implemented in :mod:`assess.vendor.scoring.checks`; a questionnaire enables them.
KNOWN_CHECKS = (
    "advisories",
    "pool-vs-context",
    "controls",
    "unknown-answers",
    "attested-only",
)


class AnswerType(StrEnum):
    """The shape of an answer's value."""

    ENUM = "enum"
    BOOL = "bool"
    INT = "int"
    VERSION = "version"
    TEXT = "text"
    LIST = "list"
    PER_ROLE = "per-role-int"


class Condition(Model):
    """One test on one answer; exactly one operator is given."""

    question: str
    is_: str | bool | int | None = Field(default=None, alias="is")
    in_: list[str] | None = Field(default=None, alias="in")
    not_in: list[str] | None = None
    unknown: bool | None = None
    gt: int | None = None
    lt: int | None = None

    @model_validator(mode="after")
    def _one_operator(self) -> Condition:
        given = [
            name
            for name in ("is_", "in_", "not_in", "unknown", "gt", "lt")
            if getattr(self, name) is not None
        ]
        if len(given) != 1:
            raise ValueError("give exactly one of: is, in, not_in, unknown, gt, lt")
        return self


class When(Model):
    """All of ``all`` and at least one of ``any`` (when given) must hold."""

    all: list[Condition] = Field(default_factory=list)
    any: list[Condition] = Field(default_factory=list)

    @model_validator(mode="after")
    def _not_empty(self) -> When:
        if not self.all and not self.any:
            raise ValueError("a rule needs at least one condition under 'all' or 'any'")
        return self


class Implies(Model):
    """A question whose answer also answers another (``implies``): a mode question and its yes/no
    twin. ``values`` maps this question's values to the other's; a value not listed implies
    nothing. Scoring reads the other question as implied when it is not answered, and the
    stricter of the two readings when both are and they disagree (:mod:`assess.vendor.scoring.
    implied`)."""

    question: str
    values: dict[str, str | bool | int] = Field(min_length=1)


class Question(Model):
    """One question of the bank."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$")
    text: str = Field(min_length=1)
    help: str = ""
    type: AnswerType
    values: list[str] = Field(default_factory=list, description="Allowed values (enum)")
    aliases: dict[str, str] = Field(default_factory=dict, description="Other spellings (enum)")
    roles: list[str] = Field(default_factory=list, description="Allowed roles (per-role-int)")
    min: int | None = Field(default=None, description="Smallest allowed number (int types)")
    weight: Severity = Field(
        default=Severity.LOW, description="Severity when a control is absent or unknown"
    )
    critical: bool = Field(default=False, description="An unknown answer is a finding")
    control: bool = Field(default=False, description="A bool isolation control")
    safe_answer: bool = Field(default=True, description="The control's safe value (bool)")
    remediation: str = ""
    safe_values: list[str | bool | int] = Field(
        default_factory=list,
        description="Answers that mean a control is in place (listed beside the findings)",
    )
    in_place_if_answered: bool = Field(
        default=False, description="Any known answer is a fact in place (attestations, links)"
    )
    not_applicable_when: When | None = Field(
        default=None, description="The question does not apply when these conditions hold"
    )
    not_applicable_allowed: bool = Field(
        default=False,
        description="An answers file may answer not_applicable (with a note); otherwise refused",
    )
    compensated_by: list[Condition] = Field(
        default_factory=list,
        description="A control answered with its unsafe value is offset when one of these holds",
    )
    implies: Implies | None = Field(
        default=None, description="Its answer answers another question too (a mode and its twin)"
    )

    @property
    def section(self) -> str:
        """Return the part of the id before the first dot (``engine`` for ``engine.version``)."""
        return self.id.split(".", 1)[0]

    @model_validator(mode="after")
    def _shape(self) -> Question:
        if self.type is AnswerType.ENUM and not self.values:
            raise ValueError("an enum question needs 'values'")
        if self.type is not AnswerType.ENUM and (self.values or self.aliases):
            raise ValueError("'values' and 'aliases' are for enum questions only")
        if self.type is AnswerType.PER_ROLE and not self.roles:
            raise ValueError("a per-role-int question needs 'roles'")
        if self.control and self.type is not AnswerType.BOOL:
            raise ValueError("a control must be a bool question")
        for alias, target in self.aliases.items():
            if target not in self.values:
                raise ValueError(f"alias '{alias}' points to '{target}', not an allowed value")
        return self


class Rule(Model):
    """A finding raised when its conditions over the answers hold, unless a compensating
    control (``compensated_by``: any one of these conditions) offsets it."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$")
    severity: Severity
    title: str
    why: str
    remediation: str
    when: When
    compensated_by: list[Condition] = Field(default_factory=list)


class Contradictions(Model):
    """Which claims technical evidence can contradict."""

    probe_leak: list[str] = Field(
        default_factory=list, description="Claims a leak found by `assess probe` contradicts"
    )


class Questionnaire(Model):
    """A whole questionnaire file."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$")
    version: int = Field(ge=1)
    title: str
    description: str = ""
    scoring: Scoring
    checks: list[str] = Field(default_factory=list)
    contradictions: Contradictions = Contradictions()
    questions: list[Question] = Field(min_length=1)
    rules: list[Rule] = Field(default_factory=list)

    def question(self, question_id: str) -> Question | None:
        """Return the question ``question_id`` or None."""
        return self.by_id().get(question_id)

    def by_id(self) -> dict[str, Question]:
        """Return the questions by id (first one wins if ids repeat)."""
        out: dict[str, Question] = {}
        for q in self.questions:
            out.setdefault(q.id, q)
        return out

    def problems(self) -> list[tuple[Loc, str]]:
        """Return reference problems as (location, message): duplicate ids, dangling references."""
        found: list[tuple[Loc, str]] = []
        seen: dict[str, int] = {}
        for index, q in enumerate(self.questions):
            if q.id in seen:
                found.append(
                    (("questions", index, "id"), f"duplicate question id '{q.id}'"),
                )
            seen.setdefault(q.id, index)
            if q.control and q.weight.rank < self.scoring.attested_only_severity.rank:
                found.append(
                    (
                        ("questions", index, "weight"),
                        f"control '{q.id}' weighs less than an attested-only claim "
                        f"({self.scoring.attested_only_severity.value}): claiming it would "
                        "raise the score",
                    )
                )
        decisive_ids: set[str] = set()
        for index, decisive in enumerate(self.scoring.decisive):
            if decisive.id in decisive_ids:
                where_d: Loc = ("scoring", "decisive", index, "id")
                found.append((where_d, f"duplicate decisive rule id '{decisive.id}'"))
            decisive_ids.add(decisive.id)
        rule_ids: set[str] = set()
        for index, rule in enumerate(self.rules):
            if rule.id in rule_ids:
                found.append((("rules", index, "id"), f"duplicate rule id '{rule.id}'"))
            rule_ids.add(rule.id)
            for part in ("all", "any"):
                for c_index, cond in enumerate(getattr(rule.when, part)):
                    where: Loc = ("rules", index, "when", part, c_index)
                    found += [(where, msg) for msg in self._condition_problems(cond)]
            for c_index, cond in enumerate(rule.compensated_by):
                where = ("rules", index, "compensated_by", c_index)
                found += [(where, msg) for msg in self._condition_problems(cond)]
        found += self._question_condition_problems()
        for index, name in enumerate(self.checks):
            if name not in KNOWN_CHECKS:
                found.append(
                    (
                        ("checks", index),
                        f"unknown check '{name}' (known: {', '.join(KNOWN_CHECKS)})",
                    )
                )
        for index, qid in enumerate(self.contradictions.probe_leak):
            if qid not in seen:
                found.append(
                    (("contradictions", "probe_leak", index), f"no question with id '{qid}'")
                )
        return found

    def _question_condition_problems(self) -> list[tuple[Loc, str]]:
        found: list[tuple[Loc, str]] = []
        for index, q in enumerate(self.questions):
            conds: list[tuple[Loc, Condition]] = [
                (("questions", index, "compensated_by", i), c)
                for i, c in enumerate(q.compensated_by)
            ]
            if q.not_applicable_when is not None:
                for part in ("all", "any"):
                    conds += [
                        (("questions", index, "not_applicable_when", part, i), c)
                        for i, c in enumerate(getattr(q.not_applicable_when, part))
                    ]
            for where, cond in conds:
                found += [(where, msg) for msg in self._condition_problems(cond)]
                if cond.question == q.id:
                    found.append((where, f"'{q.id}' cannot depend on its own answer"))
            found += [(("questions", index, "implies"), m) for m in self._implies_problems(q)]
            for i, safe in enumerate(q.safe_values):
                if q.type is AnswerType.ENUM and safe not in q.values:
                    found.append(
                        (
                            ("questions", index, "safe_values", i),
                            f"'{safe}' is not an allowed value of '{q.id}'",
                        )
                    )
                if (q.type is AnswerType.BOOL) is not isinstance(safe, bool):
                    found.append(
                        (
                            ("questions", index, "safe_values", i),
                            f"'{safe}' does not match '{q.id}' ({q.type.value})",
                        )
                    )
        return found

    def _implies_problems(self, q: Question) -> list[str]:
        """Each value ``implies`` maps must be one of ``q``'s, and its image one of the other
        question's (checked as conditions on each); the other question is another one."""
        if q.implies is None:
            return []
        other = q.implies.question
        tests: list[tuple[str, str | bool | int]] = [(q.id, key) for key in q.implies.values]
        tests += [(other, value) for value in q.implies.values.values()]
        found = [
            msg
            for qid, value in tests
            for msg in self._condition_problems(
                Condition.model_validate({"question": qid, "is": value})
            )
        ]
        target = self.question(other)
        if other == q.id or (target is not None and target.implies is not None):
            found.append(f"'{q.id}' implies '{other}': it must be another question, implying none")
        return list(dict.fromkeys(found))

    def _condition_problems(self, cond: Condition) -> list[str]:
        q = self.question(cond.question)
        if q is None:
            return [f"condition names no question: '{cond.question}'"]
        wanted: list[Any] = []
        if cond.is_ is not None:
            wanted = [cond.is_]
        wanted += list(cond.in_ or []) + list(cond.not_in or [])
        out: list[str] = []
        for value in wanted:
            if q.type is AnswerType.ENUM and value not in q.values:
                out.append(f"'{value}' is not an allowed value of '{q.id}'")
            if q.type is AnswerType.BOOL and not isinstance(value, bool):
                out.append(f"'{q.id}' is a bool question; compare with true or false")
        if (cond.gt is not None or cond.lt is not None) and q.type is not AnswerType.INT:
            out.append(f"gt/lt need an int question; '{q.id}' is {q.type.value}")
        return out
