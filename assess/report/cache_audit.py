"""The cache-isolation audits of the review (`assess probe --mode cache --json` given with
``--probe``): a tolerant view of the evidence, the section's model, and the chart of each
level's two distributions.

The chart draws the empirical distribution functions of the attacker's latency on hit trials and
on miss trials: the one-sided KS statistic D+ is the largest vertical gap where the hit curve
rises above the miss curve, marked on the chart. Inline SVG, drawn here (nothing fetched), so the
PDF renders it as the HTML does.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable

from markupsafe import Markup
from pydantic import Field

from assess.kernel.model import Model, View
from assess.probe.cache_models import cannot_compare

_HIT, _MISS, _GAP = "#c62828", "#2f5d8a", "#6b6b6b"
_FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"


_View = View  # a tolerant view of another command's document (assess/kernel/model.py)


class CacheLevel(_View):
    """One level of an audit as the review shows it (the evidence's keys, CONTRACTS.md)."""

    level: str
    victim: str = ""
    attacker: str = ""
    hit_ms: list[float] = Field(default_factory=list)
    miss_ms: list[float] = Field(default_factory=list)
    ks_statistic: float | None = None
    p_value: float | None = None
    p_method: str | None = None
    median_hit_ms: float | None = None
    median_miss_ms: float | None = None
    effect_ms: float | None = None
    hits_faster_than_fastest_miss: float | None = None
    ttft_p_value: float | None = None
    cached_tokens_seen: bool = False
    caching_visible: bool = False
    # read for `state`, not written to report.json (a review made before keeps its bytes)
    contaminated: bool = Field(default=False, exclude=True)
    inconclusive_reason: str | None = Field(default=None, exclude=True)
    power_note: str = ""

    @property
    def state(self) -> str:
        """The level's caching in words, as the console says it: "contaminated (misses
        already cached): cannot compare", "cannot compare", "caching visible" or "caching not
        visible"."""
        why = cannot_compare(self.contaminated, self.inconclusive_reason)
        return why or f"caching {'visible' if self.caching_visible else 'not visible'}"


class CacheSettingsView(_View):
    samples: int = 0
    prompt_tokens: int = 0
    alpha: float = 1e-8


class CacheRun(_View):
    """One cache-isolation audit (``kind: assess.cache-probe``)."""

    kind: str = "assess.cache-probe"
    run_id: str = ""
    endpoint: str = ""
    model: str = ""
    started_at: str | None = None
    complete: bool = True
    requests: int = 0
    settings: CacheSettingsView = CacheSettingsView()
    levels: list[CacheLevel] = Field(default_factory=list)
    verdict: str = "inconclusive"
    summary: str = ""
    scored: bool = Field(default=True, description="False: the scoring left this run out")
    not_scored: str = Field(default="", description="Why, in a few words")


class CacheAudits(Model):
    """The cache-isolation audits given (``assessed`` false when none was)."""

    assessed: bool = False
    runs: list[CacheRun] = Field(default_factory=list)


def _steps(values: list[float], scale: Callable[[float], float], y0: float, h: float) -> str:
    """Return the path of the empirical CDF of ``values`` (``scale`` maps ms to the chart)."""
    ordered = sorted(values)
    n = len(ordered)
    points = [f"M{scale(ordered[0]):.1f},{y0 + h:.1f}"]
    for i, v in enumerate(ordered):
        px = scale(v)
        points.append(f"L{px:.1f},{y0 + h - i / n * h:.1f}")
        points.append(f"L{px:.1f},{y0 + h - (i + 1) / n * h:.1f}")
    return " ".join(points)


def _ecdf(values: list[float], at: float) -> float:
    return sum(1 for v in values if v <= at) / len(values)


def _text(root: ET.Element, x: float, y: float, text: str, **attrs: str) -> None:
    node = ET.SubElement(root, "text", {"x": f"{x:.1f}", "y": f"{y:.1f}", "font-size": "10",
                                        "fill": attrs.pop("fill", "#222222"), **attrs})  # fmt: skip
    node.text = text


def distribution_chart(level: CacheLevel, width: int = 640, height: int = 170) -> Markup:
    """Return the hit and miss latency distributions of ``level`` (empirical CDFs), D+ marked."""
    root = ET.Element("svg", {
        "xmlns": "http://www.w3.org/2000/svg", "width": str(width), "height": str(height),
        "viewBox": f"0 0 {width} {height}", "role": "img", "font-family": _FONT,
        "aria-label": f"{level.level}: latency of hit and miss trials, cumulative"})  # fmt: skip
    left, right, top, plot_h = 44, width - 150, 10, height - 44
    if not level.hit_ms or not level.miss_ms:
        _text(root, width / 2, height / 2, "no samples in one arm", **{"text-anchor": "middle"})
        return Markup(ET.tostring(root, encoding="unicode"))
    everything = level.hit_ms + level.miss_ms
    low, high = min(everything), max(everything)
    span = (high - low) or 1.0

    def x(ms: float) -> float:
        return left + (ms - low) / span * (right - left)

    axis = {"stroke": "#222222", "stroke-width": "1"}
    ET.SubElement(root, "line", {"x1": str(left), "x2": str(right), "y1": str(top + plot_h),
                                 "y2": str(top + plot_h), **axis})  # fmt: skip
    ET.SubElement(root, "line", {"x1": str(left), "x2": str(left), "y1": str(top),
                                 "y2": str(top + plot_h), **axis})  # fmt: skip
    for share, y in ((0, top + plot_h), (1, top)):
        _text(root, left - 6, y + 4, f"{share:.0%}", **{"text-anchor": "end", "fill": "#6b6b6b"})
    for ms in (low, high):
        _text(root, x(ms), top + plot_h + 14, f"{ms:.1f} ms", **{"text-anchor": "middle"})
    for values, colour, name in ((level.hit_ms, _HIT, "hit"), (level.miss_ms, _MISS, "miss")):
        ET.SubElement(root, "path", {"d": _steps(values, x, top, plot_h), "fill": "none",
                                     "stroke": colour, "stroke-width": "1.6",
                                     "data-arm": name})  # fmt: skip
    # D+: the largest gap F_hit(t) - F_miss(t), at a sample point
    gap, at = max((_ecdf(level.hit_ms, t) - _ecdf(level.miss_ms, t), t) for t in everything)
    if gap > 0:
        y_hit = top + plot_h - _ecdf(level.hit_ms, at) * plot_h
        y_miss = top + plot_h - _ecdf(level.miss_ms, at) * plot_h
        ET.SubElement(root, "line", {"x1": f"{x(at):.1f}", "x2": f"{x(at):.1f}",
                                     "y1": f"{y_hit:.1f}", "y2": f"{y_miss:.1f}",
                                     "stroke": _GAP, "stroke-dasharray": "3 2"})  # fmt: skip
    legend = right + 12
    for row, (colour, text) in enumerate((
        (_HIT, f"hit ({len(level.hit_ms)}): median {level.median_hit_ms or 0:.1f} ms"),
        (_MISS, f"miss ({len(level.miss_ms)}): median {level.median_miss_ms or 0:.1f} ms"),
        (_GAP, f"D+ {level.ks_statistic or 0:.2f}, p {level.p_value or 1:.2g}"),
    )):  # fmt: skip
        _text(root, legend, top + 12 + row * 16, text, fill=colour)
    _text(root, left, height - 4, "attacker latency; share of trials at or below it",
          fill="#6b6b6b")  # fmt: skip
    return Markup(ET.tostring(root, encoding="unicode"))
