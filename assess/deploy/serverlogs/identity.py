"""What a startup log is about: the models it serves and the time it covers (for evidence binding).

`assess score` ties a deploy-check to the vendor assessed by these: the model names are compared
with the vendor's ``vendor.models``, the dates with the answers' date. Both engines' formats:

- SGLang's ``configure_logger`` (python/sglang/srt/utils.py, later utils/common.py):
  ``logging.basicConfig(format=f"[%(asctime)s{prefix}] %(message)s", datefmt="%Y-%m-%d
  %H:%M:%S")`` (newer builds drop datefmt: Python's default adds ",mmm"): "[2025-11-04 05:27:13
  DP0 TP0 EP0] KV Cache is allocated..." (sgl-project/sglang#21395 and others);
- vLLM's ``_FORMAT = "%(levelname)s %(asctime)s [%(fileinfo)s:%(lineno)d] %(message)s"`` with
  ``_DATE_FORMAT = "%m-%d %H:%M:%S"`` (vllm/logger.py): "(APIServer pid=1) INFO 10-14 11:02:36
  [api_server.py:1839] ..." -- no year, so such a log is *undated*: its month-day range is shown
  but never compared with a date;
- ``kubectl logs --timestamps`` and log shippers prefix RFC 3339 times ("2026-10-02T11:02:31.12Z").

Model names: SGLang's ``server_args=ServerArgs(model_path='...', served_model_name='...')``, vLLM's
engine line "with config: model='...', ..., served_model_name=Qwen/Qwen3-30B-A3B, ..." (e.g.
vllm-project/vllm#24162), read by the parsers into ``settings`` (``model``, ``served_model_name``).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable

from assess.deploy.models import LogPeriod, Scalar
from assess.deploy.serverlogs.text import LogText

# A timestamp counts only near the start of a line (within a prefix such as "(APIServer pid=1) "
# or "[pod/x] "), so a date quoted inside a message (a build date, a paste) is not taken.
_DATED = re.compile(
    r"^[^\n]{0,60}?(?<![\d-])(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?![\d])", re.M
)
_YEARLESS = re.compile(
    r"^[^\n]{0,60}?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)[ \t]+(\d\d)-(\d\d)[ \t]+"
    r"(\d\d):(\d\d):(\d\d)(?![\d])",
    re.M,
)
#: settings keys holding what a node serves, most specific first
MODEL_SETTINGS = ("served_model_name", "model")


def _dated(log: LogText) -> list[str]:
    out = []
    for m in _DATED.finditer(log.text):
        try:
            year, month, day, hh, mm, ss = (int(g) for g in m.groups())
            stamp = dt.datetime(year, month, day, hh, mm, ss)
        except ValueError:
            continue  # 2026-13-45: not a date
        out.append(stamp.isoformat())
    return out


def _yearless(log: LogText) -> list[str]:
    out = []
    for m in _YEARLESS.finditer(log.text):
        month, day, hh, mm, ss = (int(g) for g in m.groups())
        if 1 <= month <= 12 and 1 <= day <= 31 and hh < 24 and mm < 60 and ss < 62:
            out.append(f"{month:02d}-{day:02d} {hh:02d}:{mm:02d}:{ss:02d}")
    return out


def log_period(log: LogText) -> LogPeriod | None:
    """Return the first and last timestamp of ``log``, dated when the year is printed.

    Dated timestamps (with a year) win over month-day ones when a log has both; None when it has
    neither.
    """
    for stamps, dated in ((_dated(log), True), (_yearless(log), False)):
        if stamps:
            return LogPeriod(start=min(stamps), end=max(stamps), dated=dated)
    return None


def models_named(settings: dict[str, Scalar]) -> list[str]:
    """Return the model names a node's settings hold (served name first), without repeats."""
    names = [settings.get(key) for key in MODEL_SETTINGS]
    return list(dict.fromkeys(n.strip() for n in names if isinstance(n, str) and n.strip()))


def union_period(periods: Iterable[LogPeriod | None]) -> LogPeriod | None:
    """Return the span of several logs' periods: the dated ones if any is dated, else the rest."""
    known = [p for p in periods if p is not None]
    chosen = [p for p in known if p.dated] or known
    if not chosen:
        return None
    return LogPeriod(
        start=min(p.start for p in chosen), end=max(p.end for p in chosen), dated=chosen[0].dated
    )
