"""A preset given as a YAML file is validated like the shipped ones; errors name file and field."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import ASSETS
from tests.presets._samples import REPO

SAMPLE = str(REPO / "samples/logs/cloudflare-ai-gateway.ndjson")


@pytest.mark.parametrize(
    ("asset", "message"),
    [
        ("unknown-field.yaml", "prompt_token"),
        ("two-tests.yaml", "exactly one of in, not_in, equals, missing"),
        ("no-model.yaml", "'model' needs at least one path"),
    ],
)
def test_bad_user_preset_is_a_usage_error(
    run_cli: Callable[..., Any], asset: str, message: str
) -> None:
    path = ASSETS / "presets" / asset
    result = run_cli("scope", SAMPLE, "--preset", str(path), "--json", "-")
    assert result.exit_code == 2
    assert asset in result.output and message in result.output
    assert "Traceback" not in result.output


def test_shipped_preset_copied_to_a_file_gives_the_same_counts(
    run_cli: Callable[..., Any], tmp_path: Any
) -> None:
    """A preset is plain data: a copy of the shipped file works as --preset PATH."""
    import json

    source = REPO / "assess/scope/logs/presets/cloudflare-ai-gateway.yaml"
    copy = tmp_path / "cloudflare-ai-gateway.yaml"
    copy.write_text(source.read_text())
    by_id = run_cli("scope", SAMPLE, "--preset", "cloudflare-ai-gateway", "--json", "-")
    by_file = run_cli("scope", SAMPLE, "--preset", str(copy), "--json", "-")
    assert json.loads(by_id.stdout)["counts"] == json.loads(by_file.stdout)["counts"]
