"""A JSON-array log is read to its end, or backs no all-clear (issue 36, acceptance review B3).

Measured before the fix (acc36b, in/deepfa2.json): a JSON array of 5 small glm-5.3 records, one
element ``[[[...]]]`` 1,000 deep, then 30 affected requests at 900k tokens gave "JSON array
element nested too deep; the rest of the file is not read", records_read 6, **not affected,
exit 0** (also with ``--preset litellm``, ``--jobs 2``, and with the depth inside one field of an
intact record). NDJSON and the ``{"data": [...]}`` wrapper already read past such an element.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assess.scope.logs.formats import NOT_READ_ON, element_end
from tests.scope.helpers import conserved, scope


def _litellm(i: int, tokens: int) -> dict[str, Any]:
    """A LiteLLM spend record as the reviewer's generator wrote it (acc36b's gen.py ``rec``)."""
    return {
        "id": f"req-{i}",
        "call_type": "acompletion",
        "status": "success",
        "startTime": 1788256860.0,
        "endTime": 1788256865.0,
        "model": "@cf/zai-org/glm-5.3",
        "custom_llm_provider": "cloudflare",
        "metadata": {"user_api_key_hash": f"hash-{i % 3}"},
        "messages": [{"role": "user", "content": 'hello [{ "quoted" }]'}],
        "prompt_tokens": tokens,
        "completion_tokens": 10,
    }


def _array(deep_in_field: bool) -> str:
    small = [json.dumps(_litellm(i, 1_000)) for i in range(5)]
    big = [json.dumps(_litellm(100 + i, 900_000)) for i in range(30)]
    nest = "[" * 1000 + "]" * 1000
    if deep_in_field:
        deep = json.dumps(_litellm(99, 1_000))[:-1] + ', "extra": ' + '{"a":' * 1000 + "1"
        deep += "}" * 1001
    else:
        deep = nest
    return "[\n" + ",\n".join([*small, deep, *big]) + "\n]\n"


@pytest.mark.parametrize("deep_in_field", [False, True])
@pytest.mark.parametrize("preset", ["auto", "litellm"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_element_nested_too_deep_is_one_skipped_record_and_reading_goes_on(
    tmp_path: Path, run_cli: Callable[..., Any], deep_in_field: bool, preset: str, jobs: str
) -> None:
    path = tmp_path / "deep.json"
    path.write_text(_array(deep_in_field))
    result = run_cli("scope", str(path), "--preset", preset, "--jobs", jobs, "--json", "-")
    assert "Traceback" not in result.stdout + result.stderr
    doc = json.loads(result.stdout)
    assert (result.exit_code, doc["verdict"]) == (1, "affected")
    assert doc["counts"]["records_read"] == 36
    assert doc["counts"]["records_skipped"] == 1
    assert doc["counts"]["over_threshold"] == 30
    [skipped] = doc["skipped"]
    assert skipped["line"] == 7 and "nested too deep" in skipped["reason"]
    assert NOT_READ_ON not in skipped["reason"]


def test_conservation_after_a_deep_element(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(_array(deep_in_field=False))
    result = scope([path], preset="litellm", fast=False)
    conserved(result)
    assert result.counts.records_read == 36 and result.affected.requests == 30


def test_a_file_not_read_to_its_end_backs_no_all_clear(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    """The backstop: a JSON array that cannot be read on after an invalid element gives
    "not assessable" (exit 2), never "not affected", although few of its records are skipped."""
    small = [json.dumps(_litellm(i, 1_000)) for i in range(20)]
    big = [json.dumps(_litellm(100 + i, 900_000)) for i in range(30)]
    path = tmp_path / "cut.json"
    path.write_text("[" + ",".join([*small, '{"model": nope}', *big]) + "]")
    result = run_cli("scope", str(path), "--json", "-")
    doc = json.loads(result.stdout)
    assert doc["counts"]["records_read"] == 21 and doc["counts"]["records_skipped"] == 1
    assert (result.exit_code, doc["verdict"]) == (2, "not_assessable")
    assert any("not read to the end" in r and "cut.json" in r for r in doc["assessment"]["reasons"])


def test_a_missing_closing_bracket_alone_is_no_cut(tmp_path: Path) -> None:
    """Every element read, only the final ']' missing: the records were all read, the verdict
    stands on them (unlike a compressed stream cut short, whose rest is never read)."""
    small = [json.dumps(_litellm(i, 1_000)) for i in range(20)]
    path = tmp_path / "open.json"
    path.write_text("[" + ",".join(small))
    result = scope([path], preset="litellm")
    assert result.verdict == "not_affected" and result.counts.records_read == 21


@pytest.mark.parametrize(
    ("text", "end"),
    [
        ('[1, "]", [2]] tail', 13),
        ('{"a": "\\"}", "b": {}}, 1', 21),
        ("[" * 5 + "]" * 5 + ",", 10),
        ('[1, "unclosed', None),
        ("[[]", None),
    ],
)
def test_element_end_counts_brackets_outside_strings(text: str, end: int | None) -> None:
    assert element_end(text, 0) == end


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("page.json", b'{\n  "result": [\n    {"timestamp": "2026-09-01T10:00:00Z",\n'),
        ("broken.parquet", b"PAR1" + b"\x00" * 64),
    ],
)
@pytest.mark.parametrize("fast", [True, False])
def test_a_file_not_read_at_all_beside_good_ones_backs_no_all_clear(
    tmp_path: Path, name: str, body: bytes, fast: bool
) -> None:
    """A broken JSON document or Parquet file beside a good log was 1 skipped record of 21
    (under the 50% bar): "not affected", its requests never read."""
    good = tmp_path / "good.ndjson"
    good.write_text("".join(json.dumps(_litellm(i, 1_000)) + "\n" for i in range(20)))
    broken = tmp_path / name
    broken.write_bytes(body)
    result = scope([good, broken], preset="litellm", fast=fast)
    conserved(result)
    assert result.counts.records_skipped == 1 and result.skipped[0].file == str(broken)
    assert result.verdict == "not_assessable"
    assert any("not read to the end" in r for r in result.assessment.reasons)
