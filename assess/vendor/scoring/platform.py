"""The advisory's own platform serving its model: flagged with the incident and its remediation.

A vendor that serves an advisory's model is told to scope its logs (an info finding); when the
vendor *is* the advisory's platform, the incident happened there: a finding at least medium until
the fix is verified (the deployed engine version, verified, outside the affected range), high when
the advisory records no fix at all. Verified fixed, it stays listed (low,
``advisory-platform-fixed``). The questionnaire's decisive rule ``advisory-platform`` keeps the tier
at least medium until then.
"""

from __future__ import annotations

import re

from packaging.version import InvalidVersion

from assess.advisories.models import Advisory
from assess.kernel.common import EvidenceLevel, Severity
from assess.vendor.scoring.findings import Context
from assess.vendor.scoring.models import ScoreFinding

ENGINE, VERSION, MODELS = "engine.name", "engine.version", "vendor.models"


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.casefold()))


def is_platform(ctx: Context, adv: Advisory) -> bool:
    """Return True when the vendor's name and service name every word of the advisory's platform
    (``Cloudflare Workers AI`` for vendor Cloudflare, service Workers AI)."""
    said = " ".join(
        str(v)
        for v in (
            ctx.answers.vendor,
            ctx.answers.value("vendor.name"),
            ctx.answers.value("vendor.service"),
        )
    )
    wanted = _words(adv.platform)
    return bool(wanted) and wanted <= _words(said)


def fix_verified(ctx: Context, adv: Advisory) -> bool:
    """Return True when the engine and version, both verified, are the advisory's and fixed."""
    name, version = ctx.answers.get(ENGINE), ctx.answers.get(VERSION)
    if not (name.known and version.known and isinstance(version.value, str)):
        return False
    if EvidenceLevel.VERIFIED is not version.evidence:
        return False
    ranges = adv.engines_named(str(name.value))
    if not ranges:
        return False
    try:
        return all(r.verdict(version.value) == "not-affected" for r in ranges)
    except InvalidVersion:
        return False


def platform_finding(ctx: Context, adv: Advisory, served: list[str]) -> ScoreFinding | None:
    """Return the finding for the advisory's own platform serving its model (None otherwise)."""
    if not served or not is_platform(ctx, adv):
        return None
    window = f"{adv.window.start:%Y-%m-%d}..{adv.window.end:%Y-%m-%d}" if adv.window else ""
    leaked = f"{adv.leaked_responses:,} leaked responses, " if adv.leaked_responses else ""
    prefix = "advisory-platform"
    if fix_verified(ctx, adv):
        severity, status = Severity.LOW, "fix verified (engine version, verified evidence)"
        prefix = "advisory-platform-fixed"
    elif adv.fixed_on is not None:
        severity = Severity.MEDIUM
        status = f"fixed on {adv.fixed_on:%Y-%m-%d} per the advisory; not verified here"
    else:
        severity, status = Severity.HIGH, "no fix recorded"
    refs = "; ".join(f"{r.title}: {r.url}" for r in adv.references)
    fixed = ", ".join(f"{e.name} >= {e.fixed_version}" for e in adv.engines if e.fixed_version)
    return ctx.finding(
        f"{prefix}.{adv.id}",
        severity,
        f"{adv.platform} serves {', '.join(served)}, the platform and model of advisory "
        f"{adv.id}: {status}",
        f"{adv.title} ({leaked}{window}). Remediation status: {status}. {refs}".strip(),
        f"Scope your own logs against the advisory (`assess scope --incident {adv.id}`); ask "
        f"for evidence of the fix (deployed {fixed or 'engine version'}, startup logs for "
        "`assess deploy-check`).",
        [MODELS],
        evidence=EvidenceLevel.DOCUMENTED,
        advisories=[adv.id],
    )
