"""Break opportunities in long unbroken text, so the PDF renders in time linear in its length.

WeasyPrint lays out a run of text with no break opportunity by trying ever shorter pieces, and a
table cell styled ``overflow-wrap: anywhere`` (or ``word-break: break-all``) makes it measure a
break at every character for the column's minimum width: a 20,000-character note without a space
took 45 s and 200,000 over ten minutes. Vendor notes, refs, ids and log excerpts are anyone's
text, so before the PDF is rendered a zero-width space (U+200B, an invisible line-break
opportunity) goes after every :data:`PIECE` characters of any run longer than :data:`LONG`, and
the PDF's stylesheet turns per-character breaking off (:data:`PDF_BREAK_CSS`). A table row
that spans pages is laid out again on every page, so one text longer than :data:`MAX_PDF_TEXT`
characters is also cut there in the PDF, saying how much more the attached report.json holds.
The HTML output and report.json keep the text as written.
"""

from __future__ import annotations

import re

ZWSP = "\u200b"
#: Runs up to this long are left alone (a SHA-256 is 64 hex characters).
LONG = 80
PIECE = 40
#: The longest text the PDF shows in one place; the rest is in the attached report.json.
MAX_PDF_TEXT = 3000
_RUN = re.compile(rf"[^\s<>&{ZWSP}]{{{LONG + 1},}}")
_TEXT = re.compile(r">([^<]+)<")
#: With break opportunities in the text itself, no element needs per-character breaking.
PDF_BREAK_CSS = (
    ".wrap, .mono, .qid, td, th { overflow-wrap: break-word !important; "
    "word-break: normal !important; }"
)


def break_run(run: str) -> str:
    """Return ``run`` with a zero-width space after every :data:`PIECE` characters."""
    return ZWSP.join(run[i : i + PIECE] for i in range(0, len(run), PIECE))


def break_long_runs(html: str) -> str:
    """Return ``html`` with break opportunities in every long run of its body's text.

    Only text between tags is touched (never a tag, an attribute or an entity), and only after
    ``<body``, so the head's stylesheet and metadata stay as written.
    """
    head, sep, body = html.partition("<body")
    if not sep:
        head, body = "", html

    def text(match: re.Match[str]) -> str:
        return ">" + _RUN.sub(lambda m: break_run(m.group(0)), _cut(match.group(1))) + "<"

    return head + sep + _TEXT.sub(text, body)


def _cut(text: str) -> str:
    """Return ``text`` cut at :data:`MAX_PDF_TEXT` characters (never inside an entity), saying
    how many more characters the attached report.json holds."""
    if len(text) <= MAX_PDF_TEXT:
        return text
    at = MAX_PDF_TEXT
    amp = text.rfind("&", at - 10, at)
    if amp >= 0 and ";" not in text[amp:at]:
        at = amp
    rest = len(text) - at
    return f"{text[:at]} [... {rest:,} more characters: see the attached report.json]"
