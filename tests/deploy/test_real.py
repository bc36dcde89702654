"""Exact values and verdicts on real startup-log excerpts pasted in the engines' GitHub issues.

The expected values are the table in tests/assets/deploy/real/README.md (each row cites its issue).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assess.deploy.check import check_deployment
from assess.deploy.serverlogs import load_nodes
from assess.deploy.serverlogs.text import to_int
from tests.deploy.conftest import DEPLOY_ASSETS, parse_text, sample

REAL = DEPLOY_ASSETS / "real"
_ROW = re.compile(
    r"^\| (\S+) \| (https://\S+)[^|]* \| (\w+) \| ([\d-]+) \| ([\d-]+) \| (\w+) \| (\w+) \|$"
)


def _table() -> dict[str, tuple[str, int | None, int | None, str, str]]:
    rows = {}
    for line in (REAL / "README.md").read_text().splitlines():
        m = _ROW.match(line)
        if m:
            name, _, engine, pool, context, role, verdict = m.groups()
            number = lambda s: None if s == "-" else int(s)  # noqa: E731
            rows[name] = (engine, number(pool), number(context), role, verdict)
    return rows


TABLE = _table()


def test_every_excerpt_is_in_the_table() -> None:
    files = {p.name for p in REAL.iterdir() if p.name != "README.md"}
    assert files == set(TABLE)
    assert len(TABLE) >= 10


@pytest.mark.parametrize("name", sorted(TABLE))
def test_real_excerpt(name: str) -> None:
    nodes = load_nodes([str(REAL / name)])
    result = check_deployment(nodes)
    (node,) = result.nodes
    got = (node.engine, node.pool_tokens, node.context_tokens, node.role.value)
    assert got == TABLE[name][:4]
    assert result.verdict.value == TABLE[name][4]
    # a node missing a value stays inconclusive even when a finding flags the deployment
    assert node.verdict.value == ("inconclusive" if node.missing else TABLE[name][4])
    assert result.failed is (TABLE[name][4] != "pass")


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("567978", 567978), ("567,978", 567978), ("2,042,016", 2042016), ("5.68e5", 568000),
        ("1_048_576", 1048576), ("1e3", 1000), ("4.33", None), ("5.6789e2", None),
        ("56,7978", None), ("9223372036854775808", None), ("1e30", None), ("-5", None), ("", None),
    ],
)  # fmt: skip
def test_one_checked_number_parse(raw: str, value: int | None) -> None:
    assert to_int(raw) == value


def test_numbers_in_every_form_read_the_same() -> None:
    for form in ("567978", "567,978", "5.67978e5"):
        log = parse_text(
            f"INFO [kv_cache_utils.py:864] GPU KV cache size: {form} tokens\n"
            "INFO [kv_cache_utils.py:868] Maximum concurrency for 131,072 tokens per request: "
            "4.33x\n"
        )
        assert (log.pool_tokens, log.context_tokens) == (567978, 131072)


def test_a_non_integral_pool_is_not_a_value() -> None:
    log = parse_text(
        "GPU KV cache size: 5.5 tokens\nMaximum concurrency for 2,048 tokens per request: 1x\n"
    )
    assert log.pool_tokens is None
    assert any("not a whole token count" in n for n in log.notes)


def test_per_rank_lines_fold_to_the_smallest_pool() -> None:
    log = parse_text(
        "(EngineCore_DP0 pid=11) INFO [kv_cache_utils.py:864] GPU KV cache size: 42,656 tokens\n"
        "(EngineCore_DP1 pid=12) INFO [kv_cache_utils.py:864] GPU KV cache size: 41,600 tokens\n"
        "(EngineCore_DP0 pid=11) INFO Maximum concurrency for 32,768 tokens per request: 1.30x\n"
    )
    assert log.pool_tokens == 41600
    assert any("differs between ranks" in n for n in log.notes)


_LISTING = (REAL / "sglang-30233-listing.md").read_text()
_PREFIXES = st.sampled_from(
    ["", "> ", "    ", "[2026-05-06 09:15:41 DP7 TP7 EP7] ", "pod/prefill-0 ", "\x1b[32m", "* "]
)


@given(prefix=_PREFIXES, fence=st.booleans(), sep=st.sampled_from(["=", ": ", " = "]))
def test_listing_values_survive_paste_noise(prefix: str, fence: bool, sep: str) -> None:
    lines = [prefix + line.replace("=", sep) + ("\x1b[0m" if prefix == "\x1b[32m" else "")
             for line in _LISTING.splitlines()]  # fmt: skip
    text = "\n".join(lines)
    if fence:
        text = "```text\n" + text + "\n```\n"
    log = parse_text(text)
    assert (log.engine, log.pool_tokens, log.context_tokens) == ("sglang", 284928, 1048576)
    assert log.role is not None and log.role.value == "prefill"


@given(prefix=_PREFIXES, form=st.sampled_from(["42,656", "42656", "4.2656e4"]))
def test_vllm_values_survive_prefixes(prefix: str, form: str) -> None:
    log = parse_text(
        f"{prefix}INFO 10-03 16:22:17 [kv_cache_utils.py:864] GPU KV cache size: {form} tokens\n"
        f"{prefix}INFO 10-03 16:22:17 [kv_cache_utils.py:868] Maximum concurrency for 32,768 "
        "tokens per request: 1.30x\n"
    )
    assert (log.pool_tokens, log.context_tokens) == (42656, 32768)


def test_each_launch_in_one_log_is_its_own_node(tmp_path: Path) -> None:
    log = tmp_path / "runs.log"
    log.write_text(sample("vllm-pass.log").read_text() + sample("vllm-fail.log").read_text())
    nodes = load_nodes([str(log)])
    assert [n.name for n in nodes] == ["runs#1", "runs#2"]
    result = check_deployment(nodes)
    by_name = {n.name: n for n in result.nodes}
    assert (by_name["runs#1"].pool_tokens, by_name["runs#1"].verdict.value) == (1239808, "pass")
    assert (by_name["runs#2"].pool_tokens, by_name["runs#2"].context_tokens) == (102400, 262144)
    assert by_name["runs#2"].verdict.value == "flag"
    assert result.verdict.value == "flag"  # a refused launch flags though another passed
    assert len(result.inputs) == 1
    assert by_name["runs#2"].notes[0].startswith("launch 2 of 2 in the log (lines ")
    # each launch's note names the settings that tell the runs apart
    assert "context 262,144, pool 102,400" in by_name["runs#2"].notes[0]
    assert "pool 1,239,808" in by_name["runs#1"].notes[0]


@pytest.mark.parametrize(
    ("name", "version"),
    [
        ("vllm-15960-v1-engine-line.log", "0.7.4.dev713+gb4961126"),
        ("vllm-10517-v0-engine-config-fenced.md", "0.5.4"),
        ("sglang-30233-listing.md", "0.5.11"),
    ],
)
def test_real_versions(name: str, version: str) -> None:
    (node,) = load_nodes([str(REAL / name)])
    assert node.parsed.version == version


def test_a_v0_engine_line_gives_the_version() -> None:
    log = parse_text(
        "INFO 02-10 17:12:31 llm_engine.py:234] Initializing a V0 LLM engine "
        "(v0.6.4.post2.dev395+g02222a02.d20241217) with config: model='/home/cmq/x', "
        "max_seq_len=2048, download_dir=None, load_format=auto,\n"
    )  # vllm-project/vllm#13027
    assert (log.engine, log.version, log.context_tokens) == (
        "vllm", "0.6.4.post2.dev395+g02222a02.d20241217", 2048,
    )  # fmt: skip


def test_sglang_per_rank_lines_fold_to_the_smallest_pool() -> None:
    log = parse_text(
        "[2025-11-04 05:27:13 DP0 TP0 EP0] KV Cache is allocated. #tokens: 524288, KV size: 17.16"
        " GB\n[2025-11-04 05:27:13 DP1 TP1 EP1] KV Cache is allocated. #tokens: 520192, KV size: "
        "17.03 GB\n"
        "[2025-11-04 05:27:14 gpu_id=2] KV Cache is allocated. #tokens: 522240, KV size: 17.10 GB\n"
        "--context-length 131072 --disaggregation-mode decode\n"
    )
    assert (log.engine, log.pool_tokens, log.context_tokens) == ("sglang", 520192, 131072)
    assert log.role is not None and log.role.value == "decode"
    assert any("differs between ranks" in n for n in log.notes)
