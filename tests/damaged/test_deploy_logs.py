"""deploy-check on damaged and special inputs: cut gzip streams, trailing junk, named pipes."""

from __future__ import annotations

import gzip
import os
import threading
import zlib
from pathlib import Path

import pytest

from assess.deploy.serverlogs.source import read_log

# startup lines only (request-traffic lines are dropped while reading, by design)
BODY = b"".join(
    f"(EngineCore_DP0 pid=7) INFO 10-03 16:22:{i % 60:02d} [core.py:{i}] step {i}\n".encode()
    for i in range(3000)
)


def _complete_lines_in(prefix: bytes) -> list[bytes]:
    """Return the complete lines a partial gzip stream holds (zlib as the reference)."""
    text = zlib.decompressobj(wbits=31).decompress(prefix)
    return text.split(b"\n")[:-1]


@pytest.mark.parametrize("fraction", [0.3, 0.5, 0.9])
def test_a_cut_gzip_log_keeps_every_complete_line(tmp_path: Path, fraction: float) -> None:
    data = gzip.compress(BODY)
    cut = data[: int(len(data) * fraction)]
    path = tmp_path / "cut.log.gz"
    path.write_bytes(cut)
    source = read_log(str(path))
    want = _complete_lines_in(cut)
    assert source.text.split("\n")[:-1] == [line.decode() for line in want]
    assert any("ends early (truncated)" in note for note in source.notes)
    assert any("cut last line was dropped" in note for note in source.notes)


def test_junk_after_a_gzip_member_is_reported_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "junk.log.gz"
    path.write_bytes(gzip.compress(BODY) + b"\x00garbage bytes")
    source = read_log(str(path))
    assert source.text == BODY.decode()
    assert any("are not gzip (ignored)" in note for note in source.notes)


def test_two_gzip_members_are_both_read(tmp_path: Path) -> None:
    path = tmp_path / "two.log.gz"
    path.write_bytes(gzip.compress(b"first line\n") + gzip.compress(b"second line\n"))
    assert read_log(str(path)).text == "first line\nsecond line\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_is_read_once_and_does_not_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "startup.log"
    os.mkfifo(fifo)
    body = BODY

    def write() -> None:
        with open(fifo, "wb") as handle:
            handle.write(body)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    source = read_log(str(fifo))
    writer.join(timeout=10)
    assert not writer.is_alive()
    assert source.text == body.decode()
    assert source.input_file.bytes == len(body)
