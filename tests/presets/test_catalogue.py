"""Every shipped gateway preset loads, cites its sources, and names paths its sample really has."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assess.scope.logs.paths import MISSING, get_path
from assess.scope.logs.presets import PRESETS_DIR, Preset, detect_preset, load_presets
from tests.presets._samples import REPO, expectations, raw_records

GATEWAYS = sorted(p.stem for p in PRESETS_DIR.glob("*.yaml") if p.stem != "canonical")
DOCS = expectations()
EXPECTED: dict[str, list[dict[str, Any]]] = {}
for _doc in DOCS:
    EXPECTED.setdefault(_doc["preset"], []).append(_doc)


def _records(*docs: dict[str, Any]) -> list[Any]:
    return [r for doc in docs for name in doc["inputs"] for r in raw_records(REPO / name)]


def test_every_gateway_preset_loads_and_has_a_sample() -> None:
    catalogue = load_presets()
    assert set(GATEWAYS) <= set(catalogue)
    assert sorted(EXPECTED) == GATEWAYS  # one hand-counted sample per gateway preset
    for doc in DOCS:
        for name in doc["inputs"]:
            assert (REPO / name).is_file(), name


@pytest.mark.parametrize("preset_id", GATEWAYS)
def test_preset_cites_sources_and_maps_the_core_fields(preset_id: str) -> None:
    preset = Preset.from_path(PRESETS_DIR / f"{preset_id}.yaml")
    assert preset.docs and all(url.startswith("https://") for url in preset.docs)
    fields = dict(preset.fields)
    if preset.join is not None:
        for name, paths in preset.join.fields.items():
            fields.setdefault(name, paths)
    for name in ("timestamp", "model", "prompt_tokens", "request_id", "account_id"):
        assert fields.get(name), f"{preset_id}: no path for {name}"


@pytest.mark.parametrize("preset_id", GATEWAYS)
def test_every_mapped_path_exists_in_the_sample(preset_id: str) -> None:
    """Catches typos: each candidate list finds a value in at least one record of the sample."""
    preset = load_presets()[preset_id]
    records = _records(*EXPECTED[preset_id])
    mappings = [preset.fields]
    if preset.join is not None:
        mappings.append(preset.join.fields)
    for mapping in mappings:
        for name, paths in mapping.items():
            found = any(
                get_path(record, path) not in (MISSING, None, "")
                for record in records
                for path in paths
            )
            assert found, f"{preset_id}: no record has {name} at any of {paths}"


@pytest.mark.parametrize("doc", DOCS, ids=[d["sample"] for d in DOCS])
def test_detect_rule_picks_this_preset_for_its_sample(doc: dict[str, Any]) -> None:
    best, scores = detect_preset(_records(doc), load_presets())
    assert best is not None and best.id == doc["preset"], scores


@pytest.mark.parametrize("doc", DOCS, ids=[d["sample"] for d in DOCS])
def test_non_request_rules_never_hide_a_request_of_the_sample(doc: dict[str, Any]) -> None:
    """Each hand-listed affected request id has a record that the non_request rules keep."""
    preset = load_presets()[doc["preset"]]
    ids = set(doc["affected"]["request_ids"])
    kept = {
        str(get_path(record, path))  # ids are compared as the text the result lists
        for record in _records(doc)
        if preset.non_request_reason(record) is None
        for path in preset.fields["request_id"]
    }
    assert ids <= kept


def test_presets_folder_holds_only_yaml_presets() -> None:
    extra = [p.name for p in Path(PRESETS_DIR).iterdir() if p.suffix != ".yaml"]
    assert extra == []
