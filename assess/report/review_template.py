"""``assess review new``: a commented ``review.yaml`` to fill in (pure but for reading --from)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from assess.kernel.resources import data_dir
from assess.report.plan import load_previous


@dataclass(frozen=True)
class TemplateItem:
    """A remediation item the template lists, from an existing review."""

    ref: str
    id: str
    severity: str
    title: str
    owner: str | None = None
    due: str | None = None
    status: str = "open"


def review_template(name: str = "review.yaml", items: list[TemplateItem] | None = None) -> str:
    """Return the commented review file; ``items`` (from :func:`items_from`) fill its plan."""
    env = Environment(
        loader=FileSystemLoader(str(data_dir("templates") / "review")),
        autoescape=False,  # YAML, not HTML; values are quoted with tojson
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["yq"] = yaml_quoted
    return env.get_template("review.yaml.j2").render(name=name, items=items or [])


def yaml_quoted(value: object) -> str:
    """Return ``value`` as a double-quoted YAML scalar (backslash, quote and controls escaped)."""
    text = str(value)
    out = text.replace("\\", "\\\\").replace('"', '\\"')
    out = "".join(c if c >= " " else f"\\x{ord(c):02x}" for c in out)
    return f'"{out}"'


def items_from(path: Path) -> list[TemplateItem]:
    """Return the plan items of an existing review (a folder or its report.json): its plan when
    it has one (owners and statuses kept), else its findings.

    Raises:
        InputError: when ``path`` holds no assess.report document.
    """
    view = load_previous(path).view
    if "remediation" in view.model_fields_set:
        rows = [r for r in view.remediation if r.change != "closed"]
    else:
        rows = list(view.findings)
    return [
        TemplateItem(
            ref=r.ref or "-",
            id=r.id,
            severity=r.severity,
            title=r.title,
            owner=r.owner,
            due=r.due,
            status=r.status,
        )
        for r in rows
    ]
