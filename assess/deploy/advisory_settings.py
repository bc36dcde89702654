"""Judge a node's settings against the advisories' setting facts (``advisories/*.yaml``).

Each advisory lists the settings that expose, mitigate or detect it, by the names the engine
prints (``disable_radix_cache``, ``hicache_storage_backend``, ``enable_prefix_caching``, ...),
with the values that have that effect, the other settings that must hold too (``when``) and the
engine versions where the fact holds. A node's value comes from its startup log; a setting the
log does not show is "not shown in this log" (coverage, an info finding), never a risk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from assess.advisories.facts import SettingFact
from assess.advisories.models import Advisory
from assess.deploy.models import NodeFinding, Scalar
from assess.deploy.view import Deployment, NodeView, _finding
from assess.kernel.common import Severity

State = Literal["holds", "version", "no", "out-of-range", "unknown"]
_UNKNOWN = object()


@dataclass(frozen=True)
class Reading:
    """A setting as the node's log gives it: its value and where it was read (or why not)."""

    value: Scalar | object
    where: str


def read_setting(node: NodeView, key: str, default: Scalar | None) -> Reading:
    """Return ``key``'s value on ``node``: printed, implied by a whole printout, or unknown."""
    log = node.log
    if key in log.engine_args:
        return Reading(log.engine_args[key], log.engine_arg_lines.get(key, ""))
    if log.engine_args_whole:
        if default is not None:
            return Reading(default, f"{key} not printed: its default {_text(default)}")
        if log.engine == "sglang":  # every field is printed: this release has no such setting
            return Reading(None, f"{key} is not a setting of this release")
    return Reading(_UNKNOWN, f"{key} not shown in this log")


def _text(value: object) -> str:
    if value is None or isinstance(value, bool):
        return {True: "true", False: "false", None: "none"}[value]
    return str(value)


def _same(value: object, wanted: Sequence[object]) -> bool:
    return _text(value).lower() in {_text(w).lower() for w in wanted}


def fact_state(fact: SettingFact, node: NodeView) -> tuple[State, list[str]]:
    """Return whether ``fact`` holds on ``node`` and the readings it rests on.

    ``version``: the settings are as the fact says, but it holds only in some engine versions
    and the log does not give the version.
    """
    applies = fact.holds_for(node.log.version if node.version is not None else None)
    if applies is False:
        return "out-of-range", []
    checks = [(fact.setting, list(fact.values), fact.default)]
    checks += [(key, list(values), None) for key, values in fact.when.items()]
    unknown = False
    lines: list[str] = []
    for key, wanted, default in checks:
        reading = read_setting(node, key, default)
        if reading.value is _UNKNOWN:
            unknown = True
        elif not _same(reading.value, wanted):
            return "no", []
        else:
            lines.append(f"{key}={_text(reading.value)} ({reading.where})")
    if unknown:
        return "unknown", lines
    return ("holds" if applies else "version"), lines


def version_verdict(adv: Advisory, node: NodeView) -> str:
    """Return affected, not-affected, cannot-tell, or unknown (no version in the log).

    An advisory that names no range of this engine is about settings (the prompt-cache sharing
    class): they expose it in every version, unless a request field can isolate it there, which
    a startup log cannot show (then not-affected, and the finding says so at medium).
    """
    if not adv.engines_named(node.log.engine):
        return "not-affected" if _request_mitigations(adv, node) else "affected"
    if node.version is None:
        return "unknown"
    verdicts = {scope.verdict(str(node.version)) for scope in adv.engines_named(node.log.engine)}
    for verdict in ("affected", "cannot-tell"):
        if verdict in verdicts:
            return verdict
    return "not-affected"


def exposing_settings(node: NodeView, dep: Deployment) -> set[str]:
    """Return the engine flags an advisory's exposing fact holds on (its finding names them)."""
    return {
        fact.setting
        for adv in dep.advisories.values()
        for fact in adv.settings
        if fact.engine.lower() == node.log.engine and fact.effect == "exposes"
        and version_verdict(adv, node) == "affected" and fact_state(fact, node)[0] == "holds"
    }  # fmt: skip


def advisory_settings(node: NodeView, dep: Deployment) -> list[NodeFinding]:
    """Settings that expose the node to an advisory, or that the log does not show."""
    found: list[NodeFinding] = []
    for adv in dep.advisories.values():
        facts = [
            f for f in adv.settings if f.engine.lower() == node.log.engine and f.where == "server"
        ]
        exposing = [(f, *fact_state(f, node)) for f in facts if f.effect == "exposes"]
        if not exposing:
            continue
        verdict = version_verdict(adv, node)
        holding = [(f, lines) for f, state, lines in exposing if state == "holds"]
        holding = holding or [(f, lines) for f, state, lines in exposing if state == "version"]
        unknown = [f for f, state, _ in exposing if state == "unknown"]
        if holding:
            finding = _exposed(adv, node, verdict, holding, facts)
        elif unknown and (verdict != "not-affected" or _request_mitigations(adv, node)):
            finding = _not_shown(adv, node, unknown)
        elif verdict == "affected" and all(s == "out-of-range" for _, s, _ in exposing):
            finding = _no_setting_helps(adv, node, dep)
        else:
            finding = None
        if finding is not None:
            found.append(finding)
    return found


def _exposed(
    adv: Advisory,
    node: NodeView,
    verdict: str,
    holding: list[tuple[SettingFact, list[str]]],
    facts: Sequence[SettingFact],
) -> NodeFinding | None:
    version = node.log.version
    request = _request_mitigations(adv, node)
    if verdict == "affected":
        severity, why = adv.severity, f"{node.log.engine} {version} is in the affected range"
    elif request:
        severity = Severity.MEDIUM
        why = (
            f"{node.log.engine} {version or '(version not in the log)'} can be isolated only by "
            + ", ".join(f"the request field {f.setting}" for f in request)
            + ", which a startup log cannot show: "
            + " ".join(f.note for f in request)
        )
    elif verdict == "not-affected":
        return None  # fixed in this version; the settings no longer expose it
    else:
        severity = Severity.MEDIUM
        why = (
            f"the {node.log.engine} version is not in the log"
            if verdict == "unknown"
            else f"the sources do not settle whether {node.log.engine} {version} is affected"
        )
    readings = [line for _, lines in holding for line in lines]
    detects = _held(facts, node, "detects")
    detail = f"{adv.title}. The log shows {'; '.join(readings)}: {holding[0][0].note} ({why})."
    if detects:
        detail += " Detection on: " + "; ".join(detects) + " (it detects, it does not prevent)."
    return _finding(
        node.name,
        "advisory-settings-expose",
        severity,
        f"{node.name}: settings expose it to advisory {adv.id}",
        detail,
        _fix(adv, node),
        [adv.id, node.name, *readings],
        [adv.id],
    )


def _request_mitigations(adv: Advisory, node: NodeView) -> list[SettingFact]:
    """Return the advisory's mitigations that are request fields (a startup log cannot show)."""
    version = node.log.version if node.version is not None else None
    return [
        f for f in adv.settings
        if f.engine.lower() == node.log.engine and f.where == "request"
        and f.effect == "mitigates" and f.holds_for(version) is not False
    ]  # fmt: skip


def _held(facts: Sequence[SettingFact], node: NodeView, effect: str) -> list[str]:
    return [
        f"{f.setting}: {f.note}" for f in facts
        if f.effect == effect and fact_state(f, node)[0] == "holds"
    ]  # fmt: skip


def _fix(adv: Advisory, node: NodeView) -> str:
    fixed = [s.fixed_version for s in adv.engines_named(node.log.engine) if s.fixed_version]
    steps = [f"Upgrade {node.log.engine} to {max(fixed)} or later"] if fixed else []
    steps += [
        f"{f.effect} - {f.setting}={'/'.join(_text(v) for v in f.values)} ({f.where}): "
        + f.note.strip().rstrip(".")
        for f in adv.settings
        if f.engine.lower() == node.log.engine and f.effect in ("mitigates", "detects")
    ]  # fmt: skip
    return "; ".join(steps) + "." if steps else f"See advisory {adv.id}."


def _no_setting_helps(adv: Advisory, node: NodeView, dep: Deployment) -> NodeFinding | None:
    """An affected version whose release has none of the settings that would expose or help."""
    mode = "disaggregated" if node.role.disaggregated or dep.disaggregated else "aggregated"
    scopes = adv.engines_named(node.log.engine)
    if not any(not s.deployment_modes or mode in s.deployment_modes for s in scopes):
        return None
    return _finding(
        node.name,
        "engine-version-affected",
        adv.severity,
        f"{node.name}: {node.log.engine} {node.log.version} is named by advisory {adv.id}",
        f"{adv.title}. Affected: "
        + "; ".join(s.range_text() for s in scopes)
        + f"; this node runs {mode}, and this release has none of the settings the advisory "
        "names (" + ", ".join(sorted({f.setting for f in adv.settings})) + ").",
        _fix(adv, node),
        [adv.id, node.name],
        [adv.id],
    )


def _not_shown(adv: Advisory, node: NodeView, facts: Sequence[SettingFact]) -> NodeFinding:
    names = sorted({f.setting for f in facts} | {k for f in facts for k in f.when})
    return _finding(
        node.name,
        "advisory-settings-not-shown",
        Severity.INFO,
        f"{node.name}: the log does not show the settings advisory {adv.id} turns on",
        f"{adv.title}. Not shown in this log: {', '.join(names)}; whether they expose this "
        "node cannot be said from it (coverage, not a finding of risk).",
        "Give the launch's full startup log (SGLang's server_args line, vLLM's non-default "
        "args and engine line), or the launch command.",
        [adv.id, node.name],
        [adv.id],
    )
