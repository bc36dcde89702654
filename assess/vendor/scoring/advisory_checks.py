"""The ``advisories`` check: the vendor's engine, version, mode and settings answers against
every advisory in the catalogue.

Per advisory: the answers name one of its engines, the version is in one of that engine's ranges,
the deployment mode is one it names, and every answer it lists as exposing (``exposed_if``) has
an exposing value: a critical finding. A known answer outside any of these clears it. When the
rest holds and an answer is unknown (or the version is one the sources do not settle), it says
so: an info finding with no points (``advisory-unconfirmed.<id>``): unknown is measured on the
coverage axis, not scored as risk. An advisory about a library no ``engine.name`` answer names
(redis-py) is decided by its ``exposed_if`` answers, a ``version_of`` condition reading the answer
as a version against the library's ranges. Every finding names the advisories it rests on, and
rests on the answers that decide it (``exposed_if`` answers too).
"""

from __future__ import annotations

from typing import Literal

from packaging.version import InvalidVersion

from assess.advisories.facts import AnswerCondition
from assess.advisories.models import Advisory, EngineScope
from assess.kernel.common import Severity
from assess.kernel.model_ids import normalise_model_id
from assess.vendor.questionnaire import NOT_APPLICABLE, UNKNOWN
from assess.vendor.scoring.findings import Context, sentence
from assess.vendor.scoring.models import ScoreFinding
from assess.vendor.scoring.platform import platform_finding

ENGINE, VERSION, MODE = "engine.name", "engine.version", "deployment.mode"
MODELS = "vendor.models"
#: ``engine.name`` values that name no public engine (a library advisory, redis-py, is none either)
UNNAMED = frozenset({"proprietary", "other", UNKNOWN})
Holds = Literal["yes", "no", "cannot-tell"]


def _affected(scope: EngineScope, version: object) -> Holds:
    """Whether ``version`` is in the range: cannot-tell when unknown, unparsable or unsettled."""
    if not isinstance(version, str) or version in (UNKNOWN, NOT_APPLICABLE):
        return "cannot-tell"
    try:
        verdict = scope.verdict(version)
    except InvalidVersion:
        return "cannot-tell"
    return {"affected": "yes", "not-affected": "no"}.get(verdict, "cannot-tell")  # type: ignore[return-value]


def _matching_range(adv: Advisory, name: object, version: object) -> tuple[EngineScope, Holds]:
    """The advisory's range of engine ``name`` that ``version`` falls in, else one that cannot
    be ruled out, else the first range with "no"; raises KeyError when no range names it."""
    ranges = adv.engines_named(name) if isinstance(name, str) else []
    verdicts = [(scope, _affected(scope, version)) for scope in ranges]
    for wanted in ("yes", "cannot-tell", "no"):
        for scope, holds in verdicts:
            if holds == wanted:
                return scope, holds
    raise KeyError(adv.id)


def _mode(scope: EngineScope, mode: object) -> Holds:
    if not scope.deployment_modes:
        return "yes"
    if mode in (UNKNOWN, NOT_APPLICABLE, None):
        return "cannot-tell"
    return "yes" if mode in scope.deployment_modes else "no"


def _condition(adv: Advisory, cond: AnswerCondition, value: object) -> Holds:
    """Whether a known answer meets ``cond``: one of its values, or a version in the ranges of
    ``cond.version_of`` (an unsettled version: cannot-tell)."""
    if cond.version_of:
        return _matching_range(adv, cond.version_of, value)[1]
    return "yes" if value in cond.values else "no"


def _exposure(ctx: Context, adv: Advisory) -> tuple[Holds, list[str]]:
    """Whether the answers listed in ``exposed_if`` expose the deployment, and the ones that do
    not settle it (unknown, or a version the sources do not settle)."""
    unsure: list[str] = []
    for cond in adv.exposed_if:
        answer = ctx.answers.get(cond.question)
        if answer.not_applicable:
            return "no", []
        holds = _condition(adv, cond, answer.value) if answer.known else "cannot-tell"
        if holds == "no":
            return "no", []
        if holds == "cannot-tell":
            unsure.append(cond.question)
    return ("cannot-tell" if unsure else "yes"), unsure


def engine_unknown(ctx: Context) -> bool:
    """Whether the engine is not named (unanswered or ``unknown``): no engine advisory can be
    ruled out, so every one is "cannot tell"."""
    answer = ctx.answers.get(ENGINE)
    return not answer.known and not answer.not_applicable


def engine_unsettled(findings: list[ScoreFinding]) -> bool:
    """Whether an engine advisory is "cannot tell" because the engine is not named: the
    evidence then cannot be sufficient, whatever share of the weight is answered."""
    return any(f.id.startswith("advisory-unconfirmed.") and ENGINE in f.rests_on for f in findings)


def _serving_engines(ctx: Context, adv: Advisory) -> bool:
    """Whether ``adv`` names a serving engine the ``engine.name`` question can name."""
    question = ctx.bank.question(ENGINE)
    names = set(question.values or []) - UNNAMED if question is not None else set()
    return any(scope.name in names for scope in adv.engines)


def _unknown_engine_finding(ctx: Context, adv: Advisory) -> ScoreFinding | None:
    """An engine advisory against an engine not named: "cannot tell" unless an exposing answer
    rules it out."""
    exposed, missing = _exposure(ctx, adv)
    if exposed == "no" or not _serving_engines(ctx, adv):
        return None
    unsure = [ENGINE, *missing]
    engines = ", ".join(dict.fromkeys(s.name for s in adv.engines))
    return ctx.finding(
        f"advisory-unconfirmed.{adv.id}", Severity.INFO,
        f"Cannot tell whether advisory {adv.id} applies (engine not named; it affects {engines})",
        f"{sentence(adv.title)} Not settled by the answers: {', '.join(unsure)}. Cannot tell is"
        " not risk: it is counted in the coverage, and the questions are asked again.",
        f"Ask for {', '.join(unsure)} (and engine.version).", unsure, advisories=[adv.id],
    )  # fmt: skip


def _exposure_finding(ctx: Context, adv: Advisory) -> ScoreFinding | None:
    """An advisory about a setting, not an engine (no ``engines``): the ``exposed_if`` answers
    alone decide. Its risk is scored by the rule on the same answers, so it adds no points: it
    names the advisory the answers fall in (info). An unanswered setting is already a question
    to send (coverage): no second "cannot tell" row for it."""
    exposed, _missing = _exposure(ctx, adv)
    if exposed != "yes":
        return None
    said = _said(ctx, adv)
    return ctx.finding(
        f"advisory.{adv.id}", Severity.INFO,
        f"The answers fall in advisory {adv.id} ({said})",
        f"{sentence(adv.title)} Exposed by the answers: {said}. The risk is scored by the"
        " finding on the same answers; this one names the advisory.",
        f"Apply the advisory's mitigations (see `assess advisories show {adv.id}`).",
        [c.question for c in adv.exposed_if], advisories=[adv.id],
    )  # fmt: skip


def _said(ctx: Context, adv: Advisory) -> str:
    return ", ".join(ctx.said(c.question, named=True) for c in adv.exposed_if)


def _library_finding(ctx: Context, adv: Advisory) -> ScoreFinding | None:
    """An advisory about a library no ``engine.name`` answer names (redis-py): its ``exposed_if``
    answers decide, a version condition read against the library's ranges. All hold: a finding
    at the advisory's severity. Some hold and the rest are unknown or unsettled: "cannot tell"
    (info, no points). None known: the questions are in the coverage, no row."""
    exposed, unsure = _exposure(ctx, adv)
    if exposed == "no" or len(unsure) == len(adv.exposed_if):
        return None
    said, rests = _said(ctx, adv), [c.question for c in adv.exposed_if]
    ranges = [
        _matching_range(adv, c.version_of, ctx.answers.value(c.question))[0]
        for c in adv.exposed_if
        if c.version_of and c.question not in unsure
    ] or adv.engines
    detail = f"{sentence(adv.title)} Affected: {'; '.join(s.range_text() for s in ranges)}."
    fixed = [f"{s.name} {s.fixed_version}" for s in ranges if s.fixed_version]
    remediation = (
        f"Upgrade to {' or '.join(fixed)} or later." if fixed
        else f"Apply the advisory's mitigations (see `assess advisories show {adv.id}`)."
    )  # fmt: skip
    if exposed == "yes":
        return ctx.finding(
            f"advisory.{adv.id}", adv.severity, f"The answers fall in advisory {adv.id} ({said})",
            f"{detail} Exposed by the answers: {said}.", remediation, rests, advisories=[adv.id],
        )  # fmt: skip
    return ctx.finding(
        f"advisory-unconfirmed.{adv.id}", Severity.INFO,
        f"Cannot tell whether advisory {adv.id} applies ({said})",
        f"{detail} Not settled by the answers: {', '.join(unsure)}. Cannot tell is not risk: it"
        " is counted in the coverage, and the questions are asked again.",
        f"Ask for {', '.join(unsure)}. {remediation}", unsure, advisories=[adv.id],
    )  # fmt: skip


def _advisory_finding(ctx: Context, adv: Advisory) -> ScoreFinding | None:
    if adv.not_checked:  # listed in the result's advisories_not_checked, never silently
        return None
    if not adv.engines:
        return _exposure_finding(ctx, adv) if adv.exposed_if else None
    if not _serving_engines(ctx, adv):
        return _library_finding(ctx, adv) if adv.exposed_if else None
    if engine_unknown(ctx):
        return _unknown_engine_finding(ctx, adv)
    name, version, mode = (ctx.answers.value(q) for q in (ENGINE, VERSION, MODE))
    try:
        scope, affected = _matching_range(adv, name, version)
    except KeyError:
        return None
    exposed, missing = _exposure(ctx, adv)
    holds = (affected, _mode(scope, mode), exposed)
    if "no" in holds:
        return None
    # it rests on the answers that decide it, the exposing ones too (a checksum off, a shared
    # cache): the root-cause merge folds the findings on those answers into it (counted once)
    rests = [ENGINE, VERSION, MODE, *(c.question for c in adv.exposed_if)]
    detail = f"{sentence(adv.title)} Affected: {scope.range_text()}."
    if adv.exposed_if:
        detail += f" Exposed by the answers: {_said(ctx, adv)}."
    remediation = (
        f"Upgrade {scope.name} to {scope.fixed_version} or later."
        if scope.fixed_version
        else f"No fixed {scope.name} version is recorded: apply the advisory's mitigations."
    )
    if all(h == "yes" for h in holds):
        title = f"{scope.name} {version} ({mode}) is affected by advisory {adv.id}"
        return ctx.finding(
            f"advisory.{adv.id}", adv.severity, title, detail, remediation, rests,
            advisories=[adv.id],
        )  # fmt: skip
    unsure = [q for q, h in ((VERSION, affected), (MODE, holds[1])) if h == "cannot-tell"]
    unsure += missing
    title = f"Cannot tell whether advisory {adv.id} applies ({scope.name} {version}, mode {mode})"
    detail += (
        f" Not settled by the answers: {', '.join(unsure)}. Cannot tell is not risk: it is"
        " counted in the coverage, and the questions are asked again."
    )
    # it rests on what is not known: answering those settles it
    return ctx.finding(
        f"advisory-unconfirmed.{adv.id}", Severity.INFO, title, detail,
        f"Ask for {', '.join(unsure)}. {remediation}", unsure, advisories=[adv.id],
    )  # fmt: skip


def _during(adv: Advisory) -> str:
    if adv.window is None:
        return "at the time"
    return f"between {adv.window.start:%Y-%m-%d} and {adv.window.end:%Y-%m-%d}"


def check_advisories(ctx: Context) -> list[ScoreFinding]:
    """Findings for every advisory whose engine, version range, mode and settings match, and for
    the advisories whose model the vendor serves (on the advisory's platform or elsewhere)."""
    out: list[ScoreFinding] = []
    served = ctx.answers.value(MODELS)
    names = {normalise_model_id(m) for m in served} if isinstance(served, list) else set()
    for adv in sorted(ctx.advisories.values(), key=lambda a: a.id):
        found = _advisory_finding(ctx, adv)
        if found is not None:
            out.append(found)
        hit = sorted(names & set(adv.models.names)) if adv.models else []
        on_platform = platform_finding(ctx, adv, hit)
        if on_platform is not None:
            out.append(on_platform)
        elif hit:
            out.append(
                ctx.finding(
                    f"advisory-model-served.{adv.id}",
                    Severity.INFO,
                    f"Serves {', '.join(hit)}, the model named by advisory {adv.id}",
                    f"{sentence(adv.title)} If you used it {_during(adv)}, scope your exposure"
                    f" with `assess scope --incident {adv.id}`.",
                    "Scope your own logs against the advisory.",
                    [MODELS],
                    advisories=[adv.id],
                )
            )
    return out
