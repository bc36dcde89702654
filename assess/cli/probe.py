"""CLI for `assess probe` (canary test of an OpenAI-compatible endpoint); also registers `lab`."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from assess.cli import lab
from assess.cli.probe_cache import check_mode, run_cache_cmd
from assess.kernel.errors import OutputError, UsageError
from assess.kernel.tables import print_table

if TYPE_CHECKING:  # the probe core (and the openai SDK) is imported when the command runs
    from assess.probe.config import ProbeAccount
    from assess.probe.models import ProbeResult
    from assess.probe.run import ProbeConfig

#: the variable holding account A's key (assess.probe.api.DEFAULT_KEY_ENV; a test holds them equal)
DEFAULT_KEY_ENV = "ASSESS_API_KEY"


def _check_writable(path: str | None, option: str) -> None:
    """Fail before anything is sent when ``path`` cannot be written (a probe may cost money)."""
    if path is None or path == "-":
        return
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{option} {path}: is a folder", "Give a file path. Nothing was sent.")
    if target.exists() and not target.is_file():
        return  # a device or pipe such as /dev/null: written in place
    folder = target.parent if str(target.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=f".{target.name}.", suffix=".check"):
            pass
    except OSError as exc:
        raise OutputError(
            f"{option} {path}: cannot write here ({exc.strerror or exc})",
            "Choose another output path or fix the folder's permissions. Nothing was sent.",
        ) from exc


def _print(result: ProbeResult) -> None:
    from assess.kernel.output import stdout_console

    console = stdout_console()
    console.print(
        f"probe {result.run_id}: {result.endpoint} model {result.model}, mode {result.mode}, "
        f"{len(result.requests)} requests, complete={str(result.complete).lower()}",
        markup=False,
        soft_wrap=True,
    )
    if result.hits:
        table = Table("request", "account", "marker", "planted by", "match", "chars", "where")
        for hit in result.hits[:20]:
            table.add_row(
                hit.request_id,
                hit.account,
                hit.marker_id,
                f"{hit.planted_by} in {hit.planted_in}",
                hit.match,
                str(hit.chars),
                hit.location,
            )
        print_table(console, table)
        if len(result.hits) > 20:
            console.print(f"... and {len(result.hits) - 20} more hits (see --json)")
    s = result.stats
    if s.leak_rate_upper_95 is not None:
        console.print(
            f"stats: {s.hits}/{s.probes} probes hit ({s.rejected} rejected with HTTP 4xx); "
            f"95% upper bound on the leak rate {s.leak_rate_upper_95:.4f} ({s.method})",
            markup=False,
            soft_wrap=True,
        )
    console.print(result.summary, markup=False, soft_wrap=True)


# Options, named once here so the command's signature stays one line per option.
_BASE_URL = typer.Option(..., "--base-url", help="API base, e.g. http://host/v1.")
_MODEL = typer.Option(..., "--model", help="Model id to probe.")
_KEY_ENV = typer.Option(DEFAULT_KEY_ENV, "--api-key-env", help="Env var holding account A's key.")
_SECOND_KEY_ENV = typer.Option(
    None,
    "--second-api-key-env",
    help="Env var holding account B's key (default: A's key on a fresh client).",
)
_ROUNDS = typer.Option(3, "--rounds", help="Rounds (one marker planted per round).")
_PROBES = typer.Option(4, "--probes-per-round", help="Unrelated requests from account B per round.")
_CONCURRENCY = typer.Option(4, "--concurrency", help="Probe requests in flight.")
_TIMEOUT = typer.Option(60.0, "--timeout", help="Per-request timeout, seconds.")
_FRAGMENT = typer.Option(
    8, "--fragment-chars", help="Shortest run of a marker's random part that is a hit."
)
_LONG = typer.Option(
    None,
    "--long-prompt-tokens",
    help="Boundary mode: probes of about N tokens (set near/over the pool size).",
)
_YES = typer.Option(False, "--yes", help="Confirm the boundary-mode cost.")
_IN_PRICE = typer.Option(
    None, "--input-price", help="USD per 1M input tokens, for the cost estimate."
)
_OUT_PRICE = typer.Option(
    None, "--output-price", help="USD per 1M output tokens, for the cost estimate."
)
_MAX_TOKENS = typer.Option(64, "--max-tokens", help="max_tokens per request.")
_STREAM = typer.Option("both", "--stream", help="both (alternate), on or off: streamed requests.")
_RETRIES = typer.Option(
    3, "--max-retries", help="Retries on 429/503, honouring Retry-After (max 30 s)."
)
_ERRORS = typer.Option(5, "--max-errors", help="Stop (incomplete) after this many failed requests.")
_TRANSPORT = typer.Option(
    "httpx", "--transport", help="Client: httpx (raw wire) or openai (the official SDK)."
)
_MODE = typer.Option("canary", "--mode", help="canary (markers) or cache (prefix-cache audit).")
_SAME_ORG = typer.Option(
    None, "--same-org-api-key-env", help="Cache mode: env var with a second key of A's org."
)
_SAMPLES = typer.Option(25, "--samples", help="Cache mode: hit and miss trials per level (each).")
_PROMPT = typer.Option(1100, "--prompt-tokens", help="Cache mode: words (tokens) per prompt.")
_FRACTION = typer.Option(0.95, "--shared-fraction", help="Cache mode: prefix shared by a hit.")
_PRIMES = typer.Option(1, "--primes", help="Cache mode: victim requests priming each hit.")
_SEED = typer.Option(
    None, "--seed", help="Cache mode: seed of trial order and prompts (default: fresh per run)."
)
_ALPHA = typer.Option(1e-8, "--alpha", help="Cache mode: KS p-value that shows caching.")
_JSON = typer.Option(None, "--json", help="Write the evidence JSON here ('-' for stdout).")
_JUNIT = typer.Option(None, "--junit", help="Write JUnit XML here.")


def _confirm_cost(
    config: ProbeConfig, yes: bool, prices: tuple[float | None, float | None]
) -> None:
    """Print boundary mode's cost estimate; without --yes, stop before anything is sent."""
    from assess.probe.run import estimate_cost

    estimate = estimate_cost(config).describe(*prices)
    typer.echo(f"boundary mode: this run sends {estimate}.", err=True)
    if not yes:
        raise UsageError(
            "--long-prompt-tokens: boundary mode sends long prompts and costs money; "
            "it needs --yes",
            "Check the estimate above, then run again with --yes.",
        )


def probe_cmd(
    base_url: str = _BASE_URL, model: str = _MODEL, api_key_env: str = _KEY_ENV,
    second_api_key_env: str | None = _SECOND_KEY_ENV, rounds: int = _ROUNDS,
    probes_per_round: int = _PROBES, concurrency: int = _CONCURRENCY, timeout: float = _TIMEOUT,
    fragment_chars: int = _FRAGMENT, long_prompt_tokens: int | None = _LONG, yes: bool = _YES,
    input_price: float | None = _IN_PRICE, output_price: float | None = _OUT_PRICE,
    max_tokens: int = _MAX_TOKENS, stream: str = _STREAM, max_retries: int = _RETRIES,
    max_errors: int = _ERRORS, transport: str = _TRANSPORT, json_out: str | None = _JSON,
    junit_out: str | None = _JUNIT, mode: str = _MODE,
    same_org_api_key_env: str | None = _SAME_ORG, samples: int = _SAMPLES,
    prompt_tokens: int = _PROMPT, shared_fraction: float = _FRACTION, primes: int = _PRIMES,
    seed: int | None = _SEED, alpha: float = _ALPHA,
) -> None:  # fmt: skip
    """Plant canary markers as account A, probe as account B, scan every response.

    --mode cache: the prefix-cache audit (see docs/probe.md); 1 = shared across tenants,
    0 = not shared with a visible same-account control, 2 = cannot say. Needs --yes.

    Exit 0: no marker seen; the result is a 95% upper bound on the leak rate, not proof.
    Exit 1: a marker, or a fragment of one, crossed a request boundary.
    Exit 2: could not run (bad options, key variable unset, endpoint unreachable,
    auth failed, garbage replies, or stopped early without a hit).
    Partial runs still write --json and --junit, marked complete=false.

    Example: assess probe --base-url http://127.0.0.1:8000/v1 --model lab-glm-5.3
    --long-prompt-tokens 400 --yes --json probe.json
    """
    from assess.probe.api import probe_setup
    from assess.probe.run import ProbeConfig

    check_mode(mode)
    if mode == "cache":
        from assess.probe.cache import CacheConfig, run_seed

        seed = run_seed(seed)
        cache = CacheConfig(base_url, model, samples, prompt_tokens, shared_fraction, primes,
                            seed, alpha, stream != "off", timeout, max_retries, max_errors,
                            transport)  # fmt: skip
        keys = (api_key_env, second_api_key_env, same_org_api_key_env)
        run_cache_cmd(cache, keys, yes, (input_price, output_price), (json_out, junit_out))
    options = ProbeConfig(
        base_url=base_url, model=model, rounds=rounds, probes_per_round=probes_per_round,
        concurrency=concurrency, timeout_s=timeout, fragment_chars=fragment_chars,
        long_prompt_tokens=long_prompt_tokens, max_tokens=max_tokens,
        stream=stream,  # type: ignore[arg-type]  # checked by probe_setup
        max_retries=max_retries, max_errors=max_errors, transport=transport,
    )  # fmt: skip
    config, account_a, account_b = probe_setup(options, api_key_env, second_api_key_env)
    _check_writable(json_out, "--json")
    _check_writable(junit_out, "--junit")
    if long_prompt_tokens:
        _confirm_cost(config, yes, (input_price, output_price))
    _run(config, (account_a, account_b), json_out, junit_out)


def _run(config: ProbeConfig, accounts: tuple[ProbeAccount, ProbeAccount], json_out: str | None,
         junit_out: str | None) -> None:  # fmt: skip
    """Run the probe, write its evidence, print it and exit with its outcome."""
    from assess.kernel.atomic import write_text, write_text_or_stdout
    from assess.kernel.output import to_json
    from assess.probe.api import check_outcome
    from assess.probe.junit import probe_junit
    from assess.probe.result import probe_endpoint

    result, state, runner = probe_endpoint(config, *accounts)
    if json_out:
        write_text_or_stdout(json_out, runner.redact(to_json(result)))
    if junit_out:
        write_text(junit_out, runner.redact(probe_junit(result)))
    if json_out != "-" and result.requests:
        _print(result)
    if result.leak_found:
        if state.fatal is not None or not result.complete:
            typer.echo("warning: the run did not finish; the leak was found before", err=True)
        raise typer.Exit(1)
    check_outcome(result, state, config.endpoint, written=bool(json_out or junit_out))


def register(app: typer.Typer) -> None:
    """Add `probe` (and the `lab` group) to ``app``."""
    app.command("probe")(probe_cmd)
    lab.register(app)
