"""Charts as inline SVG, drawn by our own code (no JavaScript, nothing fetched).

Elements are built with :mod:`xml.etree.ElementTree`, which escapes every text and attribute, and
returned as :class:`markupsafe.Markup` so the autoescaping templates embed them unchanged.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from assess.report.models import DayRow, PoolBar

TIER_COLOURS = {
    "low": "#2e7d32",
    "medium": "#b7860b",
    "high": "#d35400",
    "critical": "#b71c1c",
}
_FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
_INK = "#222222"
_MUTED = "#6b6b6b"
_GRID = "#d9d9d9"
_BAR = "#2f5d8a"
_GAP = "#c62828"


def _svg(width: int, height: int, label: str) -> ET.Element:
    return ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "width": str(width),
            "height": str(height),
            "viewBox": f"0 0 {width} {height}",
            "role": "img",
            "aria-label": label,
            "font-family": _FONT,
        },
    )


def _text(parent: ET.Element, x: float, y: float, text: str, **attrs: str) -> None:
    node = ET.SubElement(
        parent,
        "text",
        {"x": f"{x:.1f}", "y": f"{y:.1f}", "font-size": "11", "fill": _INK, **attrs},
    )
    node.text = text


def _rect(parent: ET.Element, x: float, y: float, w: float, h: float, fill: str) -> None:
    ET.SubElement(
        parent,
        "rect",
        {
            "x": f"{x:.1f}",
            "y": f"{y:.1f}",
            "width": f"{max(w, 0):.1f}",
            "height": f"{h:.1f}",
            "fill": fill,
        },
    )


def _done(root: ET.Element) -> Markup:
    return Markup(ET.tostring(root, encoding="unicode"))


def tier_band(tier: str, score: int, width: int = 640) -> Markup:
    """Return the four tiers as a colour band, the vendor's tier highlighted, score marked."""
    root = _svg(width, 58, f"Risk tier {tier}, score {score} of 100")
    tiers = list(TIER_COLOURS)
    seg = width / len(tiers)
    for index, name in enumerate(tiers):
        current = name == tier
        _rect(root, index * seg + 1, 18, seg - 2, 22, TIER_COLOURS[name])
        if not current:
            _rect(root, index * seg + 1, 18, seg - 2, 22, "#ffffff")
            ET.SubElement(
                root,
                "rect",
                {
                    "x": f"{index * seg + 1:.1f}",
                    "y": "18",
                    "width": f"{seg - 2:.1f}",
                    "height": "22",
                    "fill": TIER_COLOURS[name],
                    "fill-opacity": "0.18",
                },
            )
        _text(
            root,
            index * seg + seg / 2,
            33.5,
            name.upper(),
            **{
                "text-anchor": "middle",
                "font-weight": "bold" if current else "normal",
                "fill": "#ffffff" if current else _MUTED,
            },
        )
    marker = min(max(score / 100 * width, 7), width - 7)
    ET.SubElement(
        root,
        "path",
        {"d": f"M{marker - 6:.1f},4 L{marker + 6:.1f},4 L{marker:.1f},15 Z", "fill": _INK},
    )
    _text(
        root,
        min(max(marker, 40), width - 40),
        54,
        f"score {score} / 100",
        **{"text-anchor": "middle", "fill": _MUTED, "font-size": "10"},
    )
    return _done(root)


@dataclass(frozen=True)
class _Plot:
    """Where the plot area of a chart lies: its left and right edges, top and height, and the
    value at its top."""

    left: float
    right: float
    top: float
    height: float
    top_value: int

    def y(self, value: float) -> float:
        return self.top + self.height - value / self.top_value * self.height


def _hline(root: ET.Element, plot: _Plot, y: str, colour: str) -> None:
    ET.SubElement(
        root,
        "line",
        {
            "x1": str(plot.left),
            "x2": str(plot.right),
            "y1": y,
            "y2": y,
            "stroke": colour,
            "stroke-width": "1",
        },
    )


def per_day_chart(rows: Sequence[DayRow], width: int = 640, height: int = 190) -> Markup:
    """Return a bar chart of requests per UTC day (every day of the window, zeros included)."""
    root = _svg(width, height, "Affected requests per day (UTC)")
    left, right, top, bottom = 40, 10, 16, 34
    ticks = _ticks(max((r.requests for r in rows), default=0))
    plot = _Plot(left, width - right, top, height - top - bottom, ticks[-1] if ticks else 1)
    for tick in ticks:
        y = plot.y(tick)
        _hline(root, plot, f"{y:.1f}", _GRID)
        muted = {"text-anchor": "end", "fill": _MUTED, "font-size": "10"}
        _text(root, left - 6, y + 4, f"{tick:,}", **muted)
    if not rows:
        middle = {"text-anchor": "middle", "fill": _MUTED}
        _text(root, width / 2, height / 2, "no requests in the window", **middle)
        return _done(root)
    _day_bars(root, rows, plot, height - bottom + 14)
    _hline(root, plot, str(top + plot.height), _INK)
    span = f"{rows[0].date} .. {rows[-1].date} (UTC)"
    _text(root, left, height - 4, span, **{"fill": _MUTED, "font-size": "9"})
    return _done(root)


def _day_bars(root: ET.Element, rows: Sequence[DayRow], plot: _Plot, label_y: float) -> None:
    """One bar per day with its count above it, and every n-th day's date below the axis."""
    slot = (plot.right - plot.left) / len(rows)
    every = max(1, round(len(rows) / 14))
    base = plot.top + plot.height
    for index, row in enumerate(rows):
        x = plot.left + index * slot
        h = row.requests / plot.top_value * plot.height
        _rect(root, x + slot * 0.15, base - h, slot * 0.7, h, _BAR)
        if row.requests:
            count = {"text-anchor": "middle", "font-size": "9"}
            _text(root, x + slot / 2, base - h - 3, f"{row.requests:,}", **count)
        if index % every == 0:
            date = {"text-anchor": "middle", "fill": _MUTED, "font-size": "9"}
            _text(root, x + slot / 2, label_y, row.date[5:], **date)


def _ticks(peak: int) -> list[int]:
    """Return 0 and up to four round gridline values (1, 2, 5 x 10^n apart) covering ``peak``."""
    if peak <= 0:
        return [0, 1]
    magnitude = 1
    while True:
        for base in (1, 2, 5):
            step = base * magnitude
            if peak <= step * 4:
                top = -(-peak // step) * step
                return list(range(0, top + 1, step))
        magnitude *= 10


def pool_chart(advertised: int | None, pools: Sequence[PoolBar], width: int = 640) -> Markup:
    """Return KV pool tokens per role against the advertised context, the unbacked part red."""
    rows = len(pools) + 1
    height = 22 + rows * 34
    root = _svg(width, height, "KV pool tokens against the advertised context window")
    label_w, right = 110, 170
    bar_w = width - label_w - right
    scale = max([advertised or 0, *(p.pool_tokens for p in pools)]) or 1
    y = 10.0
    if advertised:
        _text(root, 0, y + 14, "advertised context", **{"font-size": "10"})
        _rect(root, label_w, y, advertised / scale * bar_w, 20, "#8a8a8a")
        _text(
            root,
            label_w + advertised / scale * bar_w + 6,
            y + 14,
            f"{advertised:,} tokens",
            **{"font-size": "10"},
        )
        y += 34
    for pool in pools:
        _text(root, 0, y + 14, f"{pool.role} pool", **{"font-size": "10"})
        pool_w = pool.pool_tokens / scale * bar_w
        _rect(root, label_w, y, pool_w, 20, _BAR)
        if advertised and pool.pool_tokens < advertised:
            gap_w = (advertised - pool.pool_tokens) / scale * bar_w
            ET.SubElement(
                root,
                "rect",
                {
                    "x": f"{label_w + pool_w:.1f}",
                    "y": f"{y:.1f}",
                    "width": f"{gap_w:.1f}",
                    "height": "20",
                    "fill": _GAP,
                    "fill-opacity": "0.22",
                    "stroke": _GAP,
                    "stroke-dasharray": "4 3",
                    "stroke-width": "1",
                },
            )
        end = label_w + max(pool_w, (advertised or 0) / scale * bar_w)
        _text(root, end + 6, y + 14, f"{pool.pool_tokens:,} tokens", **{"font-size": "10"})
        if advertised and pool.pool_tokens < advertised:
            _text(
                root,
                end + 6,
                y + 26,
                f"{pool.unbacked_share:.0%} of the window unbacked",
                **{"fill": _GAP, "font-size": "9", "font-weight": "bold"},
            )
        y += 34
    return _done(root)
