"""Cache-isolation audit evidence (`assess probe --mode cache --json`) in the score.

The audit says whether the endpoint reused one tenant's cached prompt prefix for another:

* shared across organisations: critical (a contradiction when the vendor claims per-tenant
  salting or a cache scope of at most one organisation);
* shared across keys of one organisation: high;
* not shared, with the same-account control visible: a verified control (the salting question
  in ``controls_in_place``, evidence ``verified``) and an info finding;
* inconclusive (no caching visible even for the same account, or the run stopped): an info
  finding that says so; nothing is verified.

The document is read through its tolerant view, ``evidence.CacheProbeEvidence``.
"""

from __future__ import annotations

from assess.kernel.common import EvidenceLevel, Severity
from assess.vendor.scoring.evidence import CacheProbeEvidence
from assess.vendor.scoring.findings import Context
from assess.vendor.scoring.models import ControlInPlace, ScoreFinding

CACHE_PROBE = "evidence:cache-probe"
SALTED = "isolation.prefix_cache_salted_per_tenant"
SCOPE = "cache.prompt_cache_scope"
#: Scopes that claim no reuse beyond one organisation (the questionnaire's safe values).
_WITHIN_ORG = ("off", "request", "user", "project", "deployment", "organization")
_WITHIN_KEY = ("off", "request", "user", "project")


def _numbers(doc: CacheProbeEvidence) -> str:
    parts = []
    for lv in doc.levels:
        if lv.p_value is None:
            parts.append(f"{lv.level}: no data")
            continue
        parts.append(
            f"{lv.level}: median hit {lv.median_hit_ms or 0:.1f} ms vs miss "
            f"{lv.median_miss_ms or 0:.1f} ms, KS p {lv.p_value:.2g}"
            + (", cached_tokens reported" if lv.cached_tokens_seen else "")
        )
    where = f"{doc.endpoint or 'the endpoint'} (model {doc.model or '?'}, run {doc.run_id})"
    return f"{where}: {'; '.join(parts)}"


def _claims(ctx: Context, scopes: tuple[str, ...]) -> list[str]:
    claims = [SALTED] if ctx.answers.value(SALTED) is True else []
    scope = ctx.answers.value(SCOPE)
    return claims + ([f"{SCOPE}={scope}"] if isinstance(scope, str) and scope in scopes else [])


def cache_probe_findings(ctx: Context, doc: CacheProbeEvidence) -> list[ScoreFinding]:
    """Return the findings of one cache-isolation audit."""
    numbers = _numbers(doc)
    verified = EvidenceLevel.VERIFIED
    if doc.verdict in ("shared-across-organisations", "shared-within-organisation"):
        across = doc.verdict == "shared-across-organisations"
        claims = _claims(ctx, _WITHIN_ORG if across else _WITHIN_KEY)
        who = "another organisation" if across else "another key of the same organisation"
        detail = f"{numbers}. A prompt prefix one key sent was served faster to {who}: its KV "
        detail += "was reused across that boundary, so a prompt's content is observable there."
        if claims:
            detail += f" Claimed: {', '.join(claims)}."
        fid = (
            "cache-probe-shared-across-organisations"
            if across
            else "cache-probe-shared-within-organisation"
        )
        if across and claims:
            fid = "attestation-contradicted.cache-probe-shared"
        return [
            ctx.finding(
                fid,
                Severity.CRITICAL if across else Severity.HIGH,
                f"Cache audit: the prompt cache is shared with {who}",
                detail,
                "Require a per-tenant cache salt (vLLM's cache_salt) or no cross-tenant prefix "
                "reuse; re-run the audit after the change.",
                [q for q in (SALTED, SCOPE) if any(c.startswith(q) for c in claims)]
                + [CACHE_PROBE],
                contradiction=across and bool(claims),
                evidence=verified,
            )
        ]
    if doc.verdict == "not-shared":
        return [
            ctx.finding(
                "cache-probe-not-shared",
                Severity.INFO,
                "Cache audit: no cross-tenant prefix reuse, with a positive control",
                f"{numbers}. Caching was visible for the same account (the control), not across "
                "the other keys: the prompt cache is isolated between the keys tested.",
                "Repeat the audit after the vendor changes its caching.",
                [CACHE_PROBE],
                evidence=verified,
            )
        ]
    return [
        ctx.finding(
            "cache-probe-inconclusive",
            Severity.INFO,
            "Cache audit inconclusive: it cannot say whether the prompt cache is shared",
            f"{numbers}. {doc.summary or 'No caching was visible even for the same account.'} "
            "Without that positive control a clean cross-tenant result means nothing.",
            "Re-run with longer prompts or more samples, or ask the vendor how caching works.",
            [CACHE_PROBE],
            evidence=verified,
        )
    ]


def verified_control(
    ctx: Context, doc: CacheProbeEvidence, controls: list[ControlInPlace]
) -> list[ControlInPlace]:
    """Return ``controls`` with the salting control verified when the audit found no sharing."""
    if doc.verdict != "not-shared":
        return controls
    question = ctx.bank.question(SALTED)
    note = f"verified by cache probe run {doc.run_id} at {doc.endpoint}: {doc.summary}".strip()
    control = ControlInPlace(
        question=SALTED,
        text=question.text if question is not None else SALTED,
        value=True,
        evidence=EvidenceLevel.VERIFIED,
        note=note,
    )
    return [c for c in controls if c.question != SALTED] + [control]
