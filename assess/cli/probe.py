"""CLI for `assess probe` (canary test of an OpenAI-compatible endpoint); also registers `lab`."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import typer
from rich.table import Table

from assess.cli import lab
from assess.kernel.atomic import write_text, write_text_or_stdout
from assess.kernel.errors import EndpointError, OutputError, UsageError
from assess.kernel.output import stdout_console, to_json
from assess.probe.junit import probe_junit
from assess.probe.markers import MIN_FRAGMENT_CHARS, RANDOM_BYTES
from assess.probe.models import ProbeResult
from assess.probe.result import probe_endpoint
from assess.probe.run import (
    TRANSPORTS,
    ProbeAccount,
    ProbeConfig,
    StreamMode,
    estimate_cost,
)
from assess.probe.transport.interface import header_safe_key, strip_credentials

DEFAULT_KEY_ENV = "ASSESS_API_KEY"
_RANDOM_CHARS = RANDOM_BYTES * 8 // 5


def _check_base_url(base_url: str) -> None:
    """Raise UsageError unless ``base_url`` is an http(s) URL with a host."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(
            f"--base-url '{strip_credentials(base_url)}': not an http:// or https:// URL with a "
            "host",
            "Example: --base-url http://127.0.0.1:8000/v1",
        )


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


def _key_from_env(env: str, option: str, label: str) -> str:
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


def _check_options(
    rounds: int, probes: int, concurrency: int, timeout: float, fragment: int, long: int | None
) -> None:
    checks = [
        (rounds < 1, "--rounds", "must be at least 1"),
        (probes < 1, "--probes-per-round", "must be at least 1"),
        (concurrency < 1, "--concurrency", "must be at least 1"),
        (timeout <= 0, "--timeout", "must be more than 0 seconds"),
        (
            not MIN_FRAGMENT_CHARS <= fragment <= _RANDOM_CHARS,
            "--fragment-chars",
            f"must be {MIN_FRAGMENT_CHARS}..{_RANDOM_CHARS} (shorter fragments match by chance)",
        ),
        (long is not None and long < 1, "--long-prompt-tokens", "must be at least 1"),
    ]
    for bad, option, why in checks:
        if bad:
            raise UsageError(f"{option}: {why}", "Fix the option and run again.")


def _print(result: ProbeResult) -> None:
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
        console.print(table)
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


def register(app: typer.Typer) -> None:
    """Add `probe` (and the `lab` group) to ``app``."""

    @app.command("probe")
    def probe_cmd(
        base_url: str = typer.Option(..., "--base-url", help="API base, e.g. http://host/v1."),
        model: str = typer.Option(..., "--model", help="Model id to probe."),
        api_key_env: str = typer.Option(
            DEFAULT_KEY_ENV, "--api-key-env", help="Env var holding account A's key."
        ),
        second_api_key_env: str | None = typer.Option(
            None,
            "--second-api-key-env",
            help="Env var holding account B's key (default: A's key on a fresh client).",
        ),
        rounds: int = typer.Option(3, "--rounds", help="Rounds (one marker planted per round)."),
        probes_per_round: int = typer.Option(
            4, "--probes-per-round", help="Unrelated requests from account B per round."
        ),
        concurrency: int = typer.Option(4, "--concurrency", help="Probe requests in flight."),
        timeout: float = typer.Option(60.0, "--timeout", help="Per-request timeout, seconds."),
        fragment_chars: int = typer.Option(
            8, "--fragment-chars", help="Shortest run of a marker's random part that is a hit."
        ),
        long_prompt_tokens: int | None = typer.Option(
            None,
            "--long-prompt-tokens",
            help="Boundary mode: probes of about N tokens (set near/over the pool size).",
        ),
        yes: bool = typer.Option(False, "--yes", help="Confirm the boundary-mode cost."),
        input_price: float | None = typer.Option(
            None, "--input-price", help="USD per 1M input tokens, for the cost estimate."
        ),
        output_price: float | None = typer.Option(
            None, "--output-price", help="USD per 1M output tokens, for the cost estimate."
        ),
        max_tokens: int = typer.Option(64, "--max-tokens", help="max_tokens per request."),
        stream: str = typer.Option(
            "both", "--stream", help="both (alternate), on or off: streamed requests."
        ),
        max_retries: int = typer.Option(
            3, "--max-retries", help="Retries on 429/503, honouring Retry-After (max 30 s)."
        ),
        max_errors: int = typer.Option(
            5, "--max-errors", help="Stop (incomplete) after this many failed requests."
        ),
        transport: str = typer.Option(
            "httpx", "--transport", help="Client: httpx (raw wire) or openai (the official SDK)."
        ),
        json_out: str | None = typer.Option(
            None, "--json", help="Write the evidence JSON here ('-' for stdout)."
        ),
        junit_out: str | None = typer.Option(None, "--junit", help="Write JUnit XML here."),
    ) -> None:
        """Plant canary markers as account A, probe as account B, scan every response.

        Exit 0: no marker seen; the result is a 95% upper bound on the leak rate, not proof.
        Exit 1: a marker, or a fragment of one, crossed a request boundary.
        Exit 2: could not run (bad options, key variable unset, endpoint unreachable,
        auth failed, garbage replies, or stopped early without a hit).
        Partial runs still write --json and --junit, marked complete=false.

        Example: assess probe --base-url http://127.0.0.1:8000/v1 --model lab-glm-5.3
        --long-prompt-tokens 400 --yes --json probe.json
        """
        _check_options(
            rounds, probes_per_round, concurrency, timeout, fragment_chars, long_prompt_tokens
        )
        if transport not in TRANSPORTS:
            raise UsageError(
                f"--transport: '{transport}' is not one of {', '.join(sorted(TRANSPORTS))}"
            )
        if stream not in ("both", "on", "off"):
            raise UsageError(f"--stream: '{stream}' is not one of both, on, off")
        stream_mode: StreamMode = "both" if stream == "both" else "on" if stream == "on" else "off"
        key_a = _key_from_env(api_key_env, "--api-key-env", "A")
        account_a = ProbeAccount("A", api_key_env, key_a)
        if second_api_key_env:
            key_b = _key_from_env(second_api_key_env, "--second-api-key-env", "B")
            note = "same key as A: not a second tenant" if key_b == key_a else ""
            account_b = ProbeAccount("B", second_api_key_env, key_b, note)
        else:
            account_b = ProbeAccount(
                "B", api_key_env, key_a, "same key as A on a fresh client (no second account)"
            )
        config = ProbeConfig(
            base_url=base_url.rstrip("/"),
            model=model,
            rounds=rounds,
            probes_per_round=probes_per_round,
            concurrency=concurrency,
            timeout_s=timeout,
            fragment_chars=fragment_chars,
            long_prompt_tokens=long_prompt_tokens,
            max_tokens=max_tokens,
            stream=stream_mode,
            max_retries=max_retries,
            max_errors=max_errors,
            transport=transport,
        )
        _check_base_url(base_url)
        _check_writable(json_out, "--json")
        _check_writable(junit_out, "--junit")
        if long_prompt_tokens:
            estimate = estimate_cost(config).describe(input_price, output_price)
            typer.echo(f"boundary mode: this run sends {estimate}.", err=True)
            if not yes:
                raise UsageError(
                    "--long-prompt-tokens: boundary mode sends long prompts and costs money; "
                    "it needs --yes",
                    "Check the estimate above, then run again with --yes.",
                )
        result, state, runner = probe_endpoint(config, account_a, account_b)
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
        if state.fatal is not None:
            raise state.fatal
        if result.complete and result.stats.probes == 0:
            plants = [r for r in result.requests if r.role == "plant"]
            refused = [r for r in plants if r.outcome == "rejected"]
            if refused and not result.markers:
                statuses = sorted({str(r.status) for r in refused})
                raise EndpointError(
                    f"{config.endpoint}: INCONCLUSIVE: none of the {len(plants)} plant requests "
                    f"was accepted (HTTP {', '.join(statuses)}), so no probe could "
                    "show a marker; nothing can be said about isolation",
                    "See requests[] and errors[] in the --json output; check --model, the key "
                    "and the endpoint, then run again.",
                )
            raise EndpointError(
                f"{config.endpoint}: no probe response could be scanned "
                f"({len(state.errors)} failed requests); nothing can be said about isolation",
                "See errors[] in the --json output; check the endpoint and run again.",
            )
        if not result.complete:
            why = "interrupted" if state.interrupted else f"{len(state.errors)} failed requests"
            written = "; partial results were written" if json_out or junit_out else ""
            raise EndpointError(
                f"{config.endpoint}: the run stopped early ({why}) without a hit{written}",
                "See errors[] in the --json output; retry later or lower --concurrency.",
            )

    lab.register(app)
