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


@dataclass(frozen=True)
class TemplateMeta:
    """What a re-assessment keeps of the earlier review: its id, classification and scope (the
    version, period, people and decision are new, so they stay placeholders)."""

    report_id: str | None = None
    version: str | None = None
    classification: str | None = None
    scope_statement: str | None = None


def review_template(
    name: str = "review.yaml",
    items: list[TemplateItem] | None = None,
    meta: TemplateMeta | None = None,
) -> str:
    """Return the commented review file; ``items`` and ``meta`` (from :func:`from_review`) fill
    its plan and its identity."""
    env = Environment(
        loader=FileSystemLoader(str(data_dir("templates") / "review")),
        autoescape=False,  # YAML, not HTML; values are quoted with tojson
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["yq"] = yaml_quoted
    return env.get_template("review.yaml.j2").render(
        name=name, items=items or [], meta=meta or TemplateMeta()
    )


def yaml_quoted(value: object) -> str:
    """Return ``value`` as a double-quoted YAML scalar (backslash, quote and controls escaped)."""
    text = str(value)
    out = text.replace("\\", "\\\\").replace('"', '\\"')
    out = "".join(c if c >= " " else f"\\x{ord(c):02x}" for c in out)
    return f'"{out}"'


def from_review(path: Path) -> tuple[list[TemplateItem], TemplateMeta]:
    """Return the plan items of an existing review (a folder or its report.json): its plan when
    it has one (owners and statuses kept), else its findings; and its identity.

    Raises:
        InputError: when ``path`` holds no assess.report document.
    """
    view = load_previous(path, "--previous").view
    gov = view.governance
    meta = TemplateMeta(
        report_id=gov.report_id,
        version=gov.version,
        classification=gov.classification,
        scope_statement=gov.scope_statement,
    )
    if "remediation" in view.model_fields_set:
        rows = [r for r in view.remediation if r.change != "closed"]
    else:
        rows = list(view.findings)
    items = [
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
    return items, meta
