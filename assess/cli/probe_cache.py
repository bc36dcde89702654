"""CLI of `assess probe --mode cache`: the cost estimate, the run, its evidence and exit code."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from assess.kernel.errors import UsageError

if TYPE_CHECKING:
    from assess.probe.cache import CacheConfig
    from assess.probe.cache_models import CacheProbeResult, LevelResult

MODES = ("canary", "cache")


def check_mode(mode: str) -> None:
    """Raise UsageError unless ``mode`` is one of :data:`MODES`."""
    if mode not in MODES:
        raise UsageError(f"--mode '{mode}': not one of {', '.join(MODES)}", "Example: --mode cache")


def _ttft(lv: LevelResult) -> str:
    if lv.ttft_p_value is None:
        return ""
    return f"; first token: D+ {lv.ttft_ks_statistic:.2f}, p {lv.ttft_p_value:.2g}"


def _state(lv: LevelResult) -> str:
    from assess.probe.cache_models import cannot_compare

    why = cannot_compare(lv.contaminated, lv.inconclusive_reason)
    return why or f"caching {'VISIBLE' if lv.caching_visible else 'not visible'}"


def print_cache(result: CacheProbeResult) -> None:
    """Print one line per level and the verdict."""
    typer.echo(
        f"cache probe {result.run_id}: {result.endpoint} model {result.model}, "
        f"{result.requests} requests, complete={str(result.complete).lower()}"
    )
    for lv in result.levels:
        if lv.p_value is None:
            typer.echo(f"  {lv.level:<19} {lv.victim}->{lv.attacker}: no data; {lv.power_note}")
            continue
        cached = "yes" if lv.cached_tokens_seen else "no"
        typer.echo(
            f"  {lv.level:<19} {lv.victim}->{lv.attacker}: median hit {lv.median_hit_ms:.1f} ms, "
            f"miss {lv.median_miss_ms:.1f} ms; D+ {lv.ks_statistic:.2f}, p {lv.p_value:.2g} "
            f"({lv.p_method}){_ttft(lv)}; hits faster than every miss "
            f"{lv.hits_faster_than_fastest_miss:.0%}; cached_tokens {cached}; "
            f"{_state(lv)}"
        )
        typer.echo(f"  {'':<19} {lv.power_note}")
    retries = sum(lv.retries for lv in result.levels)
    if retries:
        typer.echo(
            f"retries: {retries} (HTTP 429/503); a retried sample is timed from its last attempt"
        )
    for error in result.errors[:3]:
        typer.echo(f"error ({error.level}, {error.arm}): {error.message}", err=True)
    typer.echo(result.summary)


def run_cache_cmd(
    config: CacheConfig,
    keys: tuple[str, str | None, str | None],
    yes: bool,
    prices: tuple[float | None, float | None],
    outputs: tuple[str | None, str | None],
) -> None:
    """Check, show the cost, run (only with --yes), write --json/--junit, exit by the verdict."""
    from assess.cli.probe import _check_writable
    from assess.kernel.atomic import write_text, write_text_or_stdout
    from assess.kernel.output import to_json
    from assess.probe.cache import estimate_cache_cost
    from assess.probe.cache_api import EXIT_CODES, cache_setup, run_cache_probe
    from assess.probe.cache_junit import cache_junit

    config, levels = cache_setup(config, *keys)
    json_out, junit_out = outputs
    _check_writable(json_out, "--json")
    _check_writable(junit_out, "--junit")
    estimate = estimate_cache_cost(config, len(levels)).describe(*prices)
    typer.echo(f"cache mode: this run sends {estimate}.", err=True)
    if not yes:
        raise UsageError(
            "--mode cache sends long prompts and costs money; it needs --yes",
            "Check the estimate above, then run again with --yes.",
        )
    result = run_cache_probe(config, levels)
    if json_out:
        write_text_or_stdout(json_out, to_json(result))
    if junit_out:
        write_text(junit_out, cache_junit(result))
    if json_out != "-":
        print_cache(result)
    raise typer.Exit(EXIT_CODES[result.verdict])
