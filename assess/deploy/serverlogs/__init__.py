"""Server startup logs (SGLang, vLLM) -> :class:`~assess.deploy.models.ParsedServerLog`.

One parser per engine behind :class:`~assess.deploy.serverlogs.interface.ServerLogParser`,
chosen from :data:`~assess.deploy.serverlogs.registry.PARSERS`.
"""

from assess.deploy.serverlogs.nodes import load_nodes, parse_node_spec
from assess.deploy.serverlogs.registry import PARSERS, detect, parse_source
from assess.deploy.serverlogs.source import LogSource, read_log

__all__ = [
    "PARSERS",
    "LogSource",
    "detect",
    "load_nodes",
    "parse_node_spec",
    "parse_source",
    "read_log",
]
