"""The deploy-check rules: pure functions from nodes to findings (never print, never read files).

Each node rule takes a :class:`NodeView` and the :class:`Deployment` it belongs to; each
deployment rule takes the deployment. Both return findings; the lists at the end are the registry.
"""

from __future__ import annotations

from collections.abc import Callable

from packaging.version import Version

from assess.deploy.advisory_settings import advisory_settings, exposing_settings
from assess.deploy.fixes import fix_no_kv_memory, fix_pool
from assess.deploy.models import IsolationSetting, NodeFinding, Role
from assess.deploy.view import Deployment as Deployment  # check.py imports them from here
from assess.deploy.view import NodeView as NodeView
from assess.deploy.view import _evidence, _finding
from assess.kernel.common import Severity

INCIDENT_NOTE = (
    "This is the GLM-5.3 incident's configuration: SGLang before 0.5.22 in disaggregated mode "
    "replaced an over-length prompt with a one-token placeholder without retiring it, and decode "
    "attended over stale KV pages written by other requests."
)


def uncovered(pool: int, window: int) -> str:
    """Return the share of ``window`` with no backing memory, e.g. '35.0%'."""
    return f"{(window - pool) / window:.1%}"


def _pool_severity(node: NodeView) -> Severity:
    return Severity.CRITICAL if node.role is Role.PREFILL else Severity.HIGH


def pool_vs_context(node: NodeView, dep: Deployment) -> list[NodeFinding]:
    """Pool smaller than the context length this node serves."""
    pool, ctx = node.log.pool_tokens, node.log.context_tokens
    if pool is None or ctx is None or pool >= ctx:
        return []
    detail = (
        f"{uncovered(pool, ctx)} of the context window ({ctx - pool:,} of {ctx:,} tokens) has no "
        f"backing KV memory on this {node.role.value} node: a prompt longer than {pool:,} tokens "
        "cannot be held by the pool."
    )
    if node.role is Role.PREFILL and node.log.engine == "sglang":
        detail += " " + INCIDENT_NOTE
    if node.log.settings.get("refused_to_start"):
        return []  # refused_to_start says it, with the refusal's own numbers
    return [
        _finding(
            node.name,
            "pool-smaller-than-context",
            _pool_severity(node),
            f"{node.name}: KV pool ({pool:,} tokens) is smaller than the context length ({ctx:,})",
            detail,
            fix_pool(node, pool),
            _evidence(node, "pool_tokens", "context_tokens"),
        )
    ]


def pool_vs_advertised(node: NodeView, dep: Deployment) -> list[NodeFinding]:
    """Pool smaller than the context window the service advertises (--advertised-context)."""
    pool, adv = node.log.pool_tokens, dep.advertised_context
    if pool is None or adv is None or pool >= adv:
        return []
    ctx = node.log.context_tokens
    if ctx is not None and pool < ctx and ctx == adv:
        return []  # pool_vs_context already says exactly this
    return [
        _finding(
            node.name,
            "pool-smaller-than-advertised-context",
            _pool_severity(node),
            f"{node.name}: KV pool ({pool:,} tokens) is smaller than the advertised context "
            f"({adv:,})",
            f"{uncovered(pool, adv)} of the advertised window ({adv - pool:,} of {adv:,} tokens) "
            f"has no backing KV memory on this {node.role.value} node.",
            fix_pool(node, pool) + " Or advertise no more than the pool holds.",
            _evidence(node, "pool_tokens") + [f"--advertised-context {adv}"],
        )
    ]


def pool_vs_deployment(node: NodeView, dep: Deployment) -> list[NodeFinding]:
    """A node's pool is smaller than the longest context another node of the deployment serves.

    In disaggregated serving the decode node receives the whole prompt's KV from prefill, so
    every node must hold the longest context any node accepts.
    """
    pool = node.log.pool_tokens
    own = node.log.context_tokens or 0
    if pool is None or not dep.disaggregated:
        return []
    widest = max(
        (n for n in dep.nodes if n.log.context_tokens is not None),
        key=lambda n: n.log.context_tokens or 0,
        default=None,
    )
    if widest is None or widest is node:
        return []
    ctx = widest.log.context_tokens or 0
    if pool >= ctx or pool < own:
        return []  # fits, or pool_vs_context already flags it
    return [
        _finding(
            node.name,
            "pool-smaller-than-deployment-context",
            Severity.HIGH,
            f"{node.name}: KV pool ({pool:,} tokens) is smaller than the context {widest.name} "
            f"accepts ({ctx:,})",
            f"{uncovered(pool, ctx)} of the window {widest.name} accepts has no backing memory "
            f"here; the KV of a long prompt is handed over whole between prefill and decode.",
            fix_pool(node, pool),
            _evidence(node, "pool_tokens") + _evidence(widest, "context_tokens"),
        )
    ]


def advisory_version(node: NodeView, dep: Deployment) -> list[NodeFinding]:
    """An engine version that an advisory names."""
    # an advisory whose exposure turns on settings (``settings``: prefix cache, salt, checksum)
    # is judged on the settings, not on the version alone: not by this rule
    named = [
        a for a in dep.advisories.values() if a.engines_named(node.log.engine) and not a.settings
    ]
    if not named:
        return []
    if node.version is None:
        return [
            _finding(
                node.name,
                "engine-version-unknown",
                Severity.INFO,
                f"{node.name}: the {node.log.engine} version is not in the log",
                "Advisories name affected engine versions; without the version this node "
                "cannot be checked against them.",
                f"Add the version to the startup log: {node.log.hints.get('version', '')}.",
                [node.name, *sorted(a.id for a in named)],
                sorted(a.id for a in named),
            )
        ]
    found: list[NodeFinding] = []
    version = str(node.version)
    for adv in named:
        ranges = [e for e in adv.engines_named(node.log.engine) if e.is_affected(version)]
        if not ranges:
            continue
        scope = ranges[0]
        mode = "disaggregated" if node.role.disaggregated else "aggregated"
        if node.role is Role.UNKNOWN and dep.disaggregated:
            mode = "disaggregated"
        modes = scope.deployment_modes
        short = [n for n in dep.nodes if n.log.pool_tokens and n.log.context_tokens
                 and n.log.pool_tokens < n.log.context_tokens]  # fmt: skip
        if modes and mode not in modes:
            severity = Severity.LOW
            why = f"the advisory concerns {', '.join(modes)} mode and this node runs {mode}"
        elif short:
            severity = Severity.CRITICAL
            why = f"{mode} mode, and a pool smaller than the context on {short[0].name}"
        else:
            severity = Severity.HIGH
            why = f"{mode} mode"
        found.append(
            _finding(
                node.name,
                "engine-version-affected",
                severity,
                f"{node.name}: {node.log.engine} {version} is named by advisory {adv.id}",
                f"{adv.title}. Affected: {scope.name} {scope.affected}; {why}.",
                f"Upgrade {scope.name} to {scope.fixed_version} or later."
                if scope.fixed_version
                else f"No fixed {scope.name} version is recorded: apply {adv.id}'s mitigations.",
                [adv.id, *_evidence(node, "version")],
                [adv.id],
            )
        )
    return found


def _is_off(value: object, setting: IsolationSetting) -> bool:
    text = "none" if value is None else str(value).strip().lower()
    return text in setting.off_values


#: The engine flag behind each isolation_settings.yaml entry printed in server_args.
ISOLATION_FLAGS = {"kv_checksum": "disaggregation_enable_kv_checksum", "kv_canary": "kv_canary"}


def isolation_settings(node: NodeView, dep: Deployment) -> list[NodeFinding]:
    """Isolation settings off where the engine version supports them; unseen ones as info."""
    found: list[NodeFinding] = []
    unseen: list[IsolationSetting] = []
    covered = exposing_settings(node, dep)  # an advisory's finding says it, with its severity
    for setting in dep.isolation:
        if setting.engine != node.log.engine or node.role not in setting.roles:
            continue
        if ISOLATION_FLAGS.get(setting.id) in covered:
            continue
        supported = node.version is None or node.version >= Version(setting.since)
        if setting.id not in node.log.settings:
            if supported:
                unseen.append(setting)
            continue
        value = node.log.settings[setting.id]
        if not _is_off(value, setting) or not (supported or setting.printed_in == "server_args"):
            continue
        found.append(
            _finding(
                node.name,
                "isolation-setting-off",
                Severity.MEDIUM if node.role.disaggregated else Severity.LOW,
                f"{node.name}: {setting.title} is off",
                f"The log shows {setting.id}={value!r}; available since {node.log.engine} "
                f"{setting.since} ({setting.since_basis}).",
                setting.remediation,
                [setting.reference, *_evidence(node, f"settings.{setting.id}")],
            )
        )
    if unseen and node.role.disaggregated:
        names = ", ".join(s.title for s in unseen)
        found.append(
            _finding(
                node.name,
                "isolation-settings-not-in-log",
                Severity.INFO,
                f"{node.name}: {len(unseen)} isolation setting(s) cannot be seen in the log",
                f"Not printed: {names}. Environment variables are invisible unless the "
                "entrypoint echoes them.",
                "Echo the SGLANG_* isolation variables in the entrypoint before the launch.",
                [node.name, *(s.reference for s in unseen)],
            )
        )
    return found


def inconclusive(node: NodeView, dep: Deployment) -> list[NodeFinding]:
    """A log with no pool or no context length: the node cannot be judged."""
    if node.complete and node.log.problem is None:
        return []
    return [
        _finding(
            node.name,
            "log-inconclusive",
            Severity.MEDIUM,
            f"{node.name}: the log does not show whether the pool covers the context",
            missing_reason(node),
            "Give the node's full startup log (from the launch until 'ready'), or add the "
            "missing line to it.",
            [node.name],
        )
    ]


def missing_fields(node: NodeView) -> list[str]:
    """Return the judged fields the log lacks (pool_tokens, context_tokens)."""
    if node.log.problem is not None:
        return ["pool_tokens", "context_tokens"]
    return [k for k in ("pool_tokens", "context_tokens") if getattr(node.log, k) is None]


def missing_reason(node: NodeView) -> str:
    """Return why the node is inconclusive and which line to look for."""
    if node.log.problem is not None:
        return node.log.problem
    names = {"pool_tokens": "KV pool size", "context_tokens": "context length"}
    return "; ".join(
        f"no {names[k]} found: look for {node.log.hints.get(k, k)}" for k in missing_fields(node)
    )


def nodes_disagree(dep: Deployment) -> list[NodeFinding]:
    """Nodes of one deployment that run different engine versions or context lengths."""
    found: list[NodeFinding] = []
    for fid, what, key in (
        (
            "nodes-disagree-version",
            "engine versions",
            lambda n: f"{n.log.engine} {n.log.version}" if n.log.version else None,
        ),
        ("nodes-disagree-context", "context lengths", lambda n: n.log.context_tokens),
    ):
        values = {n.name: key(n) for n in dep.nodes if key(n) is not None}
        if len(set(values.values())) < 2:
            continue
        listing = ", ".join(f"{name}: {value}" for name, value in values.items())
        found.append(
            _finding(
                None,
                fid,
                Severity.MEDIUM,
                f"The nodes run different {what}",
                f"{listing}. Nodes that hand KV to each other should be configured alike; a "
                "mismatch is how one node ends up serving what another cannot hold.",
                f"Deploy the same {what} on every node of the deployment.",
                sorted(values),
            )
        )
    return found


def one_sided(dep: Deployment) -> list[NodeFinding]:
    """A disaggregated deployment checked from one side only."""
    roles = {n.role for n in dep.nodes if n.role.disaggregated}
    missing = [r for r in (Role.PREFILL, Role.DECODE) if r not in roles]
    if not dep.disaggregated or len(missing) != 1:
        return []
    return [
        _finding(
            None,
            "deployment-incomplete",
            Severity.INFO,
            f"No {missing[0].value} node log was given",
            f"The deployment is disaggregated, but only its "
            f"{next(iter(roles)).value} side was checked; "
            f"its {missing[0].value} nodes may differ.",
            f"Add the {missing[0].value} nodes' startup logs (--node {missing[0].value}=LOG).",
            [n.name for n in dep.nodes],
        )
    ]


NodeRule = Callable[[NodeView, Deployment], list[NodeFinding]]
DeploymentRule = Callable[[Deployment], list[NodeFinding]]


def refused_to_start(node: NodeView, dep: Deployment) -> list[NodeFinding]:
    """vLLM refused to start: the context asked does not fit the KV cache (every wording)."""
    settings, ctx, pool = node.log.settings, node.log.context_tokens, node.log.pool_tokens
    if not settings.get("refused_to_start"):
        return []
    need, have = settings.get("kv_cache_needed_gib"), settings.get("kv_cache_available_gib")
    sizes = f"{need} GiB of KV cache needed, {have} GiB available" if need and have else ""
    if pool is not None:
        holds = f"the KV cache holds {pool:,} tokens"
        fix = fix_pool(node, pool)
    elif ctx and isinstance(need, float) and isinstance(have, float) and need > 0:
        estimate = int(ctx * have / need)
        holds = (
            f"the KV cache holds about {estimate:,} tokens ({sizes}; the "
            "refusal gives no token figure: context x available / needed)"
        )
        fix = fix_pool(node, estimate)  # not the context asked: that is what did not fit
    elif settings.get("refusal_wording") == "no-kv-memory":
        holds = "no memory was left for the KV cache at all (the refusal prints no figures)"
        fix = fix_no_kv_memory(ctx)
    else:
        holds = f"the KV cache is too small ({sizes})" if sizes else "the KV cache is too small"
        fix = fix_pool(node, None)  # no figure of what fits: the context asked is not one
    asked = f"{ctx:,} tokens" if ctx else "the configured context"
    severity = _pool_severity(node) if pool is not None else Severity.HIGH
    return [
        _finding(
            node.name, "engine-refused-to-start", severity,
            f"{node.name}: the engine refused to start: the context asked ({asked}) does not fit "
            "the KV cache",
            f"The context asked is {asked}; {holds}" + (f" ({sizes})" if pool and sizes else "")
            + ". This launch serves nothing; a relaunch with other settings must be checked "
            "again: lowering only the memory reserved can make it start with a pool smaller "
            "than the context.",
            fix,
            _evidence(node, "settings.refused_to_start", "context_tokens", "pool_tokens"),
        )
    ]  # fmt: skip


NODE_RULES: tuple[NodeRule, ...] = (
    inconclusive,
    refused_to_start,
    pool_vs_context,
    pool_vs_advertised,
    pool_vs_deployment,
    advisory_version,
    advisory_settings,
    isolation_settings,
)
DEPLOYMENT_RULES: tuple[DeploymentRule, ...] = (nodes_disagree, one_sided)
