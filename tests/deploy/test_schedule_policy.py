"""SGLang's scheduling policy judged against the catalogue: ordering by cached prefix (``lpm``,
``dfs-weight``) over a radix cache shared by a node's tenants leaks their prefixes (PromptPeek, Wu
et al., NDSS 2025), the prefix-cache sharing class of ``prompt-cache-global-sharing-2024``.

The log is SGLang's own whole ``server_args=ServerArgs(...)`` line (the docs-build fixture in
tests/assets/deploy/real/, cited in its README), with ``schedule_policy`` / ``disable_radix_cache``
set as each case says and a ``sglang: X`` line (``python3 -m sglang.check_env``) put first: the
field spellings are SGLang's, the values are the case's.
"""

from __future__ import annotations

import pytest

from assess.advisories.catalogue import load_advisories
from assess.deploy.check import check_deployment
from assess.deploy.models import NodeFinding, NodeLog
from assess.kernel.common import Severity
from tests.deploy.conftest import DEPLOY_ASSETS, parse_text

ADVISORY = "prompt-cache-global-sharing-2024"
SERVER_ARGS = next(
    line
    for line in (DEPLOY_ASSETS / "real" / "sglang-docs-offline-engine-server-args.log")
    .read_text(encoding="utf-8")
    .splitlines()
    if "server_args=ServerArgs(" in line
)


def _log(policy: str, radix_off: bool, version: str | None) -> str:
    line = SERVER_ARGS.replace("schedule_policy='fcfs'", f"schedule_policy='{policy}'")
    line = line.replace("disable_radix_cache=False", f"disable_radix_cache={radix_off}")
    assert f"schedule_policy='{policy}'" in line and f"disable_radix_cache={radix_off}" in line
    return (f"sglang: {version}\n" if version else "") + line + "\n"


def _findings(
    policy: str, radix_off: bool = False, version: str | None = "0.5.22"
) -> list[NodeFinding]:
    log = parse_text(_log(policy, radix_off, version))
    assert log.engine == "sglang" and log.cache_settings["schedule_policy"] == policy
    result = check_deployment(
        [NodeLog(name="n1", source="n1.log", parsed=log)], advisories=load_advisories()
    )
    return [f for f in result.findings if ADVISORY in f.rests_on]


@pytest.mark.parametrize("policy", ["lpm", "dfs-weight"])
def test_prefix_ordering_over_a_shared_radix_cache_names_the_advisory(policy: str) -> None:
    (finding,) = _findings(policy)
    assert finding.id == "advisory-settings-expose"
    assert f"schedule_policy={policy}" in finding.detail
    assert "disable_radix_cache=false" in finding.detail
    # 0.5.22 honours cache_salt: only a per-tenant salt set by the server can isolate, and a
    # startup log cannot show it
    assert finding.severity is Severity.MEDIUM
    assert "request field cache_salt" in finding.detail
    assert finding.controls  # mapped, as every deploy-check finding


def test_before_the_salt_was_honoured_nothing_can_isolate_it() -> None:
    (finding,) = _findings("lpm", version="0.5.10")
    assert finding.severity is Severity.CRITICAL  # the advisory's own severity
    (unknown,) = _findings("lpm", version=None)
    assert unknown.severity is Severity.MEDIUM


def test_lpm_with_the_radix_cache_disabled_is_not_a_finding() -> None:
    assert _findings("lpm", radix_off=True) == []
    assert _findings("lpm", radix_off=True, version="0.5.10") == []


@pytest.mark.parametrize("policy", ["fcfs", "lof", "random", "priority"])
def test_policies_that_do_not_order_by_prefix_are_not_a_finding(policy: str) -> None:
    assert _findings(policy) == []
