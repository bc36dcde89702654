"""`--served-by` is checked against the platforms the tool knows (issue 42 acceptance, defect 1):
a typo must never turn an affected log into "served elsewhere" with exit 0; and
`--notification-pack` pointed at a file is a one-line usage error (defect 3)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "logs"
LANGFUSE = str(SAMPLES / "langfuse.json")  # no provider field: --served-by binds every row


@pytest.mark.parametrize("spelling", ["workers-ai", "workers_ai", "Workers AI", " WORKERS-AI "])
def test_spellings_of_workers_ai_are_normalised_and_affected(
    run_cli: Callable[..., Any], spelling: str
) -> None:
    result = run_cli("scope", LANGFUSE, "--served-by", spelling)
    assert result.exit_code == 1, result.output
    assert "served by workers-ai" in result.output
    assert "verdict: affected" in result.output
    assert "served by another platform" not in result.output


@pytest.mark.parametrize("typo", ["cloudflare-workers", "@cf", "workers ai x", "acme-cloud"])
def test_a_value_naming_no_known_platform_is_refused(
    run_cli: Callable[..., Any], typo: str
) -> None:
    result = run_cli("scope", LANGFUSE, "--served-by", typo)
    assert result.exit_code == 2, result.output
    assert "names no platform this tool knows" in result.output
    assert "workers-ai" in result.output and "aws-bedrock" in result.output
    assert "verdict" not in result.output


@pytest.mark.parametrize("other", ["bedrock", "Azure", "anthropic"])
def test_a_genuine_other_platform_is_served_elsewhere(
    run_cli: Callable[..., Any], other: str
) -> None:
    result = run_cli("scope", LANGFUSE, "--served-by", other)
    assert result.exit_code == 0, result.output
    assert "not a source, served by another platform: 12" in result.output
    assert "verdict: not affected" in result.output


def test_notification_pack_on_an_existing_file_is_a_usage_error(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    afile = tmp_path / "afile"
    afile.write_text("")
    result = run_cli("scope", str(SAMPLES / "openrouter.jsonl"), "--notification-pack", str(afile))
    assert result.exit_code == 2, result.output
    assert "write failed" in result.output and "Traceback" not in result.output
