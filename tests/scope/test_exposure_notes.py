"""What `assess scope` says about the exposure it could not compute or check (issue 42
acceptance, defects 4-7, 9 and 8's method statement): a mean without N is a usage error, a
missing bound names the option that gives it, an export with no provider field or a router's
name says so, `--model` says the platform is not checked, the pack carries logged output tokens,
the superseded point figure is marked and never printed, and the method statement reads as
sentences."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assess.scope.exposure import (
    REASON_NO_FIELD,
    REASON_PLATFORM,
    REASON_ROUTER,
)

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "logs"
CF = str(SAMPLES / "cloudflare-ai-gateway.ndjson")
LANGFUSE = str(SAMPLES / "langfuse.json")
Run = Callable[..., Any]


def _json(run_cli: Run, *args: str) -> tuple[Any, dict[str, Any]]:
    result = run_cli("scope", *args, "--json", "-")
    return result, json.loads(result.stdout)


def test_a_mean_without_n_is_a_usage_error(run_cli: Run) -> None:
    result = run_cli("scope", CF, "--platform-mean-tokens", "3000")
    assert result.exit_code == 2, result.output
    assert "--platform-mean-tokens 3,000 needs --platform-requests" in result.output
    assert "verdict" not in result.output


def test_a_missing_bound_names_the_option_that_gives_it(run_cli: Run) -> None:
    result = run_cli("scope", CF, "--platform-tokens", "6000000000")
    assert result.exit_code == 1, result.output
    assert "lower: give --platform-requests for N; upper = min(1," in result.output
    assert "assumes lower:" not in result.output  # no lower bound, so none of its assumptions
    assert "assumes upper:" in result.output
    _, doc = _json(run_cli, CF, "--platform-tokens", "6000000000")
    assert doc["disclosed"]["estimate"]["formula"].startswith("lower: give --platform-requests")


def test_no_platform_figure_says_which_options_give_the_range(run_cli: Run) -> None:
    result = run_cli("scope", CF)
    assert (
        "exposure range not computed: lower: give --platform-requests for N; upper: give "
        "--platform-tokens or --platform-mean-tokens for V"
    ) in result.output


@pytest.mark.parametrize("name", ["langfuse.json", "new-api.csv", "apisix-ai-proxy.ndjson"])
def test_an_export_with_no_provider_field_says_so_and_suggests_served_by(
    run_cli: Run, name: str
) -> None:
    result, doc = _json(run_cli, str(SAMPLES / name))
    reasons = doc["possibly_affected"]["by_reason"]
    assert reasons.get(REASON_NO_FIELD, 0) > 0 and REASON_PLATFORM not in reasons
    shown = run_cli("scope", str(SAMPLES / name)).output
    assert "export records no serving provider or endpoint" in shown
    assert "--served-by PLATFORM (e.g. --served-by workers-ai)" in shown
    stated = run_cli("scope", str(SAMPLES / name), "--served-by", "workers-ai").output
    assert "records no serving provider" not in stated


def test_a_router_as_provider_has_its_own_reason(run_cli: Run) -> None:
    """Helicone's sample names OPENROUTER: a provider, a router's; not 'no provider'."""
    _, doc = _json(run_cli, str(SAMPLES / "helicone.jsonl"))
    reasons = doc["possibly_affected"]["by_reason"]
    assert reasons.get(REASON_ROUTER, 0) > 0
    assert REASON_PLATFORM not in reasons and REASON_NO_FIELD not in reasons
    assert (
        "no provider, endpoint or prefix"
        not in run_cli("scope", str(SAMPLES / "helicone.jsonl")).output
    )


def test_model_says_the_platform_is_not_checked(run_cli: Run) -> None:
    openrouter = str(SAMPLES / "openrouter.jsonl")
    result = run_cli("scope", openrouter, "--model", "glm-5.3")
    assert "platform: not checked: --model replaces" in result.output
    assert "platform: not checked" not in run_cli("scope", openrouter).output


def test_the_pack_carries_logged_output_tokens_for_every_role(run_cli: Run, tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    run_cli("scope", CF, "--notification-pack", str(pack))
    rows = list(csv.DictReader(io.StringIO((pack / "requests.csv").read_text())))
    by = {(r["request_id"], r["role"]): r["output_tokens"] for r in rows}
    assert by[("01K3CF0001R01", "affected")] == "512"  # tokens_out in the log
    assert by[("01K3CF0016R16", "possibly_affected")] == "512"
    assert by[("01K3CF0016R16", "disclosed")] == "512"


def test_the_point_figure_is_marked_superseded_and_never_printed(run_cli: Run) -> None:
    args = (CF, "--platform-requests", "2000000", "--platform-mean-tokens", "3000")
    _, doc = _json(run_cli, *args)
    share = doc["disclosed"]["platform_share"]
    assert share["superseded_by"] == "estimate" and "estimate" in doc["disclosed"]
    assert share["probability_at_least_one"] > 0  # kept, unrounded, for comparison
    shown = run_cli("scope", *args).output
    assert "P(at least one)" not in shown and "exposure range (chance" in shown


@pytest.mark.parametrize(
    "args",
    [
        (),
        ("--platform-requests", "2000000", "--platform-mean-tokens", "3000"),
        ("--model", "glm-5.3"),
    ],
)
def test_the_method_statement_reads_as_sentences(
    run_cli: Run, tmp_path: Path, args: tuple[str, ...]
) -> None:
    pack = tmp_path / "pack"
    run_cli("scope", CF, *args, "--notification-pack", str(pack))
    text = (pack / "method.md").read_text()
    for raw in ("None", "True", "False", "null", "advisorys", "{", "[", "_N:", "_gt"):
        assert raw not in text, (raw, text)
    assert "- **Trigger**: prompt tokens strictly over 681,280" in text
    method = json.loads((pack / "pack.json").read_text())["method"]
    assert "filter_is_the_advisorys" in method and "platform_requests_N" in method  # contract
    if not args:
        assert "- **Platform requests N**: not given (pass --platform-requests)" in text
        assert "- **Filter**: the advisory's own models, window and trigger" in text
    elif args[0] == "--model":
        assert "- **Platform**: not checked" in text
        assert "- **Filter**: not the advisory's" in text
    else:
        assert "- **Platform requests N**: 2,000,000 (given with --platform-requests)" in text
        assert "- **Platform tokens V**: 6,000,000,000 (from N x --platform-mean-tokens)" in text
