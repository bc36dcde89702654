"""Request logs of any gateway, read through a preset into canonical batches.

Entry point: :func:`open_logs` resolves the files and the preset (``auto`` detects it from a
sample of records) and returns a :class:`LogReader` whose ``batches()`` streams the data.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice
from pathlib import Path
from typing import Any

from assess.errors import InputError
from assess.readers.logs.engine import LogReader, WantText
from assess.readers.logs.formats import Bad
from assess.readers.logs.presets import (
    CANONICAL_FIELDS,
    Preset,
    detect_preset,
    get_preset,
    load_presets,
    parse_map,
)
from assess.readers.logs.sources import expand_inputs
from assess.renderers.output import ProgressCallback

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
    """Return up to ``per_file`` parsed records from the start of every file."""
    sample: list[Any] = []
    for path in reader.files:
        for _, record in islice(reader.records(path), per_file):
            if not isinstance(record, Bad):
                sample.append(record)
    return sample


def open_logs(
    patterns: Sequence[str],
    preset: str = "auto",
    mapping: dict[str, str] | None = None,
    want_text: WantText | None = None,
    progress: ProgressCallback | None = None,
    presets_dir: Path | None = None,
) -> LogReader:
    """Return a reader over the files of ``patterns`` through ``preset`` (an id, a file or auto).

    Raises:
        InputError: for missing files, or when ``auto`` recognises no preset.
        UsageError: for an unknown preset id.
    """
    files = expand_inputs(patterns)
    catalogue = load_presets(presets_dir)
    kwargs: dict[str, Any] = {"want_text": want_text}
    if progress is not None:
        kwargs["progress"] = progress
    if preset != "auto":
        chosen = get_preset(preset, catalogue).with_map(mapping or {})
        return LogReader(files, chosen, **kwargs)
    probe = LogReader(files, catalogue["canonical"])
    sample = sample_records(probe)
    found, scores = detect_preset(sample, catalogue)
    if found is None and mapping and {"timestamp", "model"} <= set(mapping):
        found = catalogue["canonical"]
    if found is None:
        seen = sorted({k for r in sample[:20] if isinstance(r, dict) for k in r})[:15]
        raise InputError(
            f"{files[0]}: --preset auto recognises no known log format "
            f"(fields seen: {', '.join(seen) or 'none'})",
            f"Choose one with --preset ({', '.join(sorted(catalogue))}) or map the fields: "
            "--map timestamp=PATH --map model=PATH --map prompt_tokens=PATH.",
        )
    return LogReader(files, found.with_map(mapping or {}), **kwargs)
