"""Every line `assess scope --incident ID` prints comes from that advisory's scope data or is
neutral: no GLM-5.3 wording (its models, window, trigger, the placeholder mechanism, "--model
replaces") for another advisory, on the console, in `--json` or in the notification pack.

The advisories are the ones `assess advisories list --json` marks `has_scope`; the log is lines
of the shipped OpenRouter sample (samples/logs/openrouter.jsonl, the format the openrouter preset
cites) with the model, time and prompt counts set from each advisory's own data.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from assess.advisories.catalogue import load_advisories
from tests.conftest import REPO

GLM = "glm-5.3-kv-leak"
#: Text that belongs to the GLM-5.3 advisory alone: its models, window, trigger and mechanism.
GLM_ONLY = (
    "glm",
    "2026-08-27",
    "2026-09-09",
    "681,280",
    "681280",
    "placeholder",
    "over-length",
    "over the trigger",
    "--model replaces",
    "workers-ai",
    "workers ai",
)


def _scoped() -> list[str]:
    return sorted(a.id for a in load_advisories().values() if a.has_scope)


def _log(tmp_path: Path, advisory_id: str) -> Path:
    advisory = load_advisories()[advisory_id]
    assert advisory.models is not None and advisory.window is not None
    template = json.loads(
        (REPO / "samples" / "logs" / "openrouter.jsonl").read_text().splitlines()[0]
    )
    trigger = advisory.trigger.prompt_tokens_gt if advisory.trigger else 0
    middle = advisory.window.start + (advisory.window.end - advisory.window.start) / 2
    rows = []
    for n, tokens in enumerate((trigger + 1_000, max(trigger - 1_000, 1), None)):
        when = (middle + timedelta(minutes=n)).isoformat()
        rows.append(
            {
                **template,
                "id": f"gen-{n}",
                "model": advisory.models.examples[0],
                "created_at": when,
                "provider_name": "Cloudflare",
                "native_tokens_prompt": tokens,
                "tokens_prompt": tokens,
            }
        )
    path = tmp_path / "generations.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _everything(run_cli: Callable[..., Any], tmp_path: Path, advisory_id: str) -> str:
    """The console output, the --json document and every notification-pack file, lower-case."""
    log, pack = _log(tmp_path, advisory_id), tmp_path / "pack"
    result = run_cli(
        *("scope", str(log), "--incident", advisory_id, "--preset", "openrouter"),
        *("--json", str(tmp_path / "scope.json"), "--notification-pack", str(pack)),
    )
    assert result.exit_code == 1, result.output  # the rows are affected: each part is printed
    texts = [result.output, (tmp_path / "scope.json").read_text()]
    texts += [p.read_text() for p in sorted(pack.iterdir())]
    assert len(texts) == 6  # accounts.csv, method.md, pack.json, requests.csv
    return "\n".join(texts).replace(str(tmp_path), "TMP").lower()


def test_the_wording_check_sees_the_glm_advisory(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    """The control: the GLM advisory's own run carries the text the others must not."""
    text = _everything(run_cli, tmp_path, GLM)
    assert {"glm", "2026-08-27", "681,280", "placeholder", "over-length"} <= {
        word for word in GLM_ONLY if word in text
    }


@pytest.mark.parametrize("advisory_id", [a for a in _scoped() if a != GLM])
def test_another_advisory_prints_no_glm_wording(
    run_cli: Callable[..., Any], tmp_path: Path, advisory_id: str
) -> None:
    text = _everything(run_cli, tmp_path, advisory_id)
    assert [word for word in GLM_ONLY if word in text] == []
    assert advisory_id in text


def test_the_router_advisory_says_why_its_platform_is_not_checked(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    router = "openrouter-shared-credentials-2025"
    text = _everything(run_cli, tmp_path, router)
    assert f"platform: not checked: {router} binds no platform" in text
    assert "no prompt-length trigger" in text
    assert "our prompts in other responses**: not checked: no prompt-length trigger" in text
    scope = json.loads((tmp_path / "scope.json").read_text())
    assert scope["own_overlap"] is None and scope["filter"]["models_given"] is False


def test_model_option_still_says_it_dropped_the_platform(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    log = _log(tmp_path, GLM)
    result = run_cli(
        *("scope", str(log), "--incident", GLM, "--preset", "openrouter"),
        *("--model", "z-ai/glm-5.3"),
    )
    assert "platform: not checked: --model replaces the advisory's models" in result.output
