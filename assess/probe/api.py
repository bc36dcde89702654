"""Python API of the probe feature: plant canary markers as account A, probe as account B.

``from assess import run_probe`` returns the model of `assess probe --json`; the CLI calls
:func:`probe_setup` and :func:`check_outcome` around its own output writing. Nothing here prints
or exits. API keys are read only from environment variables, as in the CLI.
"""

from __future__ import annotations

import os
from dataclasses import replace
from urllib.parse import urlsplit

from assess.kernel.errors import EndpointError, UsageError
from assess.probe.markers import MIN_FRAGMENT_CHARS, RANDOM_BYTES
from assess.probe.models import ProbeResult
from assess.probe.run import TRANSPORTS, ProbeAccount, ProbeConfig, RunState, StreamMode
from assess.probe.transport.interface import header_safe_key, strip_credentials

DEFAULT_KEY_ENV = "ASSESS_API_KEY"
_RANDOM_CHARS = RANDOM_BYTES * 8 // 5


class ProbeStopped(EndpointError):
    """The run could not say anything about isolation (no hit); ``result`` is what was seen."""

    def __init__(self, message: str, advice: str, result: ProbeResult) -> None:
        super().__init__(message, advice)
        self.result = result


def check_base_url(base_url: str) -> None:
    """Raise UsageError unless ``base_url`` is an http(s) URL with a host."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(
            f"--base-url '{strip_credentials(base_url)}': not an http:// or https:// URL with a "
            "host",
            "Example: --base-url http://127.0.0.1:8000/v1",
        )


def key_from_env(env: str, option: str, label: str) -> str:
    """Return the key in ``env``; raise UsageError naming the variable when it is unset."""
    key = os.environ.get(env, "").strip()
    if not key:
        raise UsageError(
            f"{option}: environment variable {env} is not set (account {label}'s API key)",
            f"export {env}=<API key>. Keys are read only from the environment, never from "
            "options or files, and never written anywhere.",
        )
    if not header_safe_key(key):
        # the value is never shown: it is a secret, and a CR/LF in it would split the line
        raise UsageError(
            f"{option}: the API key in {env} holds a character an HTTP header cannot carry "
            "(a line break, a space, a control or a non-ASCII character)",
            f"Set {env} to the key alone; a key read from a file often brings the file's "
            "line ending: export VAR=\"$(tr -d '\\r\\n' < key.txt)\".",
        )
    return key


def _check_options(config: ProbeConfig) -> None:
    long = config.long_prompt_tokens
    checks = [
        (config.rounds < 1, "--rounds", "must be at least 1"),
        (config.probes_per_round < 1, "--probes-per-round", "must be at least 1"),
        (config.concurrency < 1, "--concurrency", "must be at least 1"),
        (config.timeout_s <= 0, "--timeout", "must be more than 0 seconds"),
        (
            not MIN_FRAGMENT_CHARS <= config.fragment_chars <= _RANDOM_CHARS,
            "--fragment-chars",
            f"must be {MIN_FRAGMENT_CHARS}..{_RANDOM_CHARS} (shorter fragments match by chance)",
        ),
        (long is not None and long < 1, "--long-prompt-tokens", "must be at least 1"),
    ]
    for bad, option, why in checks:
        if bad:
            raise UsageError(f"{option}: {why}", "Fix the option and run again.")
    if config.transport not in TRANSPORTS:
        raise UsageError(
            f"--transport: '{config.transport}' is not one of {', '.join(sorted(TRANSPORTS))}"
        )
    if config.stream not in ("both", "on", "off"):
        raise UsageError(f"--stream: '{config.stream}' is not one of both, on, off")


def _accounts(api_key_env: str, second_api_key_env: str | None) -> tuple[ProbeAccount, ...]:
    key_a = key_from_env(api_key_env, "--api-key-env", "A")
    account_a = ProbeAccount("A", api_key_env, key_a)
    if second_api_key_env:
        key_b = key_from_env(second_api_key_env, "--second-api-key-env", "B")
        note = "same key as A: not a second tenant" if key_b == key_a else ""
        return account_a, ProbeAccount("B", second_api_key_env, key_b, note)
    fresh = "same key as A on a fresh client (no second account)"
    return account_a, ProbeAccount("B", api_key_env, key_a, fresh)


def probe_setup(
    config: ProbeConfig, api_key_env: str, second_api_key_env: str | None
) -> tuple[ProbeConfig, ProbeAccount, ProbeAccount]:
    """Check ``config`` and read both accounts' keys, before anything is sent.

    Raises:
        UsageError: an impossible option, an unset or unusable key variable, a bad base URL.
    """
    _check_options(config)
    account_a, account_b = _accounts(api_key_env, second_api_key_env)
    check_base_url(config.base_url)
    return replace(config, base_url=config.base_url.rstrip("/")), account_a, account_b


def check_outcome(result: ProbeResult, state: RunState, endpoint: str, written: bool) -> None:
    """Raise unless the run found a leak or can support "no leak": it finished, and enough probe
    answers held text a marker could have shown in (the run's positive control).

    Raises:
        EndpointError / ProbeStopped: as the CLI's exit 2.
    """
    from assess.probe.result import control_failed, too_few_answers

    if result.leak_found:
        return
    if state.fatal is not None:
        raise state.fatal
    note = "; partial results were written" if written else ""
    if result.complete and result.stats.probes == 0:
        plants = [r for r in result.requests if r.role == "plant"]
        refused = [r for r in plants if r.outcome == "rejected"]
        if refused and not result.markers:
            statuses = sorted({str(r.status) for r in refused})
            raise ProbeStopped(
                f"{endpoint}: INCONCLUSIVE: none of the {len(plants)} plant requests "
                f"was accepted (HTTP {', '.join(statuses)}), so no probe could "
                "show a marker; nothing can be said about isolation",
                "See requests[] and errors[] in the --json output; check --model, the key "
                "and the endpoint, then run again.",
                result,
            )
    if not result.complete:
        empty = sum(1 for e in state.errors if e.kind == "empty_answer")
        why = "interrupted" if state.interrupted else f"{len(state.errors)} failed requests"
        if empty and not state.interrupted:
            why += f", {empty} of them answers without text"
        raise ProbeStopped(
            f"{endpoint}: INCONCLUSIVE: the run stopped early ({why}) without a hit{note}",
            "See errors[] in the --json output; retry later or lower --concurrency.",
            result,
        )
    short = too_few_answers(result.stats) or control_failed(result.control)
    if short is not None:
        raise ProbeStopped(
            f"{endpoint}: INCONCLUSIVE: {short} ({len(state.errors)} failed requests); "
            f"nothing can be said about isolation{note}",
            "See requests[] (carries_text) and errors[] in the --json output; check that the "
            "endpoint answers chat completions with text, then run again.",
            result,
        )


def run_probe(
    base_url: str,
    model: str,
    *,
    api_key_env: str = DEFAULT_KEY_ENV,
    second_api_key_env: str | None = None,
    rounds: int = 3,
    probes_per_round: int = 4,
    concurrency: int = 4,
    timeout: float = 60.0,
    fragment_chars: int = 8,
    long_prompt_tokens: int | None = None,
    max_tokens: int = 64,
    stream: StreamMode = "both",
    max_retries: int = 3,
    max_errors: int = 5,
    transport: str = "httpx",
) -> ProbeResult:
    """Probe an OpenAI-compatible endpoint for cross-request leaks: `assess probe --json`'s model.

    Keys come from the environment variables ``api_key_env`` (account A) and
    ``second_api_key_env`` (account B; default A's key on a fresh client). ``result.leak_found``
    is the CLI's exit 1. Boundary mode (``long_prompt_tokens``) costs money and is not confirmed
    here: see ``assess.probe.config.estimate_cost``. The returned model holds no API key.

    Raises:
        UsageError: bad options or key variables (nothing sent).
        EndpointError: unreachable endpoint, auth failure, garbage replies; ProbeStopped (an
            EndpointError with ``.result``) when the run stopped early without a hit.
    """
    from assess.probe.result import probe_endpoint

    options = ProbeConfig(
        base_url=base_url,
        model=model,
        rounds=rounds,
        probes_per_round=probes_per_round,
        concurrency=concurrency,
        timeout_s=timeout,
        fragment_chars=fragment_chars,
        long_prompt_tokens=long_prompt_tokens,
        max_tokens=max_tokens,
        stream=stream,
        max_retries=max_retries,
        max_errors=max_errors,
        transport=transport,
    )
    config, account_a, account_b = probe_setup(options, api_key_env, second_api_key_env)
    result, state, runner = probe_endpoint(config, account_a, account_b)
    redacted = ProbeResult.model_validate_json(runner.redact(result.model_dump_json()))
    check_outcome(redacted, state, config.endpoint, written=False)
    return redacted
