"""assess: judge hosted-LLM vendors and scope exposure when one has an incident."""

__version__ = "0.1.0"
