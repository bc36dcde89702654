"""Fixtures of the report tests: contract documents on disk and a CLI runner with an env."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from assess.cli import app
from tests.conftest import ASSETS, CLI_ENV, REPO

REPORT_ASSETS = ASSETS / "report"
EPOCH = "1790000000"  # 2026-09-21T14:13:20Z


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    """Run the assess CLI in-process with SOURCE_DATE_EPOCH set (unless env overrides it)."""
    runner = CliRunner()
    return runner.invoke(
        app,
        list(args),
        env={**CLI_ENV, "SOURCE_DATE_EPOCH": EPOCH, **(env or {})},
        catch_exceptions=False,
    )


def copy_assets(dest: Path, edit: Callable[[str, dict[str, Any]], None] | None = None) -> Path:
    """Copy the contract fixtures into ``dest`` (optionally editing each document) and return it."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("score.json", "scope.json", "probe.json", "deploy.json"):
        if edit is None:
            shutil.copy(REPORT_ASSETS / name, dest / name)
            continue
        doc = json.loads((REPORT_ASSETS / name).read_text())
        edit(name, doc)
        (dest / name).write_text(json.dumps(doc, indent=2))
    return dest


def json_review(tmp_path: Path, log: Path, *extra: str) -> Path:
    """A JSON-only review of the shipped well-run answers, copied beside ``log`` in tmp_path (the
    manifest names both by file name), in tmp_path/review, with ``extra`` options."""
    shutil.copy(REPO / "samples" / "vendors" / "well-run.yaml", tmp_path / "well-run.yaml")
    out = tmp_path / "review"
    args = ["report", "-a", str(tmp_path / "well-run.yaml"), "--logs", str(log), *extra]
    result = invoke(*args, "--format", "json", "--out", str(out))
    assert result.exit_code == 0, result.output
    return out


def full_args(src: Path, out: Path, *extra: str) -> list[str]:
    """Return `assess report` arguments using every fixture in ``src``."""
    return [
        "report",
        "--answers",
        str(src / "score.json"),
        "--logs",
        str(src / "scope.json"),
        "--incident",
        "glm-5.3-kv-leak",
        "--probe",
        str(src / "probe.json"),
        "--deploy-check",
        str(src / "deploy.json"),
        "--out",
        str(out),
        *extra,
    ]


@pytest.fixture(scope="module")
def module_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A temporary folder shared by one test module."""
    return tmp_path_factory.mktemp("report")


@pytest.fixture(scope="module")
def rerendered_pdf_once() -> Iterator[None]:
    """`assess verify` renders the review's PDF again (seconds each on two cores) in every run.
    In the modules that verify one review many times over (forged copies), a PDF re-rendered by
    verify from a report already re-rendered once in the module is that first render's bytes.

    Only verify's re-render is remembered, never `assess report`'s own: the first verify of each
    distinct report in the module renders for real and compares with what `report` wrote, so a
    renderer that stopped giving the same bytes still fails there. The key is the whole
    report.json (what the PDF is rendered from) and the other arguments.
    """
    from assess.report import pdf, recompute

    real_render, real_rerendered = pdf.render_pdf, recompute._rerendered
    rendered: dict[tuple[bytes, tuple[Any, ...], tuple[tuple[str, Any], ...]], bytes] = {}

    def remembered(report: Any, report_json: bytes, *args: Any, **kwargs: Any) -> bytes:
        if kwargs.get("fetcher") is not None or (len(args) > 1 and args[1] is not None):
            return real_render(report, report_json, *args, **kwargs)  # a fetcher of its own
        key = (report.model_dump_json().encode() + b"\0" + report_json, args, tuple(kwargs.items()))
        if key not in rendered:
            rendered[key] = real_render(report, report_json, *args, **kwargs)
        return rendered[key]

    def rerendered(*args: Any, **kwargs: Any) -> Any:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(pdf, "render_pdf", remembered)
            return real_rerendered(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(recompute, "_rerendered", rerendered)
        yield


@pytest.fixture(scope="session")
def demo_review(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """`assess demo` (every format, the PDF included) written once for the tests that only read
    it: (its folder, what it printed). A test that changes it works on a copy."""
    out = tmp_path_factory.mktemp("demo-review") / "demo"
    result = invoke("demo", "--out", str(out))
    assert result.exit_code == 0, result.output
    return out, result.output
