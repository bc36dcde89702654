"""The server-log parsers, by engine name, and how a log is matched to one."""

from __future__ import annotations

from assess.deploy.models import ParsedServerLog
from assess.deploy.serverlogs.identity import log_period, models_named
from assess.deploy.serverlogs.interface import ServerLogParser
from assess.deploy.serverlogs.sglang import SGLangParser
from assess.deploy.serverlogs.source import LogSource
from assess.deploy.serverlogs.text import LogText, clean
from assess.deploy.serverlogs.vllm import VLLMParser

#: Add an engine by writing a ServerLogParser in its own module and listing it here.
PARSERS: dict[str, ServerLogParser] = {"sglang": SGLangParser(), "vllm": VLLMParser()}
#: Every engine's launch banners: while a long log is thinned, each one starts a launch afresh.
LAUNCH_MARKERS = tuple(marker for parser in PARSERS.values() for marker in parser.launch_markers)
#: Lines never thinned away: the strong signatures (a pool, a context, a banner; printed once per
#: rank, and the smallest rank's value is the one that counts).
KEEP_LINES = tuple(
    pattern for parser in PARSERS.values() for pattern, weight in parser.signatures if weight >= 3
)


def detect(log: LogText) -> ServerLogParser | None:
    """Return the parser whose engine the log most looks like, or None when none fits."""
    scored = sorted(((parser.score(log), name) for name, parser in PARSERS.items()), reverse=True)
    best_score, best = scored[0]
    return PARSERS[best] if best_score >= 3 else None


def parse_source(source: LogSource, engine: str | None = None) -> ParsedServerLog:
    """Return what ``source`` says, with ``problem`` set when it is no usable log.

    ``engine`` forces a parser (a key of :data:`PARSERS`); by default it is detected.
    """
    notes = list(source.notes)
    if source.problem is not None:
        return ParsedServerLog(engine="unknown", problem=source.problem, notes=notes)
    log = LogText(clean(source.text))
    parser = PARSERS[engine] if engine else detect(log)
    if parser is None:
        return ParsedServerLog(
            engine="unknown",
            problem="neither an SGLang nor a vLLM startup log: no 'server_args=ServerArgs(', "
            "'max_total_num_tokens=', 'vLLM API server version' or 'GPU KV cache size:' line",
            notes=notes,
        )
    parsed = _identified(parser.parse(log), log)
    return parsed.model_copy(update={"notes": notes + parsed.notes})


def _identified(parsed: ParsedServerLog, log: LogText) -> ParsedServerLog:
    """Return ``parsed`` with the models it names and the time span of ``log``."""
    return parsed.model_copy(
        update={"models": models_named(parsed.settings), "period": log_period(log)}
    )


def parse_launches(source: LogSource, engine: str | None = None) -> list[ParsedServerLog]:
    """Return one parsed log per launch in ``source`` (users paste run after run into one file).

    A launch begins at the engine's startup banner; the text before the first banner (exported
    variables, the command) belongs to the first launch. A log with one launch (or none found)
    gives what :func:`parse_source` gives.
    """
    if source.problem is not None:
        return [parse_source(source, engine)]
    log = LogText(clean(source.text))
    parser = PARSERS[engine] if engine else detect(log)
    starts = log.startup_offsets(parser.launch_markers) if parser else []
    if parser is None or len(starts) < 2:
        return [parse_source(source, engine)]
    bounds = [0, *starts[1:], len(log.text)]
    result = []
    for number, (start, end) in enumerate(zip(bounds, bounds[1:], strict=False), 1):
        part = log.part(start, end)
        parsed = _identified(parser.parse(part), part)
        last = part.first_line + part.line_count - 1
        where = f"launch {number} of {len(starts)} in the log (lines {part.first_line}-{last})"
        where += _launch_settings(parsed)
        result.append(parsed.model_copy(update={"notes": [where, *source.notes, *parsed.notes]}))
    return result


def _launch_settings(parsed: ParsedServerLog) -> str:
    """Return ': version v, role r, context N, pool M', what tells one launch from another."""
    parts = [
        f"{label} {value:,}" if isinstance(value, int) else f"{label} {value}"
        for label, value in (
            ("version", parsed.version),
            ("role", parsed.role),
            ("context", parsed.context_tokens),
            ("pool", parsed.pool_tokens),
        )
        if value is not None
    ]
    return ": " + ", ".join(parts) if parts else ""
