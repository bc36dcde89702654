"""The package layout, read from the imports (ast): cli -> features -> kernel, one way only."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "assess"
FEATURES = (
    "advisories",
    "controls",
    "vendor",
    "scope",
    "probe",
    "lab",
    "deploy",
    "report",
    "portfolio",
)


def imported(path: Path, root: Path = PACKAGE.parent) -> set[str]:
    """Every module ``path`` imports (absolute names; relative imports resolved), at any depth:
    function-level and ``TYPE_CHECKING`` imports count too."""
    module = ".".join(path.relative_to(root).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def modules_of(package: str) -> list[Path]:
    return sorted((PACKAGE / package).rglob("*.py"))


def assess_packages(names: set[str]) -> set[str]:
    """The ``assess`` subpackages among ``names`` (``assess.scope.logs`` -> ``scope``; not
    ``assess.__version__``)."""
    parts = (n.split(".") for n in names if n.startswith("assess."))
    return {p[1] for p in parts if (PACKAGE / p[1] / "__init__.py").is_file()}


def test_every_package_is_known() -> None:
    found = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert found == {*FEATURES, "kernel", "cli"}


@pytest.mark.parametrize("feature", FEATURES)
def test_no_feature_imports_the_cli(feature: str) -> None:
    offenders = {
        str(p.relative_to(PACKAGE)): sorted(n for n in imported(p) if n.startswith("assess.cli"))
        for p in modules_of(feature)
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_kernel_imports_no_feature() -> None:
    offenders = {
        str(p.relative_to(PACKAGE)): sorted(assess_packages(imported(p)) - {"kernel"})
        for p in modules_of("kernel")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


#: The features a feature may import besides kernel. Only report combines the others; the
#: exceptions are the advisories catalogue (the incidents), which scoring, scope and deploy-check
#: are judged against, the controls crosswalk, which names the framework controls of scoring's and
#: deploy-check's findings, and the portfolio, which ranks what the vendor feature scores.
ALLOWED = {
    "advisories": set(),
    "controls": set(),
    "vendor": {"advisories", "controls"},
    "scope": {"advisories"},
    "probe": set(),
    "lab": set(),
    "deploy": {"advisories", "controls"},
    "report": set(FEATURES) - {"report", "portfolio"},
    "portfolio": {"vendor"},
}


@pytest.mark.parametrize("feature", FEATURES)
def test_only_report_combines_features(feature: str) -> None:
    used = {
        str(p.relative_to(PACKAGE)): sorted(
            assess_packages(imported(p)) - {"kernel", feature} - ALLOWED[feature]
        )
        for p in modules_of(feature)
    }
    assert {k: v for k, v in used.items() if v} == {}


def test_the_reader_sees_function_level_and_relative_imports(tmp_path: Path) -> None:
    """The check can fail: a lazy import inside a function and a relative one are both seen."""
    probe = tmp_path / "assess" / "scope" / "sample.py"
    probe.parent.mkdir(parents=True)
    probe.write_text("def f():\n    from assess.cli import app\n\nfrom ..probe import api\n")
    names = imported(probe, root=tmp_path)
    assert "assess.cli" in names and "assess.probe.api" in names
