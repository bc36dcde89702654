"""The evaluation context shared by every check, and how a finding is built from answers."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from assess.advisories.models import Advisory
from assess.controls.catalogue import load_crosswalk
from assess.controls.models import ControlRef
from assess.kernel.common import EvidenceLevel, Severity
from assess.vendor.answers import AnswerSet, Value
from assess.vendor.questionnaire import Questionnaire
from assess.vendor.scoring.models import ScoreFinding


def value_text(value: Value | None) -> str:
    """Return an answer value as a finding quotes it: yes/no, never a Python bool."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"{k}={v:,}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def sentence(text: str) -> str:
    """Return ``text`` ended by one full stop (never two): kept as is when it already ends a
    sentence."""
    text = text.rstrip()
    return text if text.endswith((".", "?", "!")) else f"{text}."


@dataclass(frozen=True)
class Context:
    """What every check reads: the bank, the answers and the advisories.

    ``answers`` are the answers as scored: a twin read through its mode question (``implies``);
    ``implied_by`` names the mode questions behind each twin so read, ``stated`` holds the
    answers as the vendor gave them (claims the evidence can contradict).
    """

    bank: Questionnaire
    answers: AnswerSet
    advisories: Mapping[str, Advisory]
    implied_by: Mapping[str, Sequence[str]] = field(default_factory=dict)
    stated: AnswerSet | None = None

    @property
    def claims(self) -> AnswerSet:
        """Return the answers as the vendor gave them (the scored ones when not told)."""
        return self.stated if self.stated is not None else self.answers

    def said(self, qid: str, label: str = "", named: bool = False) -> str:
        """Return what the vendor answered that gives ``qid`` its scored value (for ``label``,
        a model or deployment, '' = as answered): the value (``no``; ``named``:
        ``isolation.transfer_checksums = no``), or, when a mode question decided it, that
        answer and how it is read (``isolation.transfer_checksum_mode = off (read as no)``).
        Never an answer the vendor did not give, never a Python bool."""
        scored = value_text(_at(self.answers, qid, label))
        if named:
            scored = f"{qid} = {scored}"
        modes = self.implied_by.get(qid, ())
        if not modes or _at(self.claims, qid, label) == _at(self.answers, qid, label):
            return scored
        given = ", ".join(f"{m} = {value_text(_at(self.claims, m, label))}" for m in modes)
        return f"{given} (read as {scored})"

    def weakest_evidence(self, question_ids: Iterable[str]) -> EvidenceLevel | None:
        """Return the weakest evidence level among the known answers to ``question_ids``."""
        levels = [
            self.answers.get(qid).evidence
            for qid in question_ids
            if qid in self.answers.answers and self.answers.get(qid).known
        ]
        return min(levels, key=lambda e: e.rank) if levels else None

    def finding(
        self,
        finding_id: str,
        severity: Severity,
        title: str,
        detail: str,
        remediation: str,
        rests_on: list[str],
        contradiction: bool = False,
        evidence: EvidenceLevel | None = None,
        advisories: list[str] | None = None,
    ) -> ScoreFinding:
        """Return a finding; its evidence level is the weakest of the answers it rests on.

        A question that does not apply (``not_applicable``) is left out of ``rests_on``: it is
        on neither axis.
        """
        rests_on = [q for q in rests_on if not self.answers.get(q).not_applicable]
        return ScoreFinding(
            id=finding_id,
            severity=severity,
            title=title,
            detail=detail,
            remediation=remediation,
            rests_on=rests_on,
            evidence_level=evidence or self.weakest_evidence(rests_on),
            source="score",
            contradiction=contradiction,
            advisories=advisories or [],
        )


def _at(answers: AnswerSet, qid: str, label: str) -> Value | None:
    answer = answers.get(qid)
    return answer.per.get(label, answer.value) if label else answer.value


def with_controls(finding: ScoreFinding) -> ScoreFinding:
    """Return ``finding`` with the framework controls of its id (controls/crosswalk.yaml), and
    those of every finding merged into it; each merged finding gets its own."""
    crosswalk = load_crosswalk()
    merged = [
        m.model_copy(update={"controls": crosswalk.for_finding(m.id)}) for m in finding.merged
    ]
    refs: dict[tuple[str, str], ControlRef] = {}
    for ref in [*crosswalk.for_finding(finding.id), *(c for m in merged for c in m.controls)]:
        refs.setdefault((ref.framework, ref.id), ref)
    return finding.model_copy(update={"controls": list(refs.values()), "merged": merged})
