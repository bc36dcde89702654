"""Request logs of any gateway, read through a preset into canonical batches.

Entry point: :func:`open_logs` resolves the files and the preset (``auto`` detects it from a
sample of records) and returns a :class:`LogReader` whose ``batches()`` streams the data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from itertools import islice
from pathlib import Path
from typing import Any, cast

from assess.kernel.errors import InputError
from assess.kernel.output import ProgressCallback
from assess.scope.logs.compression import MAX_RATIO
from assess.scope.logs.engine import LogReader, WantText
from assess.scope.logs.formats import Bad
from assess.scope.logs.lines import MAX_LINE_BYTES
from assess.scope.logs.presets import (
    CANONICAL_FIELDS,
    Preset,
    detect_preset,
    get_preset,
    load_presets,
    parse_map,
)
from assess.scope.logs.remote import expand_logs
from assess.scope.models import InputNote

__all__ = [
    "CANONICAL_FIELDS",
    "LogReader",
    "Preset",
    "WantText",
    "open_logs",
    "parse_map",
    "sample_records",
]

DETECT_SAMPLE = 100


def sample_records(reader: LogReader, per_file: int = DETECT_SAMPLE) -> list[Any]:
    """Return up to ``per_file`` parsed records from the start of every file (every column of a
    Parquet file, not only the reader's preset's: the sample is scored against every preset)."""
    sample: list[Any] = []
    for path in reader.files:
        for _, record in islice(reader.records(path, every_column=True), per_file):
            if not isinstance(record, Bad):
                sample.append(record)
    return sample


def _check_one_product(
    per_file: Mapping[Path, list[Any]], found: Preset, catalogue: Mapping[str, Preset]
) -> None:
    """Raise InputError when a file is another product's log than the one auto chose for the run.

    Every file of a run goes through one preset: a file none of whose sampled records fits it,
    but which another preset recognises, would otherwise be read as skipped rows.
    """
    for path, records in per_file.items():
        if not records or any(_fits(found, r) for r in records):
            continue
        other, _ = detect_preset(records, catalogue)
        if other is not None and other.id != found.id:
            raise InputError(
                f"{path}: looks like a {other.id} log, but --preset auto chose {found.id} for "
                "this run from the other files",
                "Scope each product's logs in a separate run, or give --preset to read every "
                "file the same way.",
            )


def _fits(preset: Preset, record: Any) -> bool:
    """True when ``record`` matches the preset's detect rule or its join side table's."""
    if preset.matches(record):
        return True
    return preset.join is not None and preset.join.detect.matches(record)


def _unrecognised(
    path: Path, sample: list[Any], catalogue: Mapping[str, Preset], absent: Sequence[str] = ()
) -> InputError:
    """The refusal of --preset auto: the fields seen and the closest presets with what each
    lacks."""
    from assess.scope.logs.explain import closest

    keys = {str(k) for r in sample[:20] if isinstance(r, dict) for k in r}
    # binary junk sniffed as a CSV header must not reach the terminal
    seen = sorted(k for k in keys if k.isprintable() and len(k) <= 60)[:15]
    fields = ", ".join(seen) or "no readable field names: is it a log export?"
    near = "; ".join(closest(sample[:DETECT_SAMPLE], catalogue)) if seen else ""
    return InputError(
        f"{path}: --preset auto recognises no known log format (fields seen: {fields})"
        + (f". Closest presets: {near}" if near else "")
        + (f"; no field has the shape of a {' or '.join(absent)}" if absent else ""),
        f"Choose one with --preset ({', '.join(sorted(catalogue))}) or map the fields: "
        "--map timestamp=PATH --map model=PATH --map prompt_tokens=PATH.",
    )


def open_logs(
    patterns: Sequence[str],
    preset: str = "auto",
    mapping: Mapping[str, str | Sequence[str]] | None = None,
    want_text: WantText | None = None,
    progress: ProgressCallback | None = None,
    presets_dir: Path | None = None,
    window: tuple[datetime, datetime] | None = None,
    max_inflate_ratio: int = MAX_RATIO,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> LogReader:
    """Return a reader over the files of ``patterns`` through ``preset`` (an id, a file or auto);
    with a ``window`` (since, until), files in date folders outside it are not read.
    ``max_inflate_ratio`` bounds every read of a compressed input and ``max_line_bytes`` every
    NDJSON line parsed, the samples ``auto`` reads to detect the format too
    (``--max-inflate-ratio``, ``--max-line-bytes``): it chooses from the records the run reads.

    Raises:
        InputError: for missing files, or when ``auto`` recognises no preset.
        UsageError: for an unknown preset id.
    """
    # a RemoteFile offers what the readers use of a Path (name, str, stat, open)
    notes: list[InputNote] = []
    files = cast(list[Path], expand_logs(patterns, notes, window))
    kwargs: dict[str, Any] = {"want_text": want_text}
    if progress is not None:
        kwargs["progress"] = progress
    limits = (max_line_bytes, max_inflate_ratio)
    reader = _reader(files, preset, mapping, kwargs, presets_dir, limits)
    reader.input_notes = notes
    reader.max_line_bytes, reader.max_inflate_ratio = limits
    return reader


def _reader(
    files: list[Path],
    preset: str,
    mapping: Mapping[str, str | Sequence[str]] | None,
    kwargs: dict[str, Any],
    presets_dir: Path | None,
    limits: tuple[int, int],
) -> LogReader:
    catalogue = load_presets(presets_dir)
    if preset != "auto":
        chosen = get_preset(preset, catalogue).with_map(mapping or {})
        return LogReader(files, chosen, **kwargs)
    per_file = {path: _sample(path, catalogue, limits) for path in files}
    sample = [record for records in per_file.values() for record in records]
    found, scores = detect_preset(sample, catalogue)
    if found is not None:
        _check_one_product(per_file, found, catalogue)
    if found is None and mapping and {"timestamp", "model"} <= set(mapping):
        # only what the user mapped is read: no preset recognised these files, so no preset's
        # candidate paths may stand in for the fields left unmapped
        return LogReader(files, catalogue["canonical"].only_mapped(mapping), **kwargs)
    if found is None:
        return _inferred(files, sample, catalogue, mapping or {}, kwargs)
    return LogReader(files, found.with_map(mapping or {}), **kwargs)


def _sample(path: Path, catalogue: Mapping[str, Preset], limits: tuple[int, int]) -> list[Any]:
    """Return the first records of ``path``, read within ``limits`` (the longest line parsed,
    the inflate ratio): a line the run skips is no evidence of the format."""
    reader = LogReader([path], catalogue["canonical"])
    reader.max_line_bytes, reader.max_inflate_ratio = limits
    return sample_records(reader)


def _inferred(
    files: list[Path],
    sample: list[Any],
    catalogue: Mapping[str, Preset],
    mapping: Mapping[str, str | Sequence[str]],
    kwargs: dict[str, Any],
) -> LogReader:
    """The reader of files no preset recognises, through the mapping inferred from ``sample``
    (the user's ``--map`` over it).

    Raises:
        InputError: when a required field has no clear path (the candidates listed), or no
            field can be inferred (the fields seen and the closest presets).
    """
    from assess.scope.logs.infer import ambiguous_error, infer_mapping, inferred_preset

    inference = infer_mapping(sample[: DETECT_SAMPLE * 2])
    absent = [f for f in ("timestamp", "model") if f not in mapping and not inference.field(f)]
    if absent:
        raise _unrecognised(files[0], sample, catalogue, absent)
    if not inference.usable_with(mapping):
        raise ambiguous_error(files[0], inference, mapping)
    reader = LogReader(files, inferred_preset(catalogue["canonical"], inference, mapping), **kwargs)
    reader.inference = inference
    return reader


def suggest_preset(
    patterns: Sequence[str],
    out: Path,
    max_line_bytes: int = MAX_LINE_BYTES,
    max_inflate_ratio: int = MAX_RATIO,
) -> Any:
    """Write the mapping inferred from a sample of ``patterns`` to ``out`` as a preset YAML to
    edit (``assess scope --suggest-preset``), the sample read within the limits the run has;
    return the inference.

    Raises:
        InputError: missing files, or no field with the shape of a required one.
    """
    from assess.scope.logs.suggest import suggest_preset as write

    files = cast(list[Path], expand_logs(patterns))
    catalogue = load_presets()
    limits = (max_line_bytes, max_inflate_ratio)
    sample = [r for path in files for r in _sample(path, catalogue, limits)]
    return write(sample, Path(str(files[0])).name, out)
