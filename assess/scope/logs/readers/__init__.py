"""One reader per log file format behind a registry (``registry.READERS``); see ``base.py``."""
