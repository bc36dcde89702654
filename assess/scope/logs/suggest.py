"""``assess scope --suggest-preset FILE``: the inferred mapping written as a preset to edit.

The YAML is a user preset (docs/scope-formats.md): each field's paths come with the score that
chose them and the runner-up, so the user sees what to check; it loads back through
:func:`~assess.scope.logs.presets.get_preset` (``--preset FILE``) and from a presets folder.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import yaml

from assess.kernel.errors import InputError
from assess.scope.logs.infer import FieldInference, Inference, describe, infer_mapping
from assess.scope.logs.presets import Preset


def preset_id(out: Path) -> str:
    """The preset id for a file named ``out`` (its stem, lower case, other characters ``-``)."""
    stem = re.sub(r"[^a-z0-9_\-]+", "-", out.stem.lower()).strip("-_")
    return stem or "inferred-export"


def _field_lines(one: FieldInference, records: int) -> list[str]:
    best = one.candidates[0]
    paths = one.paths or [best.path]
    lines = [f"  # {describe(best, records)}; runner-up: {describe(one.runner_up, records)}"]
    if one.ambiguous or not one.paths:
        others = ", ".join(c.path for c in one.candidates[1:4]) or "-"
        lines.append(f"  # CHECK THIS ONE: no clear winner; other candidates: {others}")
    lines.append(f"  {one.field}: {json.dumps(paths)}")
    return lines


def preset_yaml(inference: Inference, ident: str, source: str, out_name: str = "") -> str:
    """Return the commented preset YAML of ``inference`` (inferred from ``source``).

    Raises:
        InputError: when no path has the shape of a required field (nothing to suggest).
    """
    absent = [f for f in ("timestamp", "model") if inference.field(f) is None]
    if absent:
        raise InputError(
            f"{source}: no field has the shape of {' or '.join(absent)}: no preset to suggest",
            "Check that the file is a request log; see docs/scope-formats.md for presets.",
        )
    chosen = [inference.field(f) for f in ("timestamp", "model")]
    detect = [(one.paths or [one.candidates[0].path])[0] for one in chosen if one is not None]
    lines = [
        f"# Preset inferred by `assess scope --suggest-preset` from {source}",
        f"# ({inference.records} records sampled). Check every path, edit, then run:",
        f"#   assess scope LOGS --preset {out_name} --explain",
        "# Each field: its score (name 3 synonym, 2 telling word; + share of records holding a",
        "# value) and the runner-up. Format: docs/scope-formats.md.",
        f"id: {ident}",
        f"title: {json.dumps(f'Inferred from {source} (edit me)')}",
        "detect:",
        "  # the paths every record of this export holds",
        f"  all_of: {json.dumps(detect)}",
        "twins: false  # paths are taken as written",
        "fields:",
    ]
    for one in inference.fields:
        lines.extend(_field_lines(one, inference.records))
    return "\n".join(lines) + "\n"


def suggest_preset(records: Sequence[object], source: str, out: Path) -> Inference:
    """Infer the mapping of ``records`` (a sample of ``source``) and write it to ``out`` as a
    preset YAML; return the inference.

    Raises:
        InputError: nothing to suggest (see :func:`preset_yaml`).
    """
    inference = infer_mapping(records)
    text = preset_yaml(inference, preset_id(out), source, out.name)
    Preset.model_validate(yaml.safe_load(text))  # what we write loads back
    out.write_text(text, encoding="utf-8")
    return inference
