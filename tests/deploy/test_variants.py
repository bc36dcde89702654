"""The same logs wrapped, prefixed, coloured, fenced, truncated, compressed or junk."""

from __future__ import annotations

import gzip
import re
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assess.deploy.serverlogs import load_nodes
from tests.deploy.conftest import DEPLOY_ASSETS, parse_text, sample

SAMPLES = [
    "sglang-prefill.log", "sglang-decode.log", "sglang-prefill-fixed.log",
    "sglang-aggregated.log", "vllm-pass.log", "vllm-fail.log",
]  # fmt: skip


def _key(text: str) -> tuple[object, ...]:
    log = parse_text(text)
    return (log.engine, log.version, log.role, log.pool_tokens, log.context_tokens,
            log.settings.get("kv_checksum"), log.settings.get("transfer_backend"))  # fmt: skip


def hard_wrap(width: int, indent: str = "") -> Callable[[str], str]:
    """Wrap every line at ``width`` characters, like a terminal or an issue tracker paste."""

    def wrap(text: str) -> str:
        out: list[str] = []
        for line in text.split("\n"):
            pieces = [line[i : i + width] for i in range(0, len(line), width)] or [""]
            out.append(pieces[0])
            out.extend(indent + p for p in pieces[1:])
        return "\n".join(out)

    return wrap


def prefix(fmt: str) -> Callable[[str], str]:
    return lambda text: "\n".join(fmt + line for line in text.split("\n"))


def ansi(text: str) -> str:
    coloured = re.sub(r"(INFO|ERROR|TP\d)", "\x1b[32m\\1\x1b[0m", text)
    return "\n".join(f"\x1b[2m{line}\x1b[0m" for line in coloured.split("\n"))


def markdown(text: str) -> str:
    return f"Here is the prefill node's log:\n\n```text\n{text}\n```\n\nAny idea why?\n"


def quoted(text: str) -> str:
    return "\n".join("> " + line for line in text.split("\n"))


VARIANTS: dict[str, Callable[[str], str]] = {
    "k8s-prefix": prefix("[pod/glm-prefill-0/sglang] "),
    "cri-timestamp": prefix("2026-08-26T09:14:02.123456789Z stdout F "),
    "custom-timestamp": prefix("Aug 26 09:14:02 gpu-node-17 sglang[4121]: "),
    "ansi": ansi,
    "markdown-fence": markdown,
    "markdown-quote": quoted,
    "crlf": lambda t: t.replace("\n", "\r\n"),
    "wrap-37": hard_wrap(37),
    "wrap-53": hard_wrap(53),
    "wrap-80": hard_wrap(80),
    "wrap-117-indented": hard_wrap(117, "    "),
    "prefix+ansi+wrap-64": lambda t: hard_wrap(64)(ansi(prefix("[pod/p-0/c] ")(t))),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("name", SAMPLES)
def test_variant_reads_the_same_values(name: str, variant: str) -> None:
    text = sample(name).read_text()
    assert _key(VARIANTS[variant](text)) == _key(text)


def test_wrap_inside_server_args_key_and_value() -> None:
    """As pasted in sgl-project/sglang#7883: 'chunked_prefill_size\\n=8192', 'dis\\naggregation'."""
    text = sample("sglang-prefill.log").read_text()
    text = text.replace("context_length=1048576", "context_len\ngth=10485\n76")
    text = text.replace("disaggregation_mode='prefill'", "dis\naggregation_mode\n='prefill'")
    text = text.replace("max_total_num_tokens=681280", "max_total_num_tokens=68\n1280")
    text = text.replace("context_len=1048576", "context_len=1048\n576")
    log = parse_text(text)
    assert (log.role, log.pool_tokens, log.context_tokens) == ("prefill", 681280, 1048576)
    assert "re-joined across a line wrap" in log.evidence["pool_tokens"]


def test_a_cut_number_is_never_read_short() -> None:
    log = parse_text(
        "max_total_num_tokens=6812\n80, chunked_prefill_size=8192, context_len=4096,\n"
    )
    assert log.pool_tokens == 681280


def test_two_startups_use_the_last() -> None:
    text = sample("sglang-prefill.log").read_text() + sample("sglang-prefill-fixed.log").read_text()
    log = parse_text(text)
    assert (log.version, log.pool_tokens, log.settings["kv_checksum"]) == ("0.5.22", 2040064, True)
    assert any("2 startups" in n for n in log.notes)


def test_truncated_log_says_where_it_stopped() -> None:
    (node,) = load_nodes([str(DEPLOY_ASSETS / "sglang-truncated.log")])
    log = node.parsed
    assert log.pool_tokens is None and log.context_tokens == 1048576  # from server_args
    assert any("stops before the KV cache was allocated" in n for n in log.notes)
    assert "max_total_num_tokens" in log.hints["pool_tokens"]


@pytest.mark.parametrize(
    ("asset", "problem"),
    [
        ("empty.log", "the file is empty"),
        ("blank.log", "the file is empty"),
        ("junk.bin", "binary data"),
        ("not-a-server-log.log", "neither an SGLang nor a vLLM"),
    ],
)
def test_unusable_logs_come_back_with_a_problem(asset: str, problem: str) -> None:
    (node,) = load_nodes([str(DEPLOY_ASSETS / asset)])
    assert node.parsed.problem is not None and problem in node.parsed.problem
    assert node.parsed.pool_tokens is None


def test_gzip_reads_the_same(tmp_path: Path) -> None:
    packed = tmp_path / "prefill.log.gz"
    packed.write_bytes(gzip.compress(sample("sglang-prefill.log").read_bytes()))
    (node,) = load_nodes([str(packed)])
    assert node.name == "prefill"
    assert (node.parsed.pool_tokens, node.parsed.context_tokens) == (681280, 1048576)
    assert node.input_file is not None and node.input_file.bytes == packed.stat().st_size


def test_truncated_gzip_reads_what_is_there(tmp_path: Path) -> None:
    data = gzip.compress(sample("vllm-pass.log").read_bytes())
    cut = tmp_path / "cut.log.gz"
    cut.write_bytes(data[: len(data) - 40])
    (node,) = load_nodes([str(cut)])
    assert any("truncated" in n for n in node.parsed.notes)
    assert node.parsed.version == "0.11.0"


def test_secrets_are_masked_in_evidence() -> None:
    text = (
        sample("sglang-aggregated.log").read_text().replace("api_key=None", "api_key='sk-live-1'")
    )
    text = text.replace(
        "model_path='Qwen/Qwen3-32B'", "api_key='sk-live-1', model_path='Qwen/Qwen3-32B'"
    )
    log = parse_text(text)
    assert "sk-live-1" not in "".join(log.evidence.values())


@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(SAMPLES),
    width=st.integers(min_value=40, max_value=400),
    pad=st.sampled_from(["", "  ", "\t"]),
    head=st.sampled_from(["", "[pod/x-0/engine] ", "2026-10-02T10:00:01.5Z stdout F "]),
)
def test_any_wrap_width_and_prefix_reads_the_same(
    name: str, width: int, pad: str, head: str
) -> None:
    text = sample(name).read_text()
    assert _key(hard_wrap(width, pad)(prefix(head)(text))) == _key(text)


def test_utf16_log_from_powershell(tmp_path: Path) -> None:
    log = tmp_path / "prefill.log"
    log.write_bytes(sample("sglang-prefill.log").read_text().encode("utf-16"))
    (node,) = load_nodes([str(log)])
    assert (node.parsed.pool_tokens, node.parsed.context_tokens) == (681280, 1048576)
    assert any("UTF-16" in n for n in node.parsed.notes)


def test_word_wrapped_paste_reads_the_same() -> None:
    for name in SAMPLES:
        text = sample(name).read_text()
        wrapped = "\n".join(
            "\n".join(textwrap.wrap(line, 72, break_on_hyphens=False) or [""])
            for line in text.split("\n")
        )
        assert _key(wrapped) == _key(text), name


def test_gzip_cut_before_any_text_is_not_called_empty(tmp_path: Path) -> None:
    data = gzip.compress(sample("vllm-pass.log").read_bytes())
    cut = tmp_path / "cut.log.gz"
    cut.write_bytes(data[:40])
    (node,) = load_nodes([str(cut)])
    assert node.parsed.problem is not None
    assert "gzip stream ends early (truncated)" in node.parsed.problem
    assert "empty" not in node.parsed.problem
