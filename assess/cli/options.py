"""One name per meaning across commands, and the old spellings kept for a release.

An old spelling is a hidden option of its own: it still works, prints a deprecation note on
stderr, and its value is merged into the new option's by :func:`either`. :data:`DEPRECATED` lists
them for the command reference (docs/reference.md).
"""

from __future__ import annotations

from typing import Any, TypeVar

import typer

from assess.kernel.errors import UsageError

T = TypeVar("T")

#: old spelling -> (the name to use instead, the command), for docs/reference.md
DEPRECATED: dict[str, tuple[str, str]] = {
    "--questionnaire / -q": ("--answers / -a", "report (the vendor's answers)"),
    "--from": ("--previous", "review new (an earlier review)"),
}


def note_deprecated(old: str, new: str) -> None:
    """Print on stderr that ``old`` is an old spelling of ``new``."""
    typer.echo(
        f"note: {old} is deprecated here, use {new} (the old spelling is removed in a later "
        "release)",
        err=True,
    )


def old_spelling(*names: str, new: str, metavar: str) -> Any:
    """Return a hidden option for the old ``names`` of ``new``: it says so on stderr when used."""

    def callback(ctx: typer.Context, param: typer.CallbackParam, value: Any) -> Any:
        if value is not None and not ctx.resilient_parsing:
            note_deprecated(names[0], new)
        return value

    return typer.Option(None, *names, hidden=True, metavar=metavar, callback=callback)


def either(new_value: T | None, old_value: T | None, new: str) -> T | None:
    """Return the value given under the new name or its old spelling (None: neither).

    Raises:
        UsageError: both spellings were given, with different values.
    """
    if new_value is not None and old_value is not None and new_value != old_value:
        raise UsageError(
            f"{new} was given twice, under its new and its old name, with different values",
            f"Give {new} once.",
        )
    return new_value if new_value is not None else old_value


def required(value: T | None, new: str) -> T:
    """Return ``value``, the value of the option ``new`` (or of its old spelling).

    Raises:
        UsageError: it was not given.
    """
    if value is None:
        raise UsageError(f"missing option {new}", f"Give {new} (see --help).")
    return value
