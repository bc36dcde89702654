"""`assess deploy-check` end to end: exit codes, JSON contract, stdin, --node, bad input."""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.conftest import DEPLOY_ASSETS, sample

PRE = str(sample("sglang-prefill.log"))
DEC = str(sample("sglang-decode.log"))


def json_of(run_cli: Any, *args: str, input: str | None = None) -> tuple[int, dict[str, Any]]:
    result = run_cli("deploy-check", *args, "--json", "-", input=input)
    return result.exit_code, json.loads(result.stdout)


def test_incident_pair_fails_with_the_35_percent(run_cli: Any) -> None:
    result = run_cli("deploy-check", PRE, DEC, "--advertised-context", "1048576")
    assert result.exit_code == 1
    assert "CRITICAL sglang-prefill: KV pool (681,280 tokens) is smaller" in result.stdout
    assert "35.0% of the context window" in result.stdout
    assert "verdict: flag" in result.stdout


@pytest.mark.parametrize(
    ("name", "code"),
    [("sglang-aggregated.log", 0), ("sglang-prefill-fixed.log", 0), ("vllm-pass.log", 0),
     ("vllm-fail.log", 1), ("sglang-prefill.log", 1), ("sglang-decode.log", 1)],
)  # fmt: skip
def test_sample_exit_codes(run_cli: Any, name: str, code: int) -> None:
    assert run_cli("deploy-check", str(sample(name))).exit_code == code


def test_json_contract_keys(run_cli: Any) -> None:
    code, doc = json_of(run_cli, PRE, DEC)
    assert code == 1
    assert doc["schema_version"] == 1 and doc["kind"] == "assess.deploy-check"
    assert {"nodes", "findings", "verdict", "inputs"} <= set(doc)
    assert doc["verdict"] == "flag" and doc["fail_on"] == "high"
    keys = {"name", "source", "engine", "version", "role", "pool_tokens", "context_tokens",
            "verdict", "settings"}  # fmt: skip
    for n in doc["nodes"]:
        assert keys <= set(n)
    prefill = doc["nodes"][0]
    assert (prefill["name"], prefill["role"], prefill["pool_tokens"], prefill["verdict"]) == (
        "sglang-prefill", "prefill", 681280, "flag",
    )  # fmt: skip
    finding_keys = {"id", "severity", "title", "detail", "remediation", "rests_on",
                    "evidence_level", "source", "node"}  # fmt: skip
    assert all(finding_keys <= set(f) for f in doc["findings"])
    assert doc["findings"][0]["severity"] == "critical"
    digest = hashlib.sha256(Path(PRE).read_bytes()).hexdigest()
    assert doc["inputs"][0] == {"path": PRE, "bytes": Path(PRE).stat().st_size, "sha256": digest}


def test_json_file_and_table_together(run_cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "deploy.json"
    result = run_cli("deploy-check", str(sample("vllm-pass.log")), "--json", str(out))
    assert result.exit_code == 0 and "Nodes" in result.stdout
    assert json.loads(out.read_text())["nodes"][0]["pool_tokens"] == 1239808


def test_stdin(run_cli: Any) -> None:
    code, doc = json_of(run_cli, "-", input=sample("vllm-fail.log").read_text())
    assert code == 1
    assert doc["nodes"][0]["name"] == "stdin" and doc["nodes"][0]["source"] == "<stdin>"
    assert doc["nodes"][0]["settings"]["refused_to_start"] is True
    assert doc["inputs"][0]["path"] == "-"


def test_gzip_on_stdin_in_a_subprocess() -> None:
    data = gzip.compress(sample("sglang-prefill-fixed.log").read_bytes())
    proc = subprocess.run(
        [sys.executable, "-m", "assess", "deploy-check", "-", "--json", "-"],
        input=data, capture_output=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["nodes"][0]["pool_tokens"] == 2040064


def test_node_option_overrides_the_role(run_cli: Any) -> None:
    code, doc = json_of(run_cli, str(sample("vllm-pass.log")), "--node",
                        f"decode={sample('vllm-pass.log')}")  # fmt: skip
    (n,) = doc["nodes"]
    assert (n["role"], n["role_from"]) == ("decode", "--node")


def test_node_option_alone_adds_the_log(run_cli: Any) -> None:
    code, doc = json_of(run_cli, "--node", f"prefill={sample('sglang-aggregated.log')}")
    assert [n["role"] for n in doc["nodes"]] == ["prefill"]


@pytest.mark.parametrize("asset", ["empty.log", "junk.bin", "sglang-truncated.log",
                                   "not-a-server-log.log"])  # fmt: skip
def test_inconclusive_logs_exit_1_and_say_why(run_cli: Any, asset: str) -> None:
    result = run_cli("deploy-check", str(DEPLOY_ASSETS / asset))
    assert result.exit_code == 1
    assert "inconclusive" in result.stdout and "Traceback" not in result.stdout


def test_truncated_log_names_the_missing_line(run_cli: Any) -> None:
    code, doc = json_of(run_cli, str(DEPLOY_ASSETS / "sglang-truncated.log"))
    (n,) = doc["nodes"]
    assert n["verdict"] == "inconclusive" and n["missing"] == ["pool_tokens"]
    assert "max_total_num_tokens=N" in n["reason"]
    # the head of the log still names SGLang 0.5.21 in disaggregated mode: a definite finding
    assert {"log-inconclusive", "engine-version-affected"} <= {f["id"] for f in doc["findings"]}
    assert doc["verdict"] == "flag"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no-such.log"], "no-such.log: no such file"),
        ([str(DEPLOY_ASSETS)], "is a folder"),
        ([str(DEPLOY_ASSETS / "corrupt.gz")], "corrupt gzip file"),
        ([PRE, "--node", "prefill"], "expected ROLE=LOG"),
        ([PRE, "--node", "boss=x.log"], "'boss' is not a role"),
        ([PRE, "--node", "=x.log"], "expected ROLE=LOG"),
        ([PRE, "--fail-on", "severe"], "is not a severity"),
        (["-", "-"], "standard input"),
        ([], "no log given"),
    ],
)
def test_bad_input_is_exit_2(run_cli: Any, args: list[str], message: str) -> None:
    result = run_cli("deploy-check", *args, input="")
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_fail_on_threshold(run_cli: Any) -> None:
    vllm_fail = str(sample("vllm-fail.log"))
    assert run_cli("deploy-check", vllm_fail, "--fail-on", "critical").exit_code == 0
    assert run_cli("deploy-check", DEC, "--fail-on", "critical").exit_code == 0
    assert run_cli("deploy-check", DEC, "--fail-on", "medium").exit_code == 1


def test_help_has_an_example(run_cli: Any) -> None:
    result = run_cli("deploy-check", "--help")
    assert result.exit_code == 0 and "Example: assess deploy-check" in result.stdout


# the finding ids that rest on advisories (docs/deploy-check.md "Findings")
ADVISORY_FINDINGS = {"engine-version-affected", "engine-version-unknown",
                     "advisory-settings-expose", "advisory-settings-not-shown"}  # fmt: skip


def test_each_finding_names_the_advisories_it_rests_on(run_cli: Any) -> None:
    """As score's findings do (acc41 m5): `advisories` on every finding, [] when none."""
    code, doc = json_of(run_cli, PRE, DEC)
    assert code == 1
    named: dict[str, set[str]] = {}
    for f in doc["findings"]:
        assert isinstance(f["advisories"], list)
        if f["id"] in ADVISORY_FINDINGS:
            assert f["advisories"] and set(f["advisories"]) <= set(f["rests_on"])
        else:
            assert f["advisories"] == []
        named.setdefault(f["id"], set()).update(f["advisories"])
    assert named["engine-version-affected"] == {"glm-5.3-kv-leak"}
    assert named["advisory-settings-expose"] == {"sglang-pd-kv-transfer-race"}
    assert named["pool-smaller-than-context"] == set()
