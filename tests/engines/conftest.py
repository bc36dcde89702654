"""The real-engine tests run only when asked for: ``pytest -m engines`` (`make test-engines`).

`make test` (plain ``pytest``) lists them as skipped with the reason, so a reader sees they exist.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "engines" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="a real inference engine: run with `make test-engines`")
    for item in items:
        if item.get_closest_marker("engines") is not None:
            item.add_marker(skip)
