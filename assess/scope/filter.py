"""The scope filter: the advisory's model names, window and trigger, each replaceable."""

from __future__ import annotations

import re
from datetime import UTC, datetime, time

from assess.advisories.models import Advisory
from assess.kernel.errors import UsageError
from assess.kernel.model_ids import normalise_model_id
from assess.scope.logs.presets import Preset
from assess.scope.logs.records import MAX_TOKENS
from assess.scope.logs.timestamps import MAX_NS, MIN_NS, datetime_to_ns
from assess.scope.models import ScopeFilter


def make_filter(
    advisory: Advisory | None,
    models: list[str] | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    min_prompt_tokens: int | None = None,
) -> ScopeFilter:
    """Return the filter: the advisory's values, each replaced by an option when given.

    Raises:
        UsageError: when no advisory is given and an option it would supply is missing, or the
            window is empty.
    """
    names = [normalise_model_id(m) for m in models] if models else None
    if advisory is not None and not advisory.has_scope:
        raise UsageError(
            f"advisory '{advisory.id}' has no scope data (models and window): it is about "
            "engines and settings, not a window of requests",
            "Give --incident with an advisory that has scope data "
            "(`assess advisories list` shows them).",
        )
    if advisory is None and (not names or since is None or until is None):
        raise UsageError(
            "scope: without an advisory, --model, --since and --until are all required",
            "Give --incident ID (see `assess advisories list`) or all three options.",
        )
    window = advisory.window if advisory else None
    start = since or (window.start if window else None)
    end = until or (window.end if window else None)
    assert start is not None and end is not None
    start, end = _utc(start), _utc(end)
    if end < start:
        until_from = "--until" if until is not None else "the advisory's window end"
        since_from = "--since" if since is not None else "the advisory's window start"
        raise UsageError(
            f"{until_from} {end.isoformat()} is before {since_from} {start.isoformat()}",
            "Give --since and --until that make a window with its start before its end.",
        )
    trigger = advisory.trigger if advisory else None
    threshold = min_prompt_tokens if min_prompt_tokens is not None else 0
    threshold = trigger.prompt_tokens_gt if trigger and min_prompt_tokens is None else threshold
    own = advisory is not None and not names and since is None and until is None
    own = own and min_prompt_tokens in (None, threshold if advisory else None)
    deployment = advisory.deployment if advisory else None
    return ScopeFilter(
        advisory_id=advisory.id if advisory else None,
        model_names=names or (advisory.models.names if advisory and advisory.models else []),
        since=start,
        until=end,
        min_prompt_tokens=threshold,
        leaked_responses=advisory.leaked_responses if advisory else None,
        # the advisory's platform is a fact about its models: --model asks about another
        platforms=list(advisory.platforms) if advisory and not names else [],
        advisory_filter=own,
        context_tokens=(deployment.advertised_context_tokens or deployment.kv_pool_tokens)
        if deployment
        else None,
        advisory_published=advisory.published if advisory else None,
        models_given=bool(names),
    )


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def window_ns(scope: ScopeFilter) -> tuple[int, int]:
    """Return the window as (first, last) UTC nanoseconds, both included, within int64.

    A window's ends are datetimes (microseconds): the end includes its whole microsecond, as an
    instant read from a log is compared at nanoseconds (a bare ``--until`` date is 23:59:59.999999,
    so the whole day: :func:`end_of_day`). Clamping to int64 is exact: no timestamp read lies
    outside it (:data:`~assess.scope.logs.timestamps.MIN_NS`), so ``--until 2300-01-01`` compares.
    """
    since, until = datetime_to_ns(_utc(scope.since)), datetime_to_ns(_utc(scope.until)) + 999
    return max(since, MIN_NS), min(until, MAX_NS)


def has_trigger(scope: ScopeFilter) -> bool:
    """Return True when a prompt-length trigger applies (over-length prompts, the source set S
    of stale reads, our prompts in over-length responses); an advisory without one
    (prefix-cache sharing) counts every prompt length and draws no source set."""
    return scope.min_prompt_tokens > 0


def trigger_words(scope: ScopeFilter) -> str:
    """Return the trigger as the scope line reads it."""
    if has_trigger(scope):
        return f"prompt tokens > {scope.min_prompt_tokens:,}"
    return "no prompt-length trigger"


def threshold(scope: ScopeFilter) -> int:
    """Return the prompt-token threshold within int64 (exact: no count read exceeds it)."""
    return min(scope.min_prompt_tokens, MAX_TOKENS)


def end_of_day(day: datetime) -> datetime:
    """Return 23:59:59.999999 UTC of ``day`` (a bare ``--until`` date includes the whole day,
    to its last nanosecond: see :func:`window_ns`)."""
    return datetime.combine(day.date(), time(23, 59, 59, 999_999), tzinfo=UTC)


#: Platforms other than an advisory's, each with the spellings ``--served-by`` and the presets'
#: provider fields give (compared after :func:`spelling`; docs/exposure.md "Platform binding"):
#: OpenRouter ``provider_name``, LiteLLM ``custom_llm_provider``, Cloudflare AI Gateway
#: ``AIGatewayProviders``, Helicone ``providersNames``, Portkey slugs, OTel
#: ``gen_ai.provider.name``.
#: A log value naming none of these (nor the advisory's platform) is never "served elsewhere".
OTHER_PLATFORMS: dict[str, tuple[str, ...]] = {
    "aws-bedrock": ("bedrock", "amazon-bedrock", "aws", "aws.bedrock", "bedrock-converse"),
    "aws-sagemaker": ("sagemaker", "amazon-sagemaker"),
    "azure-openai": ("azure", "azure-ai", "azure.ai.openai", "azure.ai.inference"),
    "openai": (),
    "anthropic": (),
    "google-vertex": (
        *("vertex", "vertex-ai", "gemini", "google", "google-vertex-ai", "google-ai-studio"),
        *("gcp.vertex-ai", "gcp.gemini", "gcp.gen-ai", "vertex-ai-beta"),
    ),
    "z.ai": ("zai", "zhipu", "zhipuai", "z-ai"),
    "together": ("together-ai", "togetherai"),
    "fireworks": ("fireworks-ai",),
    "groq": (),
    "deepinfra": (),
    "mistral": ("mistral-ai", "mistralai"),
    "cohere": (),
    "deepseek": (),
    "xai": ("x-ai", "grok"),
    "perplexity": ("perplexity-ai",),
    "cerebras": (),
    "ibm-watsonx": ("watsonx", "ibm.watsonx.ai"),
    "huggingface": ("hugging-face",),
    "replicate": (),
    "novita": ("novitaai",),
    "nebius": ("nebius-ai-studio",),
    "sambanova": (),
    "self-hosted": ("local", "on-prem", "ollama", "vllm", "hosted-vllm"),
}


#: The API hosts of the platforms in :data:`OTHER_PLATFORMS` (``*`` is one DNS label). An
#: endpoint host is *served elsewhere* only when it is one of these; any other host (a company
#: gateway, an IP) may have forwarded to the advisory's platform, so it tells nothing.
OTHER_PLATFORM_HOSTS: dict[str, tuple[str, ...]] = {
    "aws-bedrock": ("bedrock-runtime.*.amazonaws.com", "bedrock.*.amazonaws.com"),
    "aws-sagemaker": ("runtime.sagemaker.*.amazonaws.com",),
    "azure-openai": ("*.openai.azure.com", "*.services.ai.azure.com", "*.inference.ai.azure.com"),
    "openai": ("api.openai.com",),
    "anthropic": ("api.anthropic.com",),
    "google-vertex": (
        "generativelanguage.googleapis.com",
        "aiplatform.googleapis.com",
        "*-aiplatform.googleapis.com",
    ),
    "z.ai": ("api.z.ai", "open.bigmodel.cn"),
    "together": ("api.together.xyz", "api.together.ai"),
    "fireworks": ("api.fireworks.ai",),
    "groq": ("api.groq.com",),
    "deepinfra": ("api.deepinfra.com",),
    "mistral": ("api.mistral.ai",),
    "cohere": ("api.cohere.com", "api.cohere.ai"),
    "deepseek": ("api.deepseek.com",),
    "xai": ("api.x.ai",),
    "perplexity": ("api.perplexity.ai",),
    "cerebras": ("api.cerebras.ai",),
}


def host_regexes() -> list[str]:
    """Return one anchored regex per host of :data:`OTHER_PLATFORM_HOSTS` (``*``: one label)."""
    return [
        "^" + re.escape(host).replace(r"\*", "[a-z0-9-]+") + "$"
        for hosts in OTHER_PLATFORM_HOSTS.values()
        for host in hosts
    ]


def spelling(value: str) -> str:
    """Lower case, ``_`` and spaces as ``-`` (``Workers AI``, ``workers_ai``: ``workers-ai``)."""
    return "-".join(value.strip().lower().replace("_", " ").replace("-", " ").split())


def known_platforms(scope: ScopeFilter) -> dict[str, str]:
    """Return every spelling this tool knows (after :func:`spelling`) with its platform id: the
    advisory's platforms (their name and provider values, id the first provider) first, then
    :data:`OTHER_PLATFORMS`."""
    known: dict[str, str] = {}
    for platform in scope.platforms:
        first = platform.providers[0] if platform.providers else spelling(platform.name)
        for alias in (platform.name, *platform.providers):
            known.setdefault(spelling(alias), first)
    for other, aliases in OTHER_PLATFORMS.items():
        for alias in (other, *aliases):
            known.setdefault(spelling(alias), other)
    return known


def platform_id(scope: ScopeFilter, value: str) -> str | None:
    """Return the platform id a provider value names (a log's field or ``--served-by``: one
    normaliser for both), or None when it names no platform this tool knows."""
    return known_platforms(scope).get(spelling(value))


def advisory_platform_ids(scope: ScopeFilter) -> set[str]:
    """Return the ids :func:`platform_id` gives the advisory's own platforms."""
    return {platform_id(scope, p.name) or p.name for p in scope.platforms}


def served_by_platform(scope: ScopeFilter, served_by: str) -> str:
    """Return the platform id ``--served-by`` names (:func:`platform_id`).

    Raises:
        UsageError: naming the known platforms when ``served_by`` names none (a typo must not
            turn rows into "served elsewhere").
    """
    known = known_platforms(scope)
    found = platform_id(scope, served_by)
    if found is not None:
        return found
    names = sorted({*known.values()})
    raise UsageError(
        f"--served-by {served_by!r} names no platform this tool knows; known: {', '.join(names)}",
        "Give one of these names (case, '_' and spaces do not matter); a platform not listed "
        "cannot be stated, so leave --served-by out: those rows stay possibly affected.",
    )


def with_preset(scope: ScopeFilter, preset: Preset, served_by: str | None = None) -> ScopeFilter:
    """Return ``scope`` with what the preset tells about its rows: the platform that serves
    every record of its export (``served_by``, the user's statement checked by
    :func:`served_by_platform`, first; else the preset's), and whether it gives a native prompt
    count beside the fallback one."""
    stated = served_by_platform(scope, served_by) if served_by and scope.platforms else served_by
    return scope.model_copy(
        update={
            "serving_platform": stated or preset.platform,
            "native_counts": bool(preset.fields.get("prompt_tokens_native")),
            "provider_no_evidence": [v.strip().lower() for v in preset.provider_no_evidence],
            "served_by_stated": bool(stated),
            "provider_recorded": bool(
                preset.platform or preset.fields.get("provider") or preset.fields.get("endpoint")
            ),
        }
    )
