"""Server startup logs (SGLang, vLLM) -> :class:`~assess.models.deploy.ParsedServerLog`.

One parser per engine behind :class:`~assess.readers.serverlogs.interface.ServerLogParser`,
chosen from :data:`~assess.readers.serverlogs.registry.PARSERS`.
"""

from assess.readers.serverlogs.nodes import load_nodes, parse_node_spec
from assess.readers.serverlogs.registry import PARSERS, detect, parse_source
from assess.readers.serverlogs.source import LogSource, read_log

__all__ = [
    "PARSERS",
    "LogSource",
    "detect",
    "load_nodes",
    "parse_node_spec",
    "parse_source",
    "read_log",
]
