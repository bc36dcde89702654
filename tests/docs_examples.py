"""Run the console examples of the README and the docs as written, and compare what they print.

A console example is a fenced ``console`` block whose first line is a prompt (``$ ``). Each
``$ `` line is a command, run by bash in one folder per block (so a file one command writes, the
next reads), with ``assess`` and ``python`` on the PATH, ``COLUMNS=80`` and no terminal. The lines
up to the next prompt are what it prints (stdout and stderr as one stream). In the expected text a
line ``...`` stands for any number of lines, a line ending in ``...`` for any line starting with
what comes before, and a ``…`` (one character, U+2026) within a line for any text (a figure that
changes from run to run, such as a timing). ``$ cat FILE`` of a file that does not exist yet
writes the shown text to it (a page shows the file it then uses). A block right after a line
``<!-- example: not run (why) -->`` is not run (a server, the network, a background job).

A lab is the one background job a run block may have: ``$ assess lab serve ... --port N --quiet
&`` is started by the runner itself (on 127.0.0.1, on a free port: ``127.0.0.1:N`` in the
block's commands is sent to that port, and the real port is shown as ``N`` in what they print)
before the block's commands and stopped with SIGTERM after them; what it printed until then is
its command's output, and its ``lab: stopped`` the output of the block's ``$ kill %1``. One lab
per block, with ``--quiet`` (its request log would interleave with other commands' output).
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

NOT_RUN = "<!-- example: not run"
_CAT = re.compile(r"^cat (\S+)$")
_LAB = re.compile(r"^assess lab serve (.*)&$")
_KILL = re.compile(r"^kill %1$")
_ANY = "\u2026"  # … within an expected line: any text


@dataclass(frozen=True)
class Command:
    """One ``$ `` command and the lines the page shows under it."""

    text: str
    expected: tuple[str, ...]
    raw: tuple[str, ...] = ()  # the command's lines as the page writes them


@dataclass(frozen=True)
class Block:
    """A console block: where it is, and its commands in order."""

    page: str
    line: int
    commands: tuple[Command, ...]

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"


def _commands(body: list[str]) -> tuple[Command, ...]:
    commands: list[Command] = []
    text: list[str] = []
    raw: list[str] = []
    out: list[str] = []
    for line in body:
        continued = bool(text) and not out and (_open("\n".join(text)) or line.startswith("> "))
        if line.startswith("$ "):
            if text:
                commands.append(Command("\n".join(text), tuple(out), tuple(raw)))
            text, raw, out = [line[2:]], [line], []
        elif continued:
            text.append(line[2:] if line.startswith("> ") else line)
            raw.append(line)
        else:
            out.append(line)
    if text:
        commands.append(Command("\n".join(text), tuple(out), tuple(raw)))
    return tuple(commands)


def _open(command: str) -> bool:
    """True when ``command`` goes on on the next line (a trailing backslash, an open quote)."""
    if command.endswith("\\"):
        return True
    try:
        shlex.split(command)
    except ValueError:  # no closing quotation
        return True
    return False


def examples(page: Path) -> list[Block]:
    """Return the console examples of ``page`` that are run (see the module's docstring)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        if lines[index].strip() == "```console":
            end = next(j for j in range(index + 1, len(lines)) if lines[j].strip() == "```")
            body = lines[index + 1 : end]
            skipped = index > 0 and lines[index - 1].startswith(NOT_RUN)
            if body and body[0].startswith("$ ") and not skipped:
                blocks.append(Block(page.name, index + 1, _commands(body)))
            index = end
        index += 1
    return blocks


def _matches(expected: tuple[str, ...], actual: tuple[str, ...]) -> bool:
    @cache
    def match(i: int, j: int) -> bool:
        if i == len(expected):
            return j == len(actual)
        want = expected[i]
        if want.strip() == "...":
            return match(i + 1, j) or (j < len(actual) and match(i, j + 1))
        if j == len(actual):
            return False
        if want.endswith("...") and actual[j].startswith(want[:-3]):
            return match(i + 1, j + 1)
        if _ANY in want:
            pattern = ".*".join(re.escape(part) for part in want.split(_ANY))
            return re.fullmatch(pattern, actual[j]) is not None and match(i + 1, j + 1)
        return want == actual[j] and match(i + 1, j + 1)

    return match(0, 0)


def _lines(text: str | tuple[str, ...]) -> tuple[str, ...]:
    lines = [line.rstrip() for line in (text.splitlines() if isinstance(text, str) else text)]
    while lines and not lines[-1]:
        lines.pop()
    return tuple(lines)


def _bin() -> Path:
    """A folder with ``assess`` (this interpreter's ``-m assess``) and ``python``."""
    folder = Path(tempfile.mkdtemp(prefix="assess-docs-bin-"))
    (folder / "assess").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m assess "$@"\n')
    (folder / "assess").chmod(0o755)
    # a script, not a symlink: a venv's interpreter finds its venv from where it is called
    (folder / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (folder / "python").chmod(0o755)
    return folder


_MARK = "@@docs-example-{}@@"
_SPLIT = re.compile(r"\n?@@docs-example-\d+@@\n")


def _script(texts: list[str]) -> str:
    """One bash script for the block's commands: stderr into stdout, a mark after each command
    (keeping its exit status for a following ``echo $?``)."""
    parts = ["exec 2>&1"]
    for number, text in enumerate(texts):
        parts += [text, f"__s=$?; printf '\\n{_MARK.format(number)}\\n'; (exit $__s)"]
    return "\n".join(parts) + "\n"


def lab_command(text: str) -> list[str] | None:
    """Return the options of an ``assess lab serve ... &`` command the runner starts, or None."""
    found = _LAB.match(text.strip())
    return shlex.split(found.group(1)) if found else None


class _Lab:
    """The block's lab, started on a free port before its commands (see the module docstring)."""

    def __init__(self, options: list[str], cwd: Path, environ: dict[str, str]) -> None:
        args = list(options)
        if "--port" in args:
            at = args.index("--port") + 1
            self.page_port, args[at] = args[at], "0"
        else:
            self.page_port, args = "8000", [*args, "--port", "0"]
        assess = str(Path(environ["PATH"].split(os.pathsep)[0]) / "assess")
        self.process = subprocess.Popen(
            [assess, "lab", "serve", *args], cwd=cwd, env=environ, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip
        assert self.process.stdout is not None
        self.first = self.process.stdout.readline()
        found = re.match(r"LAB_BASE_URL=http://127\.0\.0\.1:(\d+)/", self.first)
        self.port = found.group(1) if found else self.page_port

    def to_real(self, text: str) -> str:
        return text.replace(f"127.0.0.1:{self.page_port}", f"127.0.0.1:{self.port}")

    def to_page(self, text: str) -> str:
        return text.replace(f"127.0.0.1:{self.port}", f"127.0.0.1:{self.page_port}")

    def stop(self) -> tuple[str, str]:
        """Stop the lab; return (what it printed before, its ``lab: stopped``)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        assert self.process.stdout is not None
        # read() keeps what readline() buffered (communicate(timeout=...) would lose it)
        rest = self.process.stdout.read()
        self.process.stdout.close()
        self.process.wait(timeout=60)
        before, stopped, after = self.to_page(self.first + rest).partition("lab: stopped")
        return before, stopped + after


def run_block(block: Block, cwd: Path, env: dict[str, str] | None = None) -> list[str]:
    """Run ``block``'s commands in ``cwd``; return a message per command whose output differs."""
    outputs = block_outputs(block, cwd, env)
    problems: list[str] = []
    for command, actual in zip(block.commands, outputs, strict=True):
        expected = _lines(command.expected)
        if not _matches(expected, actual):
            problems.append(
                f"{block.name}: $ {command.text}\n--- the page shows:\n"
                + "\n".join(expected)
                + "\n--- it prints:\n"
                + "\n".join(actual)
            )
    return problems


def block_outputs(
    block: Block, cwd: Path, env: dict[str, str] | None = None
) -> list[tuple[str, ...]]:
    """Run ``block`` in ``cwd`` (one bash) and return what each command printed."""
    environ = {
        k: v for k, v in os.environ.items() if k not in ("ASSESS_API_KEY", "SOURCE_DATE_EPOCH")
    }
    environ.update({"COLUMNS": "80", "LINES": "50", "TERM": "dumb", **(env or {})})
    environ["PATH"] = f"{_bin()}{os.pathsep}{environ.get('PATH', '')}"
    for command in block.commands:  # a file the page shows with `cat` before using it
        cat = _CAT.match(command.text)
        if cat and not (cwd / cat.group(1)).exists():
            (cwd / cat.group(1)).write_text("\n".join(command.expected) + "\n", encoding="utf-8")
    serve = [i for i, c in enumerate(block.commands) if lab_command(c.text) is not None]
    if not serve:
        return _run_script([c.text for c in block.commands], cwd, environ)
    lab = _Lab(lab_command(block.commands[serve[0]].text) or [], cwd, environ)
    try:
        texts = [":" if i == serve[0] or _KILL.match(c.text.strip()) else lab.to_real(c.text)
                 for i, c in enumerate(block.commands)]  # fmt: skip
        outputs = [tuple(lab.to_page(line) for line in out)
                   for out in _run_script(texts, cwd, environ)]  # fmt: skip
    finally:
        before, stopped = lab.stop()
    outputs[serve[0]] = _lines(before)
    for i, command in enumerate(block.commands):
        if _KILL.match(command.text.strip()):
            outputs[i] = _lines(stopped)
    return outputs


def _run_script(texts: list[str], cwd: Path, environ: dict[str, str]) -> list[tuple[str, ...]]:
    done = subprocess.run(
        ["bash", "-c", _script(texts)],
        cwd=cwd,
        env=environ,
        stdout=subprocess.PIPE,
        text=True,
        timeout=900,
        check=False,
    )
    pieces = [_lines(piece) for piece in _SPLIT.split(done.stdout)[: len(texts)]]
    return pieces + [()] * (len(texts) - len(pieces))


def update_page(page: Path, cwd_for: object) -> int:
    """Write each run example's real output into ``page`` (commands whose shown output has no
    ``...`` elision); ``cwd_for(block)`` gives a fresh folder per block. Returns the number of
    commands whose output changed."""
    lines = page.read_text(encoding="utf-8").splitlines()
    changed = 0
    for block in reversed(examples(page)):
        outputs = block_outputs(block, cwd_for(block))  # type: ignore[operator]
        body: list[str] = []
        for command, actual in zip(block.commands, outputs, strict=True):
            expected = _lines(command.expected)
            keep = any(
                line.strip() == "..." or line.endswith("...") or _ANY in line for line in expected
            )
            shown = expected if keep or _matches(expected, actual) else actual
            changed += shown != expected
            body += [*command.raw, *shown]
        end = next(j for j in range(block.line, len(lines)) if lines[j].strip() == "```")
        lines[block.line : end] = body
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return changed


def main(argv: list[str]) -> int:
    """``python -m tests.docs_examples PAGE...``: write the real output into the pages' examples
    (run from the repository's top; each block in a fresh folder holding a copy of samples/)."""
    import shutil

    repo = Path(__file__).resolve().parent.parent

    def fresh(block: Block) -> Path:
        folder = Path(tempfile.mkdtemp(prefix="assess-docs-"))
        shutil.copytree(repo / "samples", folder / "samples")
        return folder

    for name in argv:
        print(f"{name}: {update_page(Path(name), fresh)} command(s) updated")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
