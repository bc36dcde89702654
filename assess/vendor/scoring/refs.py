"""The one numbering of findings (F-01, F-02 ...) that `assess score` and `assess report` share.

`score` numbers its findings in their order (severity, then id). The review keeps every scored
finding's ref (a deployment-check finding folded into one keeps that one's), and numbers the
findings only it holds (the deployment check's own) after the last of them, so a ref names the
same finding in the score document, report.json, the HTML and the PDF.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_REF = re.compile(r"^F-(\d+)$")


def ref_number(ref: str) -> int | None:
    """Return N of 'F-N', or None when ``ref`` is not one."""
    m = _REF.match(ref)
    return int(m.group(1)) if m else None


def assign_refs(refs: Sequence[str]) -> list[str]:
    """Return ``refs`` with every missing one ('' or not 'F-N') filled in, in order, after the
    highest given: ``['', '']`` -> ``['F-01', 'F-02']``; ``['F-02', '', 'F-01']`` ->
    ``['F-02', 'F-03', 'F-01']``. Given refs are kept as they are."""
    numbers = [ref_number(r) for r in refs]
    following = max((n for n in numbers if n is not None), default=0)
    out = []
    for ref, number in zip(refs, numbers, strict=True):
        if number is None:
            following += 1
            ref = f"F-{following:02d}"
        out.append(ref)
    return out
