"""Size limits of the package, read from the source (ast): no module over 400 lines and no
function over 60, so a feature stays readable in one sitting. Tests are exempt."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "assess"
MODULE_LINES = 400
FUNCTION_LINES = 60


def sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def function_lengths(source: str) -> list[tuple[str, int, int]]:
    """``(name, first line, length)`` of every function and method, nested ones included;
    the length runs from the ``def`` (decorators excluded) to the last line of the body."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            assert node.end_lineno is not None
            found.append((node.name, node.lineno, node.end_lineno - node.lineno + 1))
    return found


def test_the_package_has_modules_to_measure() -> None:
    assert len(sources()) > 100  # a wrong PACKAGE path would make every check below vacuous


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_is_over_the_line_limit(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MODULE_LINES, f"{path.relative_to(PACKAGE)}: {lines} lines; split it"


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_function_is_over_the_line_limit(path: Path) -> None:
    long = [
        f"{name} (line {line}): {length} lines"
        for name, line, length in function_lengths(path.read_text(encoding="utf-8"))
        if length > FUNCTION_LINES
    ]
    assert not long, f"{path.relative_to(PACKAGE)}: split {', '.join(long)}"


def test_the_function_measure_counts_from_def_to_the_last_body_line() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(FUNCTION_LINES))
    source = f"@decorator\ndef long():\n{body}\n\ndef short():\n    pass\n"
    assert function_lengths(source) == [("long", 2, FUNCTION_LINES + 1), ("short", 64, 2)]
