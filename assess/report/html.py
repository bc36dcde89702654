"""Render a :class:`~assess.report.models.Report` to one self-contained HTML page.

The templates live in ``templates/report/`` (base layout plus one partial per section). Jinja2
autoescaping is always on and undefined names are errors; the stylesheet and the SVG charts are
inlined, so the page loads nothing from anywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from assess.kernel.resources import data_dir
from assess.report.cache_audit import distribution_chart
from assess.report.charts import per_day_chart, pool_chart, tier_band
from assess.report.models import DeploymentNode, Report
from assess.report.prose import cite_questions, prose, question_texts
from assess.report.sections import value_text
from assess.report.tables import account_rows, answer_sheet
from assess.scope.method_text import method_lines

#: Nested values are shown up to this many items inside one table cell.
_CELL_ITEMS = 12


def template_dir() -> str:
    """Return the folder of the report templates."""
    return str(data_dir("templates") / "report")


@cache
def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(template_dir()),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        num=fmt_number,
        pct=fmt_percent,
        label=label,
        cell=cell,
        flat_items=flat_items,
        record_lists=record_lists,
        columns=columns,
        settings_matrix=settings_matrix,
        account_rows=account_rows,
        prose=prose,
        cite=cite_questions,
        answer_sheet=answer_sheet,
        distributions=distribution_chart,
        answer_value=value_text,
        method_lines=method_lines,
    )
    return env


def render_html(report: Report, pdf: bool = False) -> str:
    """Return the review as an HTML document (``pdf`` adjusts a few words for the PDF)."""
    charts = {
        "tier_band": tier_band(report.tier, report.score),
        "pool": pool_chart(report.vendor.advertised_context_tokens, report.vendor.pools),
        "per_day": per_day_chart(report.exposure.per_day),
    }
    template = _environment().get_template("base.html.j2")
    return template.render(
        r=report,
        questions=question_texts(report),
        charts=charts,
        pdf=pdf,
        author=f"assess {report.tool.version} (automated vendor review)",
    )


def fmt_number(value: Any) -> str:
    """Return an int with thousands separators, '-' for None, anything else as text."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.2f}"
    return str(value)


def fmt_percent(value: Any, digits: int = 0) -> str:
    """Return a share (0..1) as a percentage, '-' for None."""
    if value is None:
        return "-"
    return f"{float(value):.{digits}%}"


def label(key: Any) -> str:
    """Return a field name as words: ``prompt_tokens`` -> ``prompt tokens``."""
    return str(key).replace("_", " ").replace(".", ": ")


def cell(value: Any) -> str:
    """Return a value as short cell text (lists joined, dicts as key=value)."""
    if isinstance(value, dict):
        return ", ".join(f"{label(k)}={cell(v)}" for k, v in list(value.items())[:_CELL_ITEMS])
    if isinstance(value, list):
        shown = ", ".join(cell(v) for v in value[:_CELL_ITEMS])
        more = len(value) - _CELL_ITEMS
        return f"{shown}, ... ({more:,} more)" if more > 0 else shown
    return fmt_number(value)


def flat_items(data: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """Return the scalar (and short list) entries of ``data`` as ``(dotted key, text)`` rows."""
    rows: list[tuple[str, str]] = []
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            rows.extend(flat_items(value, f"{name}."))
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            continue  # shown as its own table by record_lists
        else:
            rows.append((name, cell(value)))
    return rows


def record_lists(data: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Return the entries of ``data`` that are non-empty lists of objects (shown as tables)."""
    return [
        (key, value)
        for key, value in data.items()
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value)
    ]


def columns(records: Iterable[dict[str, Any]]) -> list[str]:
    """Return the union of the records' keys, in first-seen order."""
    seen: dict[str, None] = {}
    for record in records:
        seen.update(dict.fromkeys(record))
    return list(seen)


def settings_matrix(nodes: Iterable[DeploymentNode]) -> list[tuple[str, list[str], bool]]:
    """Return one row per setting: its name, each node's value as text, and whether they differ."""
    node_list = list(nodes)
    keys = sorted({key for node in node_list for key in node.settings})
    rows = []
    for key in keys:
        values = [cell(node.settings[key]) if key in node.settings else "-" for node in node_list]
        rows.append((key, values, len(set(values)) > 1))
    return rows
