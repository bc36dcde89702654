"""Python API of the scope feature: request logs scoped against an incident advisory.

`assess scope` and `assess report --logs` both call :func:`scope_run`; :func:`scope_logs` is the
public function (``from assess import scope_logs``) and returns the ``--json`` document's model.
Nothing here prints or exits; every user error is an :class:`~assess.kernel.errors.AssessError`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assess.kernel.errors import InputError, UsageError
from assess.kernel.output import ProgressCallback
from assess.scope.accumulator import ScopeAccumulator
from assess.scope.estimate import check_statement
from assess.scope.evidence import NotAssessable as NotAssessable  # raised by scope_logs
from assess.scope.filter import with_preset
from assess.scope.models import ScopeFilter, ScopeResult

if TYPE_CHECKING:
    from assess.scope.logs import LogReader, Preset
    from assess.scope.logs.sources import Prefetch
    from assess.scope.sql import Query

DEFAULT_INCIDENT = "glm-5.3-kv-leak"
#: ``--map`` as the API takes it: ``{"model": "a.b"}``, ``{"model": ["a", "b"]}`` (fallbacks in
#: order) or ``["model=a", "model=b"]``.
MapOption = Mapping[str, str | Sequence[str]] | Sequence[str] | None


def map_items(mapping: MapOption) -> list[str]:
    """Return ``mapping`` as ``--map`` items (``canonical=path``), fallbacks in order."""
    if not isinstance(mapping, Mapping):
        return list(mapping or [])
    return [
        f"{name}={path}"
        for name, paths in mapping.items()
        for path in ([paths] if isinstance(paths, str) else paths)
    ]


@dataclass(frozen=True)
class ScopeRun:
    """A finished scope: the result, the log files read, and the rows kept for the ids CSV."""

    result: ScopeResult
    files: list[Path]
    accumulator: ScopeAccumulator

    def affected_rows(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Yield ``("affected" | "possibly_affected", row)`` for every kept request, in order."""
        for category, store in (
            ("affected", self.accumulator.affected),
            ("possibly_affected", self.accumulator.unknown),
        ):
            for row in store.rows():
                yield category, row


def parse_when(value: str | datetime | None, option: str, until: bool = False) -> datetime | None:
    """Return ``value`` as a UTC datetime (ISO 8601 or epoch text; a bare date as ``until``
    means the whole day).

    Raises:
        UsageError: naming ``option`` when the text is not a date-time.
    """
    from assess.scope.filter import end_of_day
    from assess.scope.logs.timestamps import ns_to_datetime, parse_instant

    if value is None or isinstance(value, datetime):
        return value
    nanos = parse_instant(value.strip())
    if nanos is None:
        raise UsageError(
            f"{option} '{value}': not an ISO 8601 date-time or epoch number",
            "Example: --since 2026-08-27T00:00:00Z (no zone means UTC).",
        )
    try:
        moment = ns_to_datetime(nanos)
    except OverflowError:
        raise UsageError(
            f"{option} '{value}': outside the years 1 to 9999",
            "Give a date-time between 0001-01-01 and 9999-12-31 (UTC).",
        ) from None
    if until and len(value.strip()) == 10:  # a bare date includes the whole day
        moment = end_of_day(moment)
    return moment


def scope_run(
    logs: Sequence[str | Path],
    *,
    incident: str = DEFAULT_INCIDENT,
    preset: str | None = "auto",
    mapping: MapOption = None,
    models: Sequence[str] | None = None,
    since: str | datetime | None = None,
    until: str | datetime | None = None,
    min_prompt_tokens: int | None = None,
    platform_requests: int | None = None,
    keep_text: bool = False,
    progress: ProgressCallback | None = None,
    max_line_bytes: int | None = None,
    jobs: int | None = None,
    platform_tokens: int | None = None,
    platform_mean_tokens: int | None = None,
    served_by: str | None = None,
    max_inflate_ratio: int | None = None,
    own_overlap: bool = True,
) -> ScopeRun:
    """Scope ``logs`` (files or globs) as `assess scope` does; see :func:`scope_logs`. A run
    whose logs back no verdict returns ``result.verdict`` ``not_assessable`` (exit code 2).
    ``own_overlap`` false skips matching our prompts in over-length responses."""
    from assess.scope.evidence import require_evidence, with_reading
    from assess.scope.logs import open_logs, parse_map
    from assess.scope.logs.compression import MAX_RATIO
    from assess.scope.logs.lines import MAX_LINE_BYTES
    from assess.scope.read_inputs import read_all

    platform = check_statement(platform_requests, platform_tokens, platform_mean_tokens)
    maps = parse_map(map_items(mapping))
    scope = _scope_filter(incident, models, since, until, min_prompt_tokens)
    window = (scope.since, scope.until)  # date folders outside it are not read
    files = [str(p) for p in logs]
    ratio = MAX_RATIO if max_inflate_ratio is None else max_inflate_ratio
    line = MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes
    limits: dict[str, Any] = {"max_inflate_ratio": ratio, "max_line_bytes": line}  # auto's too
    reader = open_logs(files, preset or "auto", maps, progress=progress, window=window, **limits)
    bound = with_preset(scope, reader.preset, served_by)
    acc = ScopeAccumulator(bound.model_copy(update={"own_overlap": own_overlap}), keep_text)
    reading = _Reading(reader, preset or "auto", maps)
    inputs = read_all(reader, acc, jobs, progress, reading.start, reading.now)
    result = acc.result(reader.preset.id, inputs, *platform)
    notes = {"reading": reading.result(), "inputs_not_read": reader.input_notes}
    result = result.model_copy(update=notes | {"fetched_again": reader.fetched_again})
    reader.release()  # the local copies of remote objects
    require_evidence(result, reader.preset.id)
    _require_requests_beside_side_table(result)
    result = with_reading(result, reader.preset)
    return ScopeRun(result=result, files=list(reader.files), accumulator=acc)


def _require_requests_beside_side_table(result: ScopeResult) -> None:
    """Refuse a run whose records are all rows of a join's side table (Langfuse traces/, the
    APIM gateway log alone): "nothing affected" would only mean the request table is missing.

    Raises:
        InputError: naming the side table's files.
    """
    reasons = result.breakdown.non_request_reasons
    if result.breakdown.requests or result.counts.records_skipped or len(reasons) != 1:
        return
    (reason,) = reasons
    if not reason.startswith("joined "):
        return
    files = ", ".join(r.file for r in result.reading if r.role == "side table") or "the logs"
    raise InputError(
        f"{files}: every record is a row of the {result.preset} side table ({reason}), "
        "none is a request",
        "Give the request table too, in the same run (for Langfuse's legacy export: the "
        "observations/ files beside traces/; for Azure APIM: ApiManagementGatewayLlmLog).",
    )


def _reading(reader: Any, preset: str, maps: Mapping[str, list[str]]) -> list[Any]:
    """How each file was read: the preset, why, and each field's path (``reading``)."""
    from assess.scope.logs.explain import ChosenBy, read_report
    from assess.scope.logs.presets import load_presets

    chosen_by: ChosenBy = "--preset" if preset != "auto" else "auto"
    if preset == "auto" and maps and reader.preset.id == "canonical":
        chosen_by = "--map"
    if reader.inference is not None:
        chosen_by = "inferred"
    return read_report(reader, load_presets(), chosen_by)


class _Reading:
    """The reading report (:func:`_reading`), worked out in a thread of its own while the logs
    are read: the main thread mostly waits for the reader's threads then (inflating and parsing
    release the GIL), so the report's ~15-20 ms of Python leave the end of the run."""

    def __init__(self, reader: LogReader, preset: str, maps: Mapping[str, list[str]]) -> None:
        self._args = (reader, preset, maps)
        self._thread: Prefetch[list[Any]] | None = None
        self._report: list[Any] | None = None

    def start(self) -> None:
        """Begin, once (after the first batch: polars is imported in a reader thread at the
        start, and both would hold the GIL)."""
        if self._thread is None and self._report is None:
            from assess.scope.logs.sources import Prefetch

            # room for the report and the end mark: the thread ends once the report is made,
            # whether or not anyone asks for it (a run that fails leaves no thread behind)
            self._thread = Prefetch(self._once(), depth=2)

    def _once(self) -> Iterator[list[Any]]:
        yield _reading(*self._args)

    def now(self) -> None:
        """Make the report here, before ``--jobs`` workers are sent their files: a worker copies
        the bytes of its object the parent holds when its job is sent, so the report's sample,
        fetched first, is not fetched again by a worker (nor by the parent while one runs)."""
        if self._thread is None and self._report is None:
            self._report = _reading(*self._args)

    def result(self) -> list[Any]:
        """Return the report (made here when it was never started); its errors are raised."""
        if self._report is not None:
            return self._report
        if self._thread is None:
            return _reading(*self._args)
        (report,) = list(self._thread)
        return report


def _scope_filter(
    incident: str,
    models: Sequence[str] | None,
    since: str | datetime | None,
    until: str | datetime | None,
    min_prompt_tokens: int | None,
) -> ScopeFilter:
    from assess.advisories.catalogue import get_advisory, load_advisories
    from assess.advisories.wording import no_scope_reason
    from assess.scope.filter import make_filter

    advisory = get_advisory(incident)
    if not advisory.has_scope:
        usable = sorted(a.id for a in load_advisories().values() if a.has_scope)
        raise UsageError(
            f"--incident {incident}: {no_scope_reason(advisory)}",
            f"Advisories with scope data: {', '.join(usable) or '(none)'}. Other models or "
            "dates: --model, --since and --until replace an advisory's own.",
        )
    return make_filter(
        advisory,
        list(models) if models else None,
        parse_when(since, "--since"),
        parse_when(until, "--until", True),
        min_prompt_tokens,
    )


def _preset(preset: str, mapping: MapOption, logs: Sequence[str | Path]) -> Preset:
    """The preset with ``--map`` applied; ``auto`` is detected from ``logs`` (a sample)."""
    from assess.scope.logs import open_logs, parse_map
    from assess.scope.logs.presets import get_preset

    maps = parse_map(map_items(mapping))
    if preset != "auto":
        return get_preset(preset).with_map(maps)
    if not logs:
        raise UsageError(
            "--preset auto needs a log file to detect the gateway from",
            "Give --preset ID (see docs/scope-formats.md), or a sample log file as LOGS.",
        )
    return open_logs([str(p) for p in logs], "auto", maps).preset


def emit_sql(
    dialect: str,
    *,
    logs: Sequence[str | Path] = (),
    incident: str = DEFAULT_INCIDENT,
    preset: str = "auto",
    mapping: MapOption = None,
    models: Sequence[str] | None = None,
    since: str | datetime | None = None,
    until: str | datetime | None = None,
    min_prompt_tokens: int | None = None,
    table: str = "assess_logs",
    column: str = "line",
) -> Query:
    """Return the scoping query in ``dialect`` (duckdb, spark, athena, trino, bigquery) over
    ``table(column)`` of raw NDJSON lines, for the same options as :func:`scope_logs`.

    Raises:
        UsageError: an unknown dialect, advisory or preset, ``auto`` without ``logs``, or a
            preset with a joined side table, a ``table``/``column`` that is not a name.
    """
    from assess.scope.sql import scoping_query

    scope = _scope_filter(incident, models, since, until, min_prompt_tokens)
    return scoping_query(_preset(preset, mapping, logs), scope, dialect, table, column)


def scope_engine_run(
    results: str | Path,
    *,
    incident: str = DEFAULT_INCIDENT,
    preset: str = "auto",
    mapping: MapOption = None,
    models: Sequence[str] | None = None,
    since: str | datetime | None = None,
    until: str | datetime | None = None,
    min_prompt_tokens: int | None = None,
    platform_requests: int | None = None,
    keep_text: bool = False,
    logs: Sequence[str | Path] = (),
    platform_tokens: int | None = None,
    platform_mean_tokens: int | None = None,
    served_by: str | None = None,
    own_overlap: bool = True,
) -> ScopeRun:
    """Return the scope of an engine's result of the :func:`emit_sql` query (same options):
    ``results`` is its file, or a sharded export's folder or glob (the parts read together).

    Raises:
        InputError: a result that is not the query's, or of other options, or a part of one;
            no usable request.
        UsageError: as :func:`emit_sql`.
    """
    from assess.scope.engine_files import distinct_parts, result_files
    from assess.scope.engine_results import result_preset, scope_engine_results
    from assess.scope.evidence import require_evidence

    platform = check_statement(platform_requests, platform_tokens, platform_mean_tokens)
    paths, not_read = distinct_parts(result_files(results))  # each part's bytes read once
    scope = _scope_filter(incident, models, since, until, min_prompt_tokens)
    if preset == "auto" and not logs:  # the preset the query was emitted for
        preset = result_preset(paths) or preset
        if preset == "inferred":
            raise UsageError(
                f"{results}: the query was emitted for a mapping inferred from a log file "
                "(preset 'inferred'), which the result does not hold",
                "Give the same log file as LOGS, with the same --map options, as to "
                "--emit-sql: the mapping is inferred from it again.",
            )
    chosen = _preset(preset, mapping, logs)
    scope = with_preset(scope, chosen, served_by).model_copy(update={"own_overlap": own_overlap})
    acc, engine = scope_engine_results(paths, chosen, scope, keep_text, not_read)
    result = acc.result(chosen.id, engine.parts or [engine.results], *platform)
    require_evidence(result, chosen.id)
    result = result.model_copy(update={"engine": engine, "inputs_not_read": not_read})
    return ScopeRun(result=result, files=paths, accumulator=acc)


def scope_logs(
    logs: Sequence[str | Path],
    *,
    incident: str = DEFAULT_INCIDENT,
    preset: str = "auto",
    mapping: MapOption = None,
    models: Sequence[str] | None = None,
    since: str | datetime | None = None,
    until: str | datetime | None = None,
    min_prompt_tokens: int | None = None,
    platform_requests: int | None = None,
    progress: ProgressCallback | None = None,
    max_line_bytes: int | None = None,
    jobs: int | None = None,
    platform_tokens: int | None = None,
    platform_mean_tokens: int | None = None,
    served_by: str | None = None,
    max_inflate_ratio: int | None = None,
) -> ScopeResult:
    """Scope request logs against an incident advisory: the model of `assess scope --json`.

    ``logs``: files, globs or URLs (s3://, gs://, https://); ``preset``: an id, a YAML file, auto;
    ``mapping`` is ``{"canonical": "dotted.path"}`` (or ``["canonical=dotted.path"]``);
    ``models``, ``since``, ``until`` (datetimes or ISO text) and ``min_prompt_tokens`` replace
    the advisory's (its figures then no longer apply); N, V or V/N (``platform_*``) give the range
    ``disclosed.estimate`` (docs/exposure.md); NDJSON lines over ``max_line_bytes`` (16 MiB) are
    skipped and listed; ``jobs`` processes read the files (0: one per core; same document); a
    compressed log inflating past ``max_inflate_ratio`` (1000) times its size is refused.

    Raises:
        NotAssessable: (an InputError) the logs back no verdict: no usable request, a required
            field read in too few records, no request naming the model; ``.result`` is the
            document, verdict ``not_assessable``.
        InputError: missing or unreadable logs, no record in them.
        UsageError: an unknown advisory or preset, a bad mapping or date.
    """
    result = scope_run(
        logs,
        incident=incident,
        preset=preset,
        mapping=mapping,
        models=models,
        since=since,
        until=until,
        min_prompt_tokens=min_prompt_tokens,
        platform_requests=platform_requests,
        progress=progress,
        max_line_bytes=max_line_bytes,
        jobs=jobs,
        platform_tokens=platform_tokens,
        platform_mean_tokens=platform_mean_tokens,
        served_by=served_by,
        max_inflate_ratio=max_inflate_ratio,
    ).result
    if result.verdict == "not_assessable":
        raise NotAssessable(result)
    return result
