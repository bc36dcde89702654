"""Technical evidence against the vendor's claims: probe results and deploy-check results.

A claim the evidence contradicts is an ``attestation-contradicted.*`` finding (severity from the
questionnaire, critical in the shipped one); evidence that merely adds facts is reported plainly.
"""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

from assess.kernel.common import EvidenceLevel, Severity
from assess.vendor.scoring.binding import EvidenceBinding
from assess.vendor.scoring.checks import CONTEXT, ENGINE, MODE, POOL, VERSION
from assess.vendor.scoring.deploy_settings import carried_advisories, setting_contradictions
from assess.vendor.scoring.evidence import DeployEvidence, DeployNode, ProbeEvidence
from assess.vendor.scoring.findings import Context
from assess.vendor.scoring.models import ScoreFinding

PROBE, DEPLOY = "evidence:probe", "evidence:deploy-check"
CACHE_PROBE = "evidence:cache-probe"
CHECKED = "deployment.pool_checked_after_config_change"


def _contradiction(
    ctx: Context, suffix: str, title: str, detail: str, remediation: str, rests: list[str]
) -> ScoreFinding:
    finding = ctx.finding(
        f"attestation-contradicted.{suffix}",
        ctx.bank.scoring.contradiction_severity,
        title,
        detail,
        remediation,
        rests,
        contradiction=True,
    )
    return finding.model_copy(update={"evidence_level": EvidenceLevel.VERIFIED})


def not_about(ctx: Context, binding: EvidenceBinding) -> ScoreFinding:
    """Return the info finding that shows evidence not scored (not about this vendor, or stale),
    labelled with the reason."""
    rests = {"probe": PROBE, "cache-probe": CACHE_PROBE}.get(binding.kind, DEPLOY)
    command = "probe --mode cache" if binding.kind == "cache-probe" else binding.kind
    what = binding.endpoint or ", ".join(binding.nodes) or f"the {binding.kind}"
    models = ", ".join(binding.models) or "?"
    if not binding.about_vendor:
        fid = f"evidence-not-about-vendor.{binding.kind}"
        title = f"The {binding.kind} evidence is not about this vendor: {binding.reason}"
    else:
        fid = f"evidence-stale.{binding.kind}"
        title = f"The {binding.kind} evidence is stale: {binding.freshness_reason}"
    return ctx.finding(
        fid,
        Severity.INFO,
        title,
        f"{what} (model {models}) is not scored against this vendor. Pass "
        "--evidence-for-vendor if it is the vendor's service as assessed.",
        f"Run `assess {command}` against the vendor's own service, model and period.",
        [rests],
        evidence=EvidenceLevel.VERIFIED,
    )


def probe_findings(ctx: Context, probe: ProbeEvidence) -> list[ScoreFinding]:
    """Findings from a canary probe: a leak contradicts every isolation claim answered yes."""
    stats = probe.stats
    hits = max(stats.hits, len(probe.hits))
    numbers = f"{hits} hit(s) in {stats.probes} probe(s)"
    where = f"{probe.endpoint or 'the endpoint'} (model {probe.model or '?'}, run {probe.run_id})"
    if not probe.complete:
        where += " [run incomplete]"
    if probe.verdict == "inconclusive" and probe.complete:
        where += " [inconclusive: too few answers could have shown a marker]"
    if not probe.leak_found:
        bound = (
            f"; leak rate below {stats.leak_rate_upper_95:.2%} (95% upper bound)"
            if stats.leak_rate_upper_95 is not None
            else ""
        )
        return [
            ctx.finding(
                "probe-no-leak-observed",
                Severity.INFO,
                "Canary probe found no cross-request leak",
                f"{where}: {numbers}{bound}. A clean probe catches gross leaks only: bugs "
                "triggered by size or timing (like the GLM-5.3 one) can slip past it.",
                "Repeat the probe after vendor upgrades and configuration changes.",
                [PROBE],
                evidence=EvidenceLevel.VERIFIED,
            )
        ]
    claims = [q for q in ctx.bank.contradictions.probe_leak if ctx.answers.value(q) is True]
    detail = f"{where}: {numbers}: a canary planted in one request came back in another."
    remediation = "Stop sending sensitive prompts; escalate to the vendor with the probe report."
    if claims:
        return [
            _contradiction(
                ctx,
                "probe-leak",
                "Probe found a cross-request leak; the vendor claims isolation controls/testing",
                f"{detail} Claimed: {', '.join(claims)}.",
                remediation,
                [*claims, PROBE],
            )
        ]
    return [
        ctx.finding(
            "probe-leak-found",
            Severity.CRITICAL,
            "Canary probe found a cross-request leak",
            detail,
            remediation,
            [PROBE],
            evidence=EvidenceLevel.VERIFIED,
        )
    ]


def _pool_finding(ctx: Context, node: DeployNode, index: int) -> ScoreFinding | None:
    pool, window = node.pool_tokens, node.context_tokens
    if pool is None or window is None or pool >= window:
        return None
    label = node.name or f"node{index + 1}"
    share = (window - pool) / window
    fact = (
        f"Node {label} ({node.role}, {node.source or 'startup log'}) has a KV pool of {pool:,} "
        f"tokens for a {window:,}-token context: {share:.0%} of the window has no backing memory."
    )
    claimed = ctx.answers.value(POOL)
    advertised = ctx.answers.value(CONTEXT)
    claimed_pool = claimed.get(node.role) if isinstance(claimed, dict) else None
    says_enough = isinstance(claimed_pool, int) and (
        claimed_pool >= (advertised if isinstance(advertised, int) else window)
    )
    says_checked = ctx.answers.value(CHECKED) is True
    remediation = "Lower the context length or grow the pool on that node; re-check after changes."
    if says_enough or says_checked:
        rests = [q for q, on in ((POOL, says_enough), (CHECKED, says_checked)) if on]
        return _contradiction(
            ctx,
            f"kv-pool.{label}",
            f"Startup log shows pool < context on {label}; the vendor claims otherwise",
            f"{fact} Claimed: {', '.join(rests)}.",
            remediation,
            [*rests, DEPLOY],
        )
    if claimed_pool is not None:
        return None  # the vendor's own answer already says so: the pool check reports it
    disagg = node.role == "prefill" or ctx.answers.value(MODE) == "disaggregated"
    return ctx.finding(
        f"deploy-pool-smaller-than-context.{label}",
        Severity.CRITICAL if node.role == "prefill" and disagg else Severity.HIGH,
        f"Startup log shows a KV pool smaller than the context on {label}",
        fact,
        remediation,
        [DEPLOY],
        evidence=EvidenceLevel.VERIFIED,
    )


def _same_name(a: str, b: str) -> bool:
    return a.strip().lower() == b.strip().lower()


def _same_version(a: str, b: str) -> bool:
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a.strip().lower() == b.strip().lower()


def _engine_findings(ctx: Context, node: DeployNode, index: int) -> list[ScoreFinding]:
    label = node.name or f"node{index + 1}"
    out: list[ScoreFinding] = []
    name, version, mode = (ctx.answers.value(q) for q in (ENGINE, VERSION, MODE))
    pairs = [
        (ENGINE, "engine-name", node.engine, name, _same_name),
        (VERSION, "engine-version", node.version, version, _same_version),
    ]
    for qid, suffix, seen, claimed, same in pairs:
        if seen is None or seen.strip().lower() in {"", "unknown"}:
            continue  # the log did not show it: missing evidence, not a contradiction
        if isinstance(claimed, str) and claimed != "unknown" and not same(seen, claimed):
            out.append(
                _contradiction(
                    ctx,
                    f"{suffix}.{label}",
                    f"Startup log of {label} shows {qid} {seen}; the vendor claims {claimed}",
                    f"Node {label} ({node.source or 'startup log'}) runs {seen}.",
                    "Ask the vendor to explain the difference and to re-attest.",
                    [qid, DEPLOY],
                )
            )
    if node.role in {"prefill", "decode"} and mode == "aggregated":
        out.append(
            _contradiction(
                ctx,
                f"deployment-mode.{label}",
                f"Startup log of {label} shows a {node.role} node; the vendor claims aggregated",
                f"Node {label} runs as a {node.role} node, i.e. disaggregated serving.",
                "Ask the vendor to re-attest the deployment mode.",
                [MODE, DEPLOY],
            )
        )
    return out


def deploy_findings(ctx: Context, deploy: DeployEvidence) -> list[ScoreFinding]:
    """Findings from a deploy-check: contradicted pool, engine, version and mode claims."""
    out: list[ScoreFinding] = []
    for index, node in enumerate(deploy.nodes):
        pool = _pool_finding(ctx, node, index)
        if pool is not None:
            out.append(pool)
        out += _engine_findings(ctx, node, index)
        out += [
            _contradiction(ctx, f"{c.suffix}.{node.name or f'node{index + 1}'}", *c.text)
            for c in setting_contradictions(ctx.claims, node)
        ]
    return out + carried_advisories(ctx, deploy)
