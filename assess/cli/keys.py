"""CLI for `assess keys new`: an Ed25519 key pair to sign review bundles with."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from assess.kernel.errors import UsageError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

NEW_HELP = (
    "Write a new Ed25519 key pair to sign reviews with: NAME.key (the private key, PEM PKCS#8, "
    "file mode 0600) and NAME.pub (the public key, PEM, to give to whoever checks a review). "
    "Neither file is ever replaced.\n\n"
    "The private key is encrypted with a passphrase when --passphrase-env names an environment "
    "variable holding one, or with --passphrase (asked at a prompt, twice). A passphrase is "
    "never taken on the command line, where the shell history and `ps` would show it.\n\n"
    "Example: assess keys new committee --passphrase"
)


def read_passphrase(env: str | None, prompt: bool, confirm: bool = False) -> bytes | None:
    """Return the passphrase from the environment variable ``env``, or asked at a prompt when
    ``prompt``; None when neither.

    Raises:
        UsageError: ``env`` names a variable that is unset or empty.
    """
    if env is not None:
        value = os.environ.get(env, "")
        if not value:
            raise UsageError(
                f"--passphrase-env {env}: the variable is not set or empty",
                f"Set it (e.g. `read -rs {env} && export {env}`) or drop --passphrase-env.",
            )
        return value.encode("utf-8")
    if prompt:
        text: str = typer.prompt(
            "Passphrase", hide_input=True, confirmation_prompt=confirm, err=True
        )
        return text.encode("utf-8") if text else None
    return None


def load_signing_key(path: Path, passphrase_env: str | None) -> Ed25519PrivateKey:
    """Return the private key at ``path``, asking for the passphrase at a
    prompt when the key is encrypted and ``passphrase_env`` is not given.

    Raises:
        InputError: not a key, or a wrong passphrase.
    """
    from assess.report.signing import load_private_key, private_key_is_encrypted

    encrypted = private_key_is_encrypted(path)
    secret = read_passphrase(passphrase_env, prompt=encrypted) if encrypted else None
    return load_private_key(path, secret)


PASSPHRASE_ENV = typer.Option(
    None,
    "--passphrase-env",
    metavar="VAR",
    help="Read the key's passphrase from this environment variable.",
)


def register(app: typer.Typer) -> None:
    """Add the `keys` command group to ``app``."""
    group = typer.Typer(
        rich_markup_mode=None,  # plain help: typer.rich_utils costs a third of --help CPU
        name="keys",
        help="Keys that sign review bundles (Ed25519).",
        no_args_is_help=True,
    )

    @group.command("new", help=NEW_HELP)
    def new_cmd(
        name: Path = typer.Argument(..., metavar="NAME", help="Writes NAME.key and NAME.pub."),
        passphrase_env: str | None = PASSPHRASE_ENV,
        passphrase: bool = typer.Option(
            False, "--passphrase", help="Ask for a passphrase at a prompt (twice)."
        ),
    ) -> None:
        """Write a key pair (see NEW_HELP)."""
        from assess.report.signing import new_key_pair

        secret = read_passphrase(passphrase_env, prompt=passphrase, confirm=True)
        private, public = Path(f"{name}.key"), Path(f"{name}.pub")
        keyid = new_key_pair(private, public, secret)
        typer.echo(f"Wrote {private} (private key, mode 0600, "
                   f"{'encrypted' if secret else 'NOT encrypted: keep it safe'})")  # fmt: skip
        typer.echo(f"Wrote {public} (public key, keyid {keyid})")
        typer.echo(f"Sign: assess report ... --sign {private}; check: assess verify DIR "
                   f"--key {public}")  # fmt: skip

    app.add_typer(group)
