"""Python API of `assess probe --mode cache`: check options and keys, run, judge, redact.

Nothing here prints or exits; the CLI writes the evidence and maps the verdict to the exit code
(1 shared across tenants, 0 not shared with a visible positive control, 2 cannot say).
"""

from __future__ import annotations

import uuid
from dataclasses import replace

from assess.kernel.errors import UsageError
from assess.probe.api import check_base_url, key_from_env
from assess.probe.cache import CacheConfig, CacheRun, Level, summarise_level
from assess.probe.cache_models import (
    CacheAccount,
    CacheProbeResult,
    CacheSettings,
    CacheVerdict,
    LevelResult,
)
from assess.probe.config import ProbeAccount
from assess.probe.ks import smallest_reachable_p
from assess.probe.run import TRANSPORTS, now_utc
from assess.probe.transport.interface import redact_secret
from assess.probe.transport.secrets import strip_credentials, url_secrets

EXIT_CODES: dict[CacheVerdict, int] = {
    "shared-across-organisations": 1,
    "shared-within-organisation": 1,
    "not-shared": 0,
    "inconclusive": 2,
}


def _check(config: CacheConfig) -> None:
    reach = smallest_reachable_p(config.samples, config.samples) if config.samples > 0 else 1.0
    checks = [
        (config.samples < 1, "--samples", "must be at least 1"),
        (config.prompt_tokens < 2, "--prompt-tokens", "must be at least 2"),
        (not 0 < config.shared_fraction < 1, "--shared-fraction", "must be between 0 and 1"),
        (config.primes < 1, "--primes", "must be at least 1"),
        (not 0 < config.alpha < 1, "--alpha", "must be between 0 and 1"),
        (config.timeout_s <= 0, "--timeout", "must be more than 0 seconds"),
        (
            reach >= config.alpha,
            "--samples",
            f"{config.samples} per arm cannot reach p < {config.alpha:g} even if every hit is "
            f"faster than every miss (best p {reach:.2g}); give more samples",
        ),
    ]
    for bad, option, why in checks:
        if bad:
            raise UsageError(f"{option}: {why}", "Fix the option and run again. Nothing was sent.")
    if config.transport not in TRANSPORTS:
        raise UsageError(
            f"--transport: '{config.transport}' is not one of {', '.join(sorted(TRANSPORTS))}"
        )


def cache_setup(
    config: CacheConfig, api_key_env: str, second_env: str | None, same_org_env: str | None
) -> tuple[CacheConfig, list[Level]]:
    """Check options and read the keys (before anything is sent); return the levels to run.

    Raises:
        UsageError: a bad option, an unset key variable, a second key equal to the first.
    """
    _check(config)
    if not second_env:
        raise UsageError(
            "--mode cache needs --second-api-key-env (another organisation's key): the audit "
            "compares what one tenant's requests reveal to another's",
            "Give the variable holding a key of another organisation. Nothing was sent.",
        )
    a = ProbeAccount("A", api_key_env, key_from_env(api_key_env, "--api-key-env", "A"))
    b = ProbeAccount("B", second_env, key_from_env(second_env, "--second-api-key-env", "B"))
    levels = [Level("same-account", a, a)]
    keys = {a.api_key: "--api-key-env"}
    if same_org_env:
        key = key_from_env(same_org_env, "--same-org-api-key-env", "A2")
        if key == a.api_key:
            raise UsageError(
                f"--same-org-api-key-env: {same_org_env} holds the same key as --api-key-env; "
                "that is not a second key",
                "Give another key of A's organisation. Nothing was sent.",
            )
        a2 = ProbeAccount("A2", same_org_env, key)  # type: ignore[arg-type]
        levels.append(Level("same-organisation", a, a2))
        keys.setdefault(key, "--same-org-api-key-env")
    if b.api_key in keys:
        raise UsageError(
            f"--second-api-key-env: {second_env} holds the same key as {keys[b.api_key]}; "
            "that is not another tenant",
            "Give a key of another organisation. Nothing was sent.",
        )
    levels.append(Level("other-organisation", a, b))
    check_base_url(config.base_url)
    return replace(config, base_url=config.base_url.rstrip("/")), levels


def verdict_of(levels: list[LevelResult], complete: bool) -> tuple[CacheVerdict, str]:
    """Return the verdict and a one-line summary: sharing wins; a clean result needs the
    same-account positive control to show caching and the run to have finished."""
    seen = {lv.level: lv.caching_visible and not lv.inconclusive_reason for lv in levels}
    if seen.get("other-organisation"):
        return "shared-across-organisations", (
            "SHARED: another organisation's requests reuse this account's cached prompt prefix"
        )
    if seen.get("same-organisation"):
        return "shared-within-organisation", (
            "SHARED: a second key of the same organisation reuses this key's cached prefix"
        )
    # the level whose requests failed first: it is why the others may have too few samples
    invalid = sorted((lv for lv in levels if lv.inconclusive_reason),
                     key=lambda lv: -lv.failed_requests)  # fmt: skip
    if invalid:
        return "inconclusive", (
            f"INCONCLUSIVE: level {invalid[0].level}: {invalid[0].inconclusive_reason}"
        )
    if not complete:
        return "inconclusive", "INCONCLUSIVE: the run stopped early without finding sharing"
    if not seen.get("same-account"):
        return "inconclusive", (
            "INCONCLUSIVE: no caching is visible even within one account (the positive "
            "control), so the cross-tenant result says nothing"
        )
    return "not-shared", (
        "NOT SHARED: caching is visible within the account (positive control) but not across "
        "tenants at this sample size"
    )


def _redactor(config: CacheConfig, levels: list[Level]) -> list[str]:
    user_info = config.base_url.partition("://")[2].partition("/")[0].rpartition("@")[0]
    keys = {acc.api_key for lv in levels for acc in (lv.victim, lv.attacker)}
    return [s for s in (user_info, *url_secrets(config.base_url), *keys) if s]


def redact(text: str, secrets: list[str]) -> str:
    """Return ``text`` with every key and URL credential of the run removed."""
    for secret in secrets:
        text = redact_secret(text, secret)
    return text


def run_cache_probe(config: CacheConfig, levels: list[Level]) -> CacheProbeResult:
    """Run the audit (``cache_setup`` first) and return its redacted evidence."""
    accounts = {acc.label: acc for lv in levels for acc in (lv.victim, lv.attacker)}
    factory = TRANSPORTS[config.transport]
    transports = {
        label: factory(config.base_url, acc.api_key, config.timeout_s, config.max_retries)
        for label, acc in accounts.items()
    }
    started = now_utc()
    runner = CacheRun(config, levels, transports)  # type: ignore[arg-type]
    try:
        complete = runner.run()
    finally:
        for transport in transports.values():
            transport.close()
    results = [summarise_level(lv, runner.arms[lv.name], config.alpha) for lv in levels]
    complete = complete and not any(
        lv.inconclusive_reason and lv.inconclusive_reason.startswith("only ") for lv in results
    )
    verdict, summary = verdict_of(results, complete)
    roles = {"A": "primes every level; measures the same-account level",
             "A2": "a second key of A's organisation", "B": "another organisation"}  # fmt: skip
    result = CacheProbeResult(
        run_id=uuid.uuid4().hex[:12], endpoint=strip_credentials(config.base_url),
        model=config.model, started_at=started, finished_at=now_utc(), complete=complete,
        accounts=[CacheAccount(label=acc.label, key_env=acc.key_env, role=roles[acc.label])
                  for acc in accounts.values()],
        settings=CacheSettings(
            samples=config.samples, prompt_tokens=config.prompt_tokens,
            shared_fraction=config.shared_fraction, primes=config.primes, seed=config.seed,
            alpha=config.alpha, stream=config.stream, timeout_s=config.timeout_s,
            max_retries=config.max_retries, max_errors=config.max_errors,
            transport=config.transport),
        requests=runner.requests, levels=results, errors=runner.errors, verdict=verdict,
        summary=f"{strip_credentials(config.base_url)}: {summary}",
    )  # fmt: skip
    clean = redact(result.model_dump_json(), _redactor(config, levels))
    return CacheProbeResult.model_validate_json(clean)
