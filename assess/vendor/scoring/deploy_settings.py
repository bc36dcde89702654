"""A startup log's cache-isolation settings (deploy-check ``nodes[].cache_settings``) against the
vendor's answers, and deploy-check's own advisory findings carried into the score (issue 41).

A setting the log does not show is missing evidence, never a contradiction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from assess.kernel.common import EvidenceLevel, Severity
from assess.vendor.answers import AnswerSet
from assess.vendor.scoring.evidence import DeployEvidence, DeployNode
from assess.vendor.scoring.findings import Context
from assess.vendor.scoring.models import ScoreFinding

DEPLOY = "evidence:deploy-check"
SCOPE, POLICY, CANARY = (
    "cache.prompt_cache_scope",
    "engine.schedule_policy",
    "isolation.kv_canary_mode",
)
CANARIES, CHECKSUM_MODE = "isolation.kv_canaries", "isolation.transfer_checksum_mode"
CHECKSUMS, MODE, TIERS = (
    "isolation.transfer_checksums",
    "deployment.mode",
    "cache.external_tiers_namespaced",
)
_ASK = "Ask the vendor to explain the difference and to re-attest; until then trust the log."


@dataclass(frozen=True)
class SettingContradiction:
    """One answer the log contradicts: the id suffix and (title, detail, remediation, rests)."""

    suffix: str
    text: tuple[str, str, str, list[str]]


def _known(answers: AnswerSet, qid: str) -> Any:
    """Return the answer's value, None when unanswered, unknown or not applicable."""
    answer = answers.answers.get(qid)
    if answer is None or not answer.known or answer.not_applicable:
        return None
    return answer.value


def _said(value: object) -> str:
    return (
        {True: "yes", False: "no"}.get(value, str(value)) if isinstance(value, bool) else str(value)
    )


def _item(
    node: DeployNode, setting: str, shown: object, claims: Sequence[tuple[str, object]], why: str
) -> SettingContradiction:
    label = node.name or "the node"
    said = ", ".join(f"{q} {_said(v)}" for q, v in claims)
    return SettingContradiction(
        f"cache-setting.{setting}",
        (
            f"Startup log of {label} shows {setting} {shown}; the vendor claims {said}",
            f"Node {label} ({node.source or 'startup log'}) runs with {setting}={shown}: {why}",
            _ASK,
            [*(q for q, _ in claims), DEPLOY],
        ),
    )


def _disaggregated(node: DeployNode) -> bool:
    mode = node.cache_settings.get("disaggregation_mode")
    return node.role in {"prefill", "decode"} or mode in {
        "prefill",
        "decode",
        "kv_producer",
        "kv_consumer",
        "kv_both",
    }


def _cache_and_policy(answers: AnswerSet, node: DeployNode) -> list[SettingContradiction]:
    seen, out = node.cache_settings, []
    if seen.get("prefix_cache") is True and _known(answers, SCOPE) == "off":
        why = "the prefix cache is on, so cached prompt prefixes are reused."
        out.append(_item(node, "prefix_cache", "on", [(SCOPE, "off")], why))
    policy, claimed = seen.get("schedule_policy"), _known(answers, POLICY)
    if isinstance(policy, str) and claimed not in (None, "other") and policy != claimed:
        why = "requests are ordered by another policy than the one answered."
        out.append(_item(node, "schedule_policy", policy, [(POLICY, claimed)], why))
    tier, tiers = seen.get("external_kv_tier"), answers.answers.get(TIERS)
    if isinstance(tier, str) and tier and tiers is not None and tiers.not_applicable:
        why = "KV leaves the engine's memory for an external tier."
        out.append(_item(node, "external_kv_tier", tier, [(TIERS, "not_applicable")], why))
    return out


def _isolation(answers: AnswerSet, node: DeployNode) -> list[SettingContradiction]:
    seen, out = node.cache_settings, []
    canary, mode = seen.get("kv_canary"), _known(answers, CANARY)
    claims = [(CANARY, mode)] if isinstance(mode, str) and mode != canary else []
    if canary == "none" and _known(answers, CANARIES) is True:
        claims.append((CANARIES, "yes"))
    if isinstance(canary, str) and claims:
        why = "KV canaries do not run as answered."
        out.append(_item(node, "kv_canary", canary, claims, why))
    checksum = [
        (q, v)
        for q, v in (
            (CHECKSUM_MODE, _known(answers, CHECKSUM_MODE)),
            (CHECKSUMS, _known(answers, CHECKSUMS)),
        )
        if v not in (None, False, "off")
    ]
    if seen.get("kv_transfer_checksum") is False and checksum and _disaggregated(node):
        why = "KV moved between prefill and decode is not checksummed."
        out.append(_item(node, "kv_transfer_checksum", "off", checksum, why))
    split = seen.get("disaggregation_mode")
    if split in {"prefill", "decode"} and node.role not in {"prefill", "decode"}:
        if _known(answers, MODE) == "aggregated":
            why = "the node serves one side of a disaggregated pair."
            out.append(_item(node, "disaggregation_mode", split, [(MODE, "aggregated")], why))
    return out


def setting_contradictions(answers: AnswerSet, node: DeployNode) -> list[SettingContradiction]:
    """Return the answers contradicted by the settings node's startup log shows."""
    return _cache_and_policy(answers, node) + _isolation(answers, node)


def carried_advisories(ctx: Context, deploy: DeployEvidence) -> list[ScoreFinding]:
    """Return deploy-check's ``advisory-settings-expose`` findings as
    ``deploy-advisory.<advisory>.<node>``: settings the answers cannot show. The title is
    deploy-check's without its node, so the review folds the two into one finding."""
    out: list[ScoreFinding] = []
    for raw in deploy.findings:
        rests = [r for r in raw.get("rests_on", []) if isinstance(r, str)]
        if raw.get("id") != "advisory-settings-expose" or not rests:
            continue
        advisory, node = rests[0], str(raw.get("node") or "node")
        finding = ctx.finding(
            f"deploy-advisory.{advisory}.{node}",
            Severity(str(raw.get("severity", "medium"))),
            str(raw.get("title", advisory)).removeprefix(f"{node}: "),
            str(raw.get("detail", "")),
            str(raw.get("remediation", "")),
            [DEPLOY],
            evidence=EvidenceLevel.VERIFIED,
            advisories=[advisory] if advisory in ctx.advisories else [],
        )
        out.append(finding)
    return out
