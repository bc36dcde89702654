"""CLI for `assess lab serve`: a local leaky (or fixed) OpenAI-compatible server."""

from __future__ import annotations

import os
import signal
import socket
import threading
from types import FrameType

import typer

from assess.kernel.errors import UsageError
from assess.lab.engine import LabConfig
from assess.lab.prefix_cache import PREFIX_CACHE_MODES, LatencyModel, PrefixCacheMode
from assess.lab.server import LabHTTPServer, make_lab_server

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def _allowed_keys(env: str | None) -> frozenset[str] | None:
    if env is None:
        return None
    value = os.environ.get(env, "")
    keys = frozenset(k.strip() for k in value.split(",") if k.strip())
    if not keys:
        raise UsageError(
            f"--allowed-keys-env: environment variable {env} is not set or empty",
            f"export {env}=key1,key2 (comma-separated), or drop the option to accept any key.",
        )
    return keys


def _cache_mode(value: str | None) -> PrefixCacheMode | None:
    if value is None:
        return None
    for mode in PREFIX_CACHE_MODES:
        if value == mode:
            return mode
    raise UsageError(
        f"--prefix-cache '{value}': not one of {', '.join(PREFIX_CACHE_MODES)}",
        "Example: --prefix-cache shared",
    )


def _stop_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # `kill` stops the lab as cleanly as Ctrl-C


def _bind(config: LabConfig, host: str, port: int, quiet: bool) -> LabHTTPServer:
    """Bind the lab server, turning a bad --host or --port into a UsageError."""

    def log(line: str) -> None:
        if not quiet:
            typer.echo(f"lab: {line}", err=True)

    if not 0 <= port <= 65535:
        raise UsageError(
            f"--port {port}: must be 0..65535", "Give a free port, or --port 0 for any."
        )
    try:
        return make_lab_server(config, host, port, log)
    except socket.gaierror as exc:
        raise UsageError(
            f"--host {host}: not an address of this machine ({exc.strerror or exc})",
            "Use --host 127.0.0.1 (the default).",
        ) from None
    except OSError as exc:
        raise UsageError(
            f"--port {port}: cannot bind {host}:{port} ({exc.strerror or exc})",
            "Choose another --port, or --port 0 for a free one.",
        ) from None


def _mode(config: LabConfig) -> str:
    if config.fixed:
        return "fixed (over-length prompts retired with HTTP 400)"
    if config.faulty:
        return "FAULTY (disaggregation admission bug: over-length prompts read stale pages)"
    return "faulty engine, but the pool covers the context: no over-length prompts"


def _serve(server: LabHTTPServer) -> None:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        typer.echo("lab: stopped", err=True)
    finally:
        server.server_close()


# The prefix-cache options, named here so serve_cmd's signature stays one line per option.
_PREFIX_CACHE = typer.Option(
    None,
    "--prefix-cache",
    help="Model a prompt prefix cache: shared (across keys), per-key (cache_salt from the "
    "key) or off (never reused). Default: no cache and no modelled latency.",
)
_PER_TOKEN_MS = typer.Option(
    0.05, "--prefill-ms-per-token", help="Modelled prefill time per uncached token, ms."
)
_BASE_MS = typer.Option(1.0, "--base-ms", help="Modelled fixed time per request, ms.")
_NOISE_MS = typer.Option(1.0, "--noise-ms", help="Width of uniform latency noise, ms.")
_SEED = typer.Option(0, "--seed", help="Seed of the latency noise.")
_REPORT_CACHED = typer.Option(
    False,
    "--report-cached-tokens",
    help="Answer with usage.prompt_tokens_details.cached_tokens (with --prefix-cache).",
)


def _describe_cache(config: LabConfig) -> None:
    if config.prefix_cache is None:
        return
    lat = config.latency
    typer.echo(
        f"lab: prefix cache {config.prefix_cache}; prefill {lat.base_ms:g} ms + "
        f"{lat.per_token_ms:g} ms per uncached token + up to {lat.noise_ms:g} ms noise; "
        f"cached_tokens {'reported' if config.report_cached_tokens else 'not reported'}"
    )


def serve_cmd(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (loopback)."),
    port: int = typer.Option(8000, "--port", help="Port; 0 picks a free one."),
    pool_tokens: int = typer.Option(
        256, "--pool-tokens", help="Prefill KV pool size in tokens (the too-small pool)."
    ),
    context_tokens: int = typer.Option(
        512, "--context-tokens", help="Advertised context window in tokens."
    ),
    page_tokens: int = typer.Option(16, "--page-tokens", help="Tokens per KV page."),
    fixed: bool = typer.Option(
        False,
        "--fixed",
        help="Retire over-length prompts at admission with HTTP 400 (like SGLang 0.5.22).",
    ),
    model: str = typer.Option("lab-glm-5.3", "--model", help="Model id the lab serves."),
    reply_tokens: int = typer.Option(24, "--reply-tokens", help="Most tokens in a reply."),
    allowed_keys_env: str | None = typer.Option(
        None,
        "--allowed-keys-env",
        help="Env var with comma-separated keys to accept (default: any non-empty key).",
    ),
    quiet: bool = typer.Option(False, "--quiet", help="Do not log requests to stderr."),
    prefix_cache: str | None = _PREFIX_CACHE,
    prefill_ms_per_token: float = _PER_TOKEN_MS,
    base_ms: float = _BASE_MS,
    noise_ms: float = _NOISE_MS,
    seed: int = _SEED,
    report_cached_tokens: bool = _REPORT_CACHED,
) -> None:
    """Serve /v1/models and /v1/chat/completions over a simulated shared paged KV cache.

    Faulty (default, pool < context): a prompt longer than the pool gets HTTP 200
    and a reply built from stale pages left by earlier requests.
    --fixed: such prompts are retired at admission with HTTP 400, nothing allocated.
    The first line printed is LAB_BASE_URL=<url>; Ctrl-C stops the server.
    --prefix-cache: a modelled prefill time and prompt-page reuse, for `probe --mode cache`.

    Example: assess lab serve --port 0 --pool-tokens 256 --context-tokens 512
    """
    try:
        config = LabConfig(
            page_tokens=page_tokens, pool_tokens=pool_tokens, context_tokens=context_tokens,
            fixed=fixed, model=model, reply_tokens=reply_tokens,
            api_keys=_allowed_keys(allowed_keys_env), prefix_cache=_cache_mode(prefix_cache),
            latency=LatencyModel(base_ms, prefill_ms_per_token, noise_ms, seed),
            report_cached_tokens=report_cached_tokens,
        )  # fmt: skip
    except ValueError as exc:
        raise UsageError(f"lab serve: {exc}", "Fix the sizes and try again.") from None
    server = _bind(config, host, port, quiet)
    typer.echo(f"LAB_BASE_URL={server.base_url}")
    typer.echo(
        f"lab: model {model}; prefill pool {server.engine.prefill.n_pages} pages x "
        f"{page_tokens} tokens, context {context_tokens} tokens; mode {_mode(config)}"
    )
    _describe_cache(config)
    if host not in _LOOPBACK:
        typer.echo(f"warning: the lab leaks by design and is bound to {host}", err=True)
    _serve(server)


def register(app: typer.Typer) -> None:
    """Add the `lab` group (command `serve`) to ``app``."""
    group = typer.Typer(
        rich_markup_mode=None,  # plain help: typer.rich_utils costs a third of --help CPU
        help=(
            "A local lab server that leaks the way SGLang did, to prove `assess probe` works.\n\n"
            "Example: assess lab serve --port 0"
        ),
        no_args_is_help=True,
    )
    group.command("serve")(serve_cmd)
    app.add_typer(group, name="lab")
