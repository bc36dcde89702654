"""Fixtures for probe tests: the lab on a thread and an in-process CLI with keys in the env."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from assess.cli import app
from assess.lab.engine import LabConfig
from assess.lab.server import run_lab_server

KEY_A = "sk-probe-test-AAAA-0f3c9e7d"
KEY_B = "sk-probe-test-BBBB-81d2aa40"
SMALL_LAB = {"page_tokens": 16, "pool_tokens": 256, "context_tokens": 512}


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Put two distinctive keys in the environment (and no default key)."""
    monkeypatch.setenv("TEST_KEY_A", KEY_A)
    monkeypatch.setenv("TEST_KEY_B", KEY_B)
    monkeypatch.delenv("ASSESS_API_KEY", raising=False)


@pytest.fixture
def leaky_lab() -> Iterator[str]:
    """A faulty lab (pool 256 < context 512)."""
    with run_lab_server(LabConfig(**SMALL_LAB)) as base:
        yield base


@pytest.fixture
def fixed_lab() -> Iterator[str]:
    """The same lab with the admission fix."""
    with run_lab_server(LabConfig(fixed=True, **SMALL_LAB)) as base:
        yield base


@pytest.fixture
def probe(keys: None) -> Callable[..., Any]:
    """Run `assess probe` in-process with account A and B keys from TEST_KEY_A/TEST_KEY_B."""
    runner = CliRunner()

    def invoke(
        base_url: str, *args: str, two_accounts: bool = True, transport: str = "httpx"
    ) -> Any:
        argv = ["probe", "--base-url", base_url, "--model", "lab-glm-5.3"]
        argv += ["--transport", transport]
        argv += ["--api-key-env", "TEST_KEY_A"]
        if two_accounts:
            argv += ["--second-api-key-env", "TEST_KEY_B"]
        return runner.invoke(app, [*argv, *args], catch_exceptions=False)

    return invoke
