"""The provider's own documents contradicting each other: a finding of its own (pure).

An answer records the other documents in ``conflicts`` ({ref, note}); each such answer gives one
``docs-conflict.<question>`` finding at ``scoring.docs_conflict_severity``: a committee cannot rely
on a claim its author states two ways.
"""

from __future__ import annotations

from assess.kernel.common import EvidenceLevel
from assess.vendor.scoring.findings import Context, sentence, value_text
from assess.vendor.scoring.models import ScoreFinding


def conflict_findings(ctx: Context) -> list[ScoreFinding]:
    """Return one finding per answer whose ``conflicts`` name another document saying otherwise."""
    out: list[ScoreFinding] = []
    for q in ctx.bank.questions:
        answer = ctx.answers.get(q.id)
        if not answer.conflicts or answer.not_applicable:
            continue
        others = "; ".join(f"{c.ref} says: {c.note}" for c in answer.conflicts)
        said = value_text(answer.value)
        first = f"{answer.ref} says: {said}" if answer.ref else f"answered {said}"
        out.append(
            ctx.finding(
                f"docs-conflict.{q.id}",
                ctx.bank.scoring.docs_conflict_severity,
                f"The provider's documents contradict each other: {q.text}",
                sentence(f"{first}; {others}"),
                "Ask the provider which statement holds, in writing, and for the document to be "
                "corrected.",
                [q.id],
                evidence=EvidenceLevel.DOCUMENTED,
            )
        )
    return out
