"""Python API of the portfolio feature: score many vendors and rank them.

``from assess import build_portfolio`` returns the model of `assess portfolio --json`; the CLI
calls it. Nothing here prints or exits.
"""

from __future__ import annotations

import glob
from collections.abc import Sequence
from pathlib import Path

from assess.kernel.errors import AssessError, InputError
from assess.portfolio.models import Portfolio, SkippedFile


def answer_files(answers: Sequence[str | Path]) -> tuple[list[str], list[SkippedFile]]:
    """Return the files ``answers`` name (a glob the shell left alone is expanded, sorted) and the
    patterns that matched nothing."""
    files: list[str] = []
    missing: list[SkippedFile] = []
    for item in answers:
        text = str(item)
        if Path(text).exists() or not glob.has_magic(text):
            files.append(text)
            continue
        matched = sorted(glob.glob(text))
        files += matched
        if not matched:
            missing.append(SkippedFile(file=text, error="the pattern matches no file"))
    return list(dict.fromkeys(files)), missing


def without_file_name(message: str, file: str) -> str:
    """The reason ``file`` was skipped, without the ``file:`` that starts each line of a reader's
    message: the skipped entry names the file already. ``file:2: ...`` becomes ``line 2: ...``."""
    return "\n".join(_line_without_file_name(line, f"{file}:") for line in message.splitlines())


def _line_without_file_name(line: str, prefix: str) -> str:
    if not line.startswith(prefix):
        return line
    rest = line[len(prefix) :]
    number, colon, after = rest.partition(":")
    if colon and number.isdigit():
        return f"line {number}:{after}"
    return rest.strip()


def build_portfolio(
    answers: Sequence[str | Path],
    *,
    previous: Sequence[str | Path] = (),
    generated_at: str | None = None,
) -> Portfolio:
    """Score every answers file (as `assess score` does) and rank the vendors, riskiest first.

    A file that cannot be scored is listed in ``skipped`` with its error and the others are still
    ranked. ``previous`` are earlier portfolios, scores or reviews (files or folders): each
    vendor's ``trend`` compares it with the latest of them. ``generated_at`` defaults to
    ``SOURCE_DATE_EPOCH`` or now.

    Raises:
        InputError: no file could be scored (the message names each and why); a ``previous``
            file that is missing or is not a portfolio, score or review.
        UsageError: SOURCE_DATE_EPOCH is not a number.
    """
    from assess.kernel.clock import generation_time
    from assess.portfolio.previous import load_previous
    from assess.portfolio.rank import Scored, rank, sections_of
    from assess.vendor.api import score_answers

    when = generated_at or generation_time()
    earlier = load_previous(Path(p) for p in previous)
    files, skipped = answer_files(answers)
    scored: list[Scored] = []
    for file in files:
        try:
            scored.append(Scored(file=file, result=score_answers(file)))
        except AssessError as exc:
            skipped.append(SkippedFile(file=file, error=without_file_name(exc.message, file)))
    if not scored:
        listing = "; ".join(f"{s.file}: {s.error}" for s in skipped) or "no file was given"
        raise InputError(
            f"portfolio: none of the {len(skipped)} answers files could be scored ({listing})",
            "Fix the files named above; `assess questionnaire validate FILE` shows every problem.",
        )
    rows = rank(scored, earlier)
    return Portfolio(
        generated_at=when,
        sections=sections_of(rows),
        vendors=rows,
        skipped=skipped,
        previous_files=earlier.names,
    )
