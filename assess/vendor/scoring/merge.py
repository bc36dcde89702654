"""One finding per root cause: findings resting on the same answers become one row (pure).

Two findings are about the same root cause when they rest on exactly the same answers, or when
one rests on a single answer that exactly one other (answer-only) finding also rests on -- e.g.
``control-absent.isolation.proxy_aborts_mid_transfer`` and ``proxy-aborts-disaggregated``. The
merged finding keeps the worst member's id, severity and wording, lists the others in ``merged``
and carries every reason and remediation; it adds its points once. Findings resting on evidence
(``evidence:*``, e.g. one contradiction per node of the same claim) merge only with findings
resting on exactly the same answers and evidence. The ``attested-only`` summary never merges: its
root cause is the evidence behind the answers, not their values. Folded into a finding on the same
answers it lost its points, so verifying one answer (which takes it off the summary) could raise
the score. Findings naming different advisories (``advisories``) are different root causes, even
on the same answers: two engine advisories on one engine version need different remedies. An
advisory finding decided by answers beyond the engine (its ``exposed_if``: a transfer checksum off,
a prompt cache shared across customers) is one root cause with the findings that rest only on
answers it rests on, one of those among them (``disaggregated-transfers-unverified`` and
``control-absent.isolation.transfer_checksums`` under ``advisory.sglang-pd-kv-transfer-race``);
a finding two such advisories could take joins the worst (then by id), once.
"""

from __future__ import annotations

from assess.kernel.common import Severity
from assess.vendor.scoring.advisory_checks import ENGINE, MODE, VERSION
from assess.vendor.scoring.findings import sentence
from assess.vendor.scoring.models import ScoreFinding

#: Findings that already summarise several answers under one root cause of their own.
AGGREGATES = frozenset({"attested-only"})


def _on_answers(f: ScoreFinding) -> bool:
    return bool(f.rests_on) and not any(r.startswith("evidence:") for r in f.rests_on)


def _mergeable(f: ScoreFinding) -> bool:
    return f.id not in AGGREGATES and _on_answers(f)


def _advisory_key(f: ScoreFinding) -> str:
    return f"advisories:{','.join(f.advisories)}:{','.join(sorted(f.rests_on))}"


def _host(f: ScoreFinding, hosts: list[ScoreFinding]) -> ScoreFinding | None:
    """Return the advisory finding whose root cause ``f`` is (see the module), if any."""
    own = frozenset(f.rests_on)
    for host in hosts:
        theirs = frozenset(host.rests_on)
        if own < theirs and own & (theirs - {ENGINE, VERSION, MODE}):
            return host
    return None


def _key(
    f: ScoreFinding, anchors: list[frozenset[str]], hosts: list[ScoreFinding]
) -> frozenset[str] | str:
    if not f.rests_on or f.id in AGGREGATES:
        return f"id:{f.id}"
    if f.advisories:
        return _advisory_key(f)
    host = _host(f, hosts) if _mergeable(f) else None
    if host is not None:
        return _advisory_key(host)
    own = frozenset(f.rests_on)
    if len(own) == 1 and _mergeable(f):
        holders = {a for a in anchors if own < a}
        if len(holders) == 1:
            return holders.pop()
    return own


def _head_order(f: ScoreFinding) -> tuple[int, bool, str]:
    return (-f.severity.rank, not f.contradiction, f.id)


def _combine(group: list[ScoreFinding]) -> ScoreFinding:
    head, *rest = sorted(group, key=_head_order)
    if not rest:
        return head
    rests = list(dict.fromkeys(q for f in (head, *rest) for q in f.rests_on))
    reasons = " ".join(sentence(f"Also ({f.id}, {f.severity.value}): {f.title}") for f in rest)
    remedies = list(dict.fromkeys(f.remediation for f in (head, *rest) if f.remediation))
    return head.model_copy(
        update={
            "rests_on": rests,
            "detail": f"{head.detail} {reasons}".strip(),
            "remediation": " ".join(remedies),
            "contradiction": any(f.contradiction for f in group),
            "advisories": list(dict.fromkeys(a for f in (head, *rest) for a in f.advisories)),
            "merged": [*head.merged, *rest],
        }
    )


def merge_root_causes(findings: list[ScoreFinding]) -> list[ScoreFinding]:
    """Return ``findings`` with every group resting on the same answers merged into one."""
    anchors = [
        frozenset(f.rests_on)
        for f in findings
        if _mergeable(f) and len(f.rests_on) > 1 and not f.advisories
    ]
    hosts = sorted(
        (f for f in findings if f.advisories and _mergeable(f) and f.severity is not Severity.INFO),
        key=_head_order,
    )
    groups: dict[frozenset[str] | str, list[ScoreFinding]] = {}
    for f in findings:
        groups.setdefault(_key(f, anchors, hosts), []).append(f)
    return [_combine(g) for g in groups.values()]
