"""Allow ``python -m assess``."""

from assess.cli import main

main()
