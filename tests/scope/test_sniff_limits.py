"""`--preset auto`'s format sniff and `--suggest-preset`'s sample are read within the run's own
limits, ``--max-line-bytes`` and ``--max-inflate-ratio`` (CLOSING 36 left, the shape of acc36b
m6): a line the run skips is no evidence of the format, and a ratio the user raised (or lowered)
holds for the sample too.

The mixed log is lines of the shipped samples (samples/logs/litellm.ndjson and openrouter.jsonl,
whose formats their presets cite), the OpenRouter ones padded past 1 KiB.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import zstandard

from assess.scope.logs.compression import RATIO_FROM
from tests.conftest import REPO

SAMPLES = REPO / "samples" / "logs"
LONG = 80  # OpenRouter lines over the limit, first: most of the 100-record sniff


def _records(name: str) -> list[dict[str, Any]]:
    out = []
    for line in (SAMPLES / name).read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:  # the samples' own malformed lines
            continue
        if isinstance(record, dict) and "model" in record:
            out.append(record)
    return out


def _mixed(tmp_path: Path) -> Path:
    """LONG OpenRouter records of ~1.7 KB, then 760 LiteLLM records under 1 KiB."""
    router = _records("openrouter.jsonl")[0]
    lines = [
        json.dumps({**router, "id": f"gen-long-{i}", "origin": "https://x.example/" + "p" * 1200})
        for i in range(LONG)
    ]
    short = [r for r in _records("litellm.ndjson") if len(json.dumps(r)) < 1024]
    lines += [json.dumps({**r, "id": f"{r['id']}-{i}"}) for i in range(40) for r in short]
    assert all(len(line) > 1024 for line in lines[:LONG])
    assert all(len(line) < 1024 for line in lines[LONG:])
    path = tmp_path / "mixed.ndjson"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_auto_chooses_from_the_lines_the_run_reads(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    """Before, the sniff parsed the 80 long lines the run then skipped, chose openrouter, and
    no LiteLLM record fitted it ("fits 0 of 760 records examined")."""
    log = _mixed(tmp_path)
    result = run_cli("scope", str(log), "--max-line-bytes", "1024", "--json", "-")
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    assert doc["preset"] == "litellm"
    assert doc["counts"]["records_skipped"] == LONG
    assert doc["counts"]["model_matched"] > 0
    # the control: under the default limit the long lines are read, and lead the sniff
    whole = json.loads(run_cli("scope", str(log), "--json", "-").stdout)
    assert whole["preset"] == "openrouter"


def test_suggest_preset_samples_only_the_lines_the_run_reads(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    records = [
        {"ts": 1788256800 + i, "llm": {"model_name": "glm-5.3", "input_tokens": 700_000 + i}}
        for i in range(12)
    ]
    padded = [{**r, "note": "x" * 2000} for r in records[:4]]
    log = tmp_path / "export.ndjson"
    log.write_text("".join(json.dumps(r) + "\n" for r in [*padded, *records]))
    out = tmp_path / "suggested.yaml"
    result = run_cli("scope", str(log), "--suggest-preset", str(out), "--max-line-bytes", "1024")
    assert result.exit_code == 0, result.output
    assert "a preset inferred from 12 records" in result.output
    whole = run_cli("scope", str(log), "--suggest-preset", str(out))
    assert "a preset inferred from 16 records" in whole.output  # the control


def test_suggest_preset_samples_within_max_inflate_ratio(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    """One record repeated past 32 MiB as one zstd frame (about 10,000 times smaller): before,
    the sample was read with the fixed bound whatever --max-inflate-ratio said."""
    line = (
        b'{"timestamp": "2026-09-01T10:00:00Z", "model": "glm-5.3", "prompt_tokens": 900000, '
        b'"request_id": "req-1"}\n'
    )
    log = tmp_path / "rep.ndjson.zst"
    body = line * (RATIO_FROM // len(line) + 1)
    log.write_bytes(zstandard.ZstdCompressor(level=3).compress(body))
    suggest = ["scope", str(log), "--suggest-preset", str(tmp_path / "suggested.yaml")]
    raised = run_cli(*suggest, "--max-inflate-ratio", "1000000")
    assert raised.exit_code == 0, raised.output
    assert "a preset inferred from 100 records" in raised.output
    lowered = run_cli(*suggest, "--max-inflate-ratio", "5")
    assert lowered.exit_code == 2
    assert "(now 5)" in " ".join(lowered.output.split())
