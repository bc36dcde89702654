"""A request log whose accounts come from a side table says so when that table is missing: the
Azure APIM LLM log without its ApiManagementGatewayLogs export would show every request with no
account. The run's accounts are then ``not_assessable`` (stderr and --json), never 0 accounts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from assess.scope.api import scope_run
from tests.conftest import REPO

LOGS = REPO / "samples" / "logs"
LLM_LOG = LOGS / "azure-apim.csv"
GATEWAY = LOGS / "azure-apim-gateway.csv"


def test_the_llm_log_alone_cannot_tell_accounts() -> None:
    accounts = scope_run([LLM_LOG]).result.accounts_assessment
    assert accounts.verdict == "not_assessable"
    assert accounts.reason is not None
    assert "ApiManagementGatewayLogs" in accounts.reason and "CorrelationId" in accounts.reason


def test_with_its_gateway_table_accounts_are_assessable() -> None:
    """Positive control: the same log with the side table (in either order) tells accounts."""
    for order in ([LLM_LOG, GATEWAY], [GATEWAY, LLM_LOG]):
        run = scope_run(order)
        assert run.result.accounts_assessment.verdict == "assessable"
        assert run.result.accounts_assessment.reason is None


def test_a_preset_with_accounts_in_its_own_records_is_unaffected() -> None:
    """A preset with no side table is not touched (langfuse joins one but its observations
    carry userId themselves)."""
    result = scope_run([LOGS / "litellm.ndjson"]).result
    assert result.accounts_assessment.verdict == "assessable"


def test_the_cli_says_so_on_stderr_and_in_json(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "assess", "scope", str(LLM_LOG), "--json", "-"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )
    assert "accounts: NOT ASSESSABLE: preset azure-apim" in " ".join(done.stderr.split())
    document = json.loads(done.stdout)
    assert document["accounts_assessment"]["verdict"] == "not_assessable"
    both = subprocess.run(
        [sys.executable, "-m", "assess", "scope", str(LLM_LOG), str(GATEWAY)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )
    assert "NOT ASSESSABLE" not in both.stdout + both.stderr
