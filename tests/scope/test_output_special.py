"""--json/--ids-csv onto a device or named pipe writes into it instead of replacing it.

As root, `assess scope ... --json /dev/null` used to rename a temporary file over /dev/null.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from assess.kernel import atomic


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_write_into_named_pipe_keeps_the_pipe(tmp_path: Path) -> None:
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        atomic.write_text(fifo, '{"kind": "assess.scope"}\n')
        assert stat.S_ISFIFO(os.stat(fifo).st_mode)
        assert os.read(reader, 1000) == b'{"kind": "assess.scope"}\n'
    finally:
        os.close(reader)
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]
