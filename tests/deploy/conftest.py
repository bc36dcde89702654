"""Helpers for the deploy-check tests: sample paths and parsing text in memory."""

from __future__ import annotations

import hashlib
from pathlib import Path

from assess.deploy.models import ParsedServerLog
from assess.deploy.serverlogs import parse_source
from assess.deploy.serverlogs.source import LogSource
from assess.kernel.common import InputFile
from tests.conftest import ASSETS, REPO

SAMPLES = REPO / "samples" / "serverlogs"
DEPLOY_ASSETS = ASSETS / "deploy"


def parse_text(text: str, name: str = "<test>") -> ParsedServerLog:
    """Parse ``text`` as if read from a file."""
    data = text.encode()
    info = InputFile(path=name, bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
    return parse_source(LogSource(name, info, text))


def sample(name: str) -> Path:
    """Return the path of a shipped sample log."""
    return SAMPLES / name
