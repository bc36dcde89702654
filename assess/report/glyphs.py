"""Characters the PDF cannot show: no installed font has a glyph for them.

WeasyPrint (Pango) falls back through every font fontconfig knows, and a character none of them
covers is drawn as an empty box, silently: a vendor named in CJK or with an emoji came out as
boxes. assess bundles no font (a CJK font is tens of megabytes), so the review names those
characters instead and says which fonts would cover them.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata
from functools import cache

_TAG = re.compile(r"<[^>]*>")
_SKIP = {"Cc", "Cf", "Zs", "Zl", "Zp", "Cs", "Co", "Cn"}
#: Characters named in one warning at most.
SHOWN = 20


@cache
def covered() -> frozenset[int] | None:
    """Return every code point some installed font has a glyph for; None when unknown
    (fontconfig's ``fc-list`` is absent: nothing is claimed then)."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return None
    try:
        from fontTools.ttLib import (  # type: ignore[import-untyped]  # WeasyPrint's own dependency
            TTCollection,
            TTFont,
        )
    except ImportError:
        return None
    listing = subprocess.run(
        [fc_list, "-f", "%{file}\\n"], capture_output=True, text=True, check=False, timeout=60
    ).stdout
    points: set[int] = set()
    for path in sorted(set(listing.split())):
        try:
            fonts = (
                TTCollection(path, lazy=True).fonts
                if path.lower().endswith(".ttc")
                else [TTFont(path, lazy=True)]
            )
            for font in fonts:
                points.update(font.getBestCmap() or {})
        except Exception:  # noqa: BLE001 -- an unreadable font file covers nothing
            continue
    return frozenset(points)


def missing_glyphs(html: str) -> list[str]:
    """Return the distinct visible characters of ``html``'s text no installed font covers."""
    have = covered()
    if have is None:
        return []
    text = _TAG.sub(" ", html)
    chars = {ch for ch in text if ord(ch) > 0x7E and unicodedata.category(ch) not in _SKIP}
    return sorted(ch for ch in chars if ord(ch) not in have)


def glyph_warning(html: str) -> str | None:
    """Return a warning naming the characters the PDF will show as boxes, or None."""
    missing = missing_glyphs(html)
    if not missing:
        return None
    shown = ", ".join(f"{ch} (U+{ord(ch):04X})" for ch in missing[:SHOWN])
    more = f" and {len(missing) - SHOWN} more" if len(missing) > SHOWN else ""
    return (
        f"report.pdf: no installed font covers {len(missing)} character"
        f"{'s' if len(missing) > 1 else ''}, shown as empty boxes in the PDF: {shown}{more}. "
        "report.html and report.json hold them as written; for the PDF install fonts that "
        "cover them (Debian: fonts-noto-cjk for Chinese, Japanese, Korean; fonts-noto-color-emoji "
        "for emoji) and write the review again."
    )
