"""deploy-check judges the settings a log shows against the advisories' setting facts.

The logs are real excerpts (tests/assets/deploy/real, cited there); where a case needs a version
or a setting the excerpt lacks, the test adds the line `python3 -m sglang.check_env` prints
(``sglang: X``) or edits one field of the real ServerArgs line, and says so.
"""

from __future__ import annotations

import pytest

from assess.advisories.catalogue import load_advisories
from assess.deploy.check import check_deployment
from assess.deploy.models import DeployCheckResult, NodeFinding, NodeLog
from assess.kernel.common import Severity
from tests.deploy.conftest import DEPLOY_ASSETS, parse_text

REAL = DEPLOY_ASSETS / "real"
SERVER_ARGS = (REAL / "sglang-docs-offline-engine-server-args.log").read_text()
HICACHE = (REAL / "sglang-21395-hicache-mooncake.log").read_text()
ADVISORIES = load_advisories()


def _check(text: str) -> DeployCheckResult:
    log = parse_text(text)
    return check_deployment([NodeLog(name="n", source="t", parsed=log)], advisories=ADVISORIES)


def _about(result: DeployCheckResult, advisory: str) -> list[NodeFinding]:
    ids = ("advisory-settings-expose", "advisory-settings-not-shown", "engine-version-affected")
    return [f for f in result.findings if f.id in ids and advisory in f.rests_on]


def _version(text: str, version: str) -> str:
    return f"sglang: {version}\n{text}"


def test_prefix_cache_on_before_the_salt_fix_is_flagged_at_the_advisory_severity() -> None:
    adv = ADVISORIES["sglang-cache-salt-ignored"]
    (finding,) = _about(_check(_version(SERVER_ARGS, "0.5.10")), adv.id)
    assert finding.id == "advisory-settings-expose"
    assert finding.severity is adv.severity
    assert "disable_radix_cache=false" in finding.detail


def test_just_past_the_fix_is_not_flagged() -> None:
    assert _about(_check(_version(SERVER_ARGS, "0.5.11")), "sglang-cache-salt-ignored") == []


def test_prefix_cache_off_is_not_flagged() -> None:
    off = SERVER_ARGS.replace("disable_radix_cache=False", "disable_radix_cache=True")  # edited
    assert _about(_check(_version(off, "0.5.10")), "sglang-cache-salt-ignored") == []


def test_without_the_version_the_settings_still_say_medium() -> None:
    (finding,) = _about(_check(SERVER_ARGS), "sglang-cache-salt-ignored")
    assert finding.severity is Severity.MEDIUM
    assert "version is not in the log" in finding.detail


def test_external_storage_tier_from_its_own_log_line() -> None:
    adv = ADVISORIES["sglang-hicache-l3-unsalted"]
    (finding,) = _about(_check(_version(HICACHE, "0.5.19")), adv.id)
    assert finding.id == "advisory-settings-expose" and finding.severity is adv.severity
    assert "hicache_storage_backend=mooncake" in finding.detail
    assert _about(_check(_version(HICACHE, "0.5.20")), adv.id) == []


def test_disaggregation_without_the_transfer_checksum() -> None:
    adv = ADVISORIES["sglang-pd-kv-transfer-race"]
    prefill = SERVER_ARGS.replace("disaggregation_mode='null'", "disaggregation_mode='prefill'")
    off = prefill.replace("forward_hooks=None)", "disaggregation_enable_kv_checksum=False)")
    on = prefill.replace("forward_hooks=None)", "disaggregation_enable_kv_checksum=True)")
    (finding,) = _about(_check(_version(off, "0.5.21")), adv.id)
    assert finding.severity is adv.severity
    assert "disaggregation_enable_kv_checksum=false" in finding.detail
    assert _about(_check(_version(on, "0.5.21")), adv.id) == []
    # a release before the checksum existed (the whole ServerArgs has no such field): the
    # setting cannot be the finding; the version is (next test)
    assert [f.id for f in _about(_check(_version(prefill, "0.5.20")), adv.id)] == [
        "engine-version-affected"
    ]


def test_vllm_prefix_cache_on_rests_on_a_request_field_the_log_cannot_show() -> None:
    (finding,) = _about(
        _check((REAL / "vllm-9532-v0-engine-config-prefix.log").read_text()),
        "vllm-prefix-cache-timing",
    )
    assert finding.id == "advisory-settings-expose" and finding.severity is Severity.MEDIUM
    assert "enable_prefix_caching=true" in finding.detail
    assert "cache_salt" in finding.detail


@pytest.mark.parametrize("name", ["vllm-pr29393-non-default-args.log", "vllm-21348-kv-both.md"])
def test_a_setting_not_shown_is_coverage_not_risk(name: str) -> None:
    (finding,) = _about(_check((REAL / name).read_text()), "vllm-prefix-cache-timing")
    assert finding.id == "advisory-settings-not-shown"
    assert finding.severity is Severity.INFO
    assert "enable_prefix_caching" in finding.detail


def test_whole_server_args_rule_settings_out_rather_than_leave_them_unknown() -> None:
    # every field is printed: LMCache and HiCache are off, the node is not disaggregated
    result = _check(_version(SERVER_ARGS, "0.5.19"))
    for advisory in ("sglang-lmcache-unsalted", "sglang-hicache-l3-unsalted",
                     "sglang-pd-kv-transfer-race"):  # fmt: skip
        assert _about(result, advisory) == []


def test_disaggregated_before_the_checksum_existed_is_the_version_finding() -> None:
    adv = ADVISORIES["sglang-pd-kv-transfer-race"]
    prefill = SERVER_ARGS.replace("disaggregation_mode='null'", "disaggregation_mode='prefill'")
    (finding,) = _about(_check(_version(prefill, "0.5.20")), adv.id)
    assert finding.id == "engine-version-affected" and finding.severity is adv.severity
    assert "disaggregated" in finding.detail
    # not disaggregated: the advisory's mode does not apply
    assert _about(_check(_version(SERVER_ARGS, "0.5.20")), adv.id) == []
