"""The cheaper ways the scope run reads: same answers as the plain ways they replace.

- the reading report matches a detect rule once per record shape (top-level keys) when the rule
  names only plain keys, and reads each field's paths column by column: both checked against the
  plain record-by-record way, on random records of mixed shapes, dotted paths, twins, JSON strings
  and non-objects;
- the input file is hashed and counted when the decompressors read it in pieces (no bytearray
  copy in between);
- the shipped preset catalogue is parsed once per run, and again when a file changes;
- the reading report is made in a thread while the logs are read: the same report, its errors
  raised, no thread left behind.
"""

from __future__ import annotations

import gzip
import hashlib
import shutil
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assess.scope.logs import presets as presets_module
from assess.scope.logs.candidates import alternatives
from assess.scope.logs.compression import GzipMembers
from assess.scope.logs.explain import field_readings, redact, rule_match
from assess.scope.logs.paths import MISSING, get_path
from assess.scope.logs.presets import CANONICAL_FIELDS, Detect, Preset, load_presets
from assess.scope.logs.sources import HashingReader

KEYS = ["timestamp", "model", "prompt_tokens", "promptTokens", "request_id", "usage", "extra"]


def _plain_match(preset: Preset, records: Sequence[Any]) -> dict[str, Any]:
    """The reading report's rule match as it was written first: every rule on every record."""

    def present(rule: Detect, record: Any) -> list[str]:
        return [
            s
            for path in (*rule.all_of, *rule.any_of)
            for s in alternatives(path)
            if get_path(record, s) is not MISSING
        ]

    best: dict[str, Any] | None = None
    for rule in [*preset.detect, *([preset.join.detect] if preset.join else [])]:
        fits = [rule.matches(r) for r in records]
        hits = [r for r, fit in zip(records, fits, strict=True) if fit]
        seen: set[str] = set()
        for record in hits or records[:1]:
            seen.update(present(rule, record))
        misfit = next((r for r, fit in zip(records, fits, strict=True) if not fit), None)
        match = {
            "records_matched": len(hits),
            "fields_matched": sorted(seen),
            "missing": rule.missing(misfit) if misfit is not None else [],
            "form": rule.name or "records",
        }
        rank = (match["records_matched"], len(match["fields_matched"]))
        if best is None or rank > (best["records_matched"], len(best["fields_matched"])):
            best = match
    assert best is not None
    return best


_values = st.one_of(st.none(), st.integers(0, 9), st.sampled_from(["", "x", "glm-5.3"]))
_objects = st.dictionaries(st.sampled_from(KEYS), _values, max_size=6)
_records = st.one_of(
    _objects,
    _objects.map(lambda d: {**d, "usage": {"input_tokens": 3}}),
    _objects.map(lambda d: {**d, "usage": orjson.dumps({"input_tokens": 3}).decode()}),
    st.lists(st.integers(), max_size=2),
    st.sampled_from(["text", '{"timestamp": 1, "model": "m"}', 7, None]),
)


@given(st.lists(_records, max_size=25))
def test_rule_match_per_shape_equals_every_record(records: list[Any]) -> None:
    catalogue = load_presets()
    dotted = Preset.model_validate(
        {
            "id": "dotted",
            "title": "a rule with a nested path",
            "detect": {"all_of": ["timestamp", "usage.input_tokens"], "any_of": ["model"]},
            "fields": {"timestamp": ["timestamp"], "model": ["model"]},
        }
    )
    for preset in [*catalogue.values(), dotted]:
        if not records:
            continue
        got = rule_match(preset, records).model_dump(exclude={"preset"})
        assert got == _plain_match(preset, records), preset.id


def _plain_fields(preset: Preset, records: list[Any]) -> list[dict[str, Any]]:
    """The field readings as first written: every path of every record, one at a time."""
    out = []
    for name in CANONICAL_FIELDS:
        paths = preset.fields.get(name)
        if not paths:
            continue
        used: Counter[str] = Counter()
        present: set[str] = set()
        example = None
        for record in records:
            giver = None
            for path in paths:
                value = get_path(record, path)
                if value is MISSING:
                    continue
                present.add(path)
                if giver is None and value is not None and value != "":
                    giver = path
                    if example is None:
                        example = redact(name, value)
            if giver is not None:
                used[giver] += 1
        source = used.most_common(1)[0][0] if used else None
        out.append(
            {
                "field": name,
                "source": source,
                "records_with_value": sum(used.values()),
                "by_path": dict(used.most_common()),
                "other_paths_seen": sorted(present - {source} if source else present),
                "example": example,
            }
        )
    return out


@given(st.lists(_records, max_size=25))
def test_field_readings_by_column_equal_record_by_record(records: list[Any]) -> None:
    nested = Preset.model_validate(
        {
            "id": "nested",
            "title": "fields with nested and twin paths",
            "detect": {"all_of": ["timestamp"]},
            "fields": {
                "timestamp": ["timestamp"],
                "model": ["model", "extra"],
                "prompt_tokens": ["usage.input_tokens", "prompt_tokens"],
                "request_id": ["request_id", "usage.request_id", "extra"],
            },
        }
    )
    for preset in [load_presets()["canonical"], nested]:
        got = [f.model_dump() for f in field_readings(preset, records)]
        assert got == _plain_fields(preset, records), preset.id


def test_hashing_reader_hashes_what_the_decompressor_reads(tmp_path: Path) -> None:
    text = b"".join(b'{"n": %d, "pad": "%s"}\n' % (i, b"x" * (i % 300)) for i in range(20_000))
    path = tmp_path / "log.ndjson.gz"
    path.write_bytes(gzip.compress(text, compresslevel=1) + b"trailing junk")
    raw = HashingReader(path)
    members = GzipMembers(raw)  # type: ignore[arg-type]
    parts = []
    with pytest.raises(ValueError, match="junk after the end of a gzip member"):
        while part := members.read1():
            parts.append(part)
    assert b"".join(parts) == text
    evidence = raw.finish()  # the rest of the file is hashed too
    assert evidence.bytes == path.stat().st_size
    assert evidence.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_hashing_reader_read_all_and_in_pieces(tmp_path: Path) -> None:
    path = tmp_path / "f.bin"
    path.write_bytes(bytes(range(256)) * 1000)
    whole = HashingReader(path)
    assert whole.read() == path.read_bytes() and whole.read(10) == b""
    pieces = HashingReader(path)
    assert b"".join(iter(lambda: pieces.read(4097), b"")) == path.read_bytes()
    assert whole.finish() == pieces.finish()


def test_shipped_presets_are_parsed_once_and_again_when_a_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "presets"
    shutil.copytree(presets_module.PRESETS_DIR, folder)
    monkeypatch.setattr(presets_module, "PRESETS_DIR", folder.resolve())
    calls: list[str] = []
    parse = Preset.from_path.__func__  # type: ignore[attr-defined]

    def counting(cls: type[Preset], path: Path | str, advice: str = "") -> Preset:
        calls.append(Path(path).name)
        return parse(cls, path, advice)  # type: ignore[no-any-return]

    monkeypatch.setattr(Preset, "from_path", classmethod(counting))
    first = load_presets()
    assert len(calls) == len(first)
    again = load_presets()
    assert again == first and again is not first and len(calls) == len(first)
    again.pop("canonical")  # the caller's dict is its own
    assert "canonical" in load_presets()
    canonical = folder / "canonical.yaml"
    canonical.write_text(canonical.read_text().replace("(one record per request)", "(changed)"))
    assert load_presets()["canonical"].title.endswith("(changed)")
    other = tmp_path / "other"
    shutil.copytree(folder, other)
    calls.clear()
    load_presets(other)
    load_presets(other)  # a folder of the user's own is read each time
    assert len(calls) == 2 * len(first)


def test_the_reading_report_made_beside_the_read_is_the_same_and_leaves_no_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    from assess.scope import api
    from tests.presets._samples import REPO

    logs = [str(REPO / "samples/logs/litellm.ndjson")]
    before = threading.active_count()
    beside = api.scope_run(logs).result
    assert threading.active_count() == before
    # never started (no batch came): made at the end, the same
    monkeypatch.setattr(api._Reading, "start", lambda self: None)
    at_end = api.scope_run(logs).result
    assert beside.reading and beside == at_end


def test_an_error_of_the_reading_report_made_beside_the_read_is_raised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from assess.kernel.errors import InputError
    from assess.scope import api
    from tests.presets._samples import REPO

    def broken(*_: Any) -> list[Any]:
        raise InputError("samples/logs/litellm.ndjson: cannot be read again")

    monkeypatch.setattr(api, "_reading", broken)
    with pytest.raises(InputError, match="cannot be read again"):
        api.scope_run([str(REPO / "samples/logs/litellm.ndjson")])


def test_a_run_that_fails_after_the_report_began_leaves_no_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    from assess.kernel.errors import InputError
    from assess.scope import api
    from assess.scope.accumulator import ScopeAccumulator
    from tests.presets._samples import REPO

    def broken(*_: Any, **__: Any) -> Any:
        raise InputError("the result cannot be made")

    monkeypatch.setattr(ScopeAccumulator, "result", broken)
    before = set(threading.enumerate())
    with pytest.raises(InputError, match="cannot be made"):
        api.scope_run([str(REPO / "samples/logs/litellm.ndjson")])
    for thread in set(threading.enumerate()) - before:
        thread.join(timeout=10)  # the report's thread ends once its report is made
        assert not thread.is_alive()
