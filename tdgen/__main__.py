"""``python3 -m tdgen``: run the CLI (``tdgen.cli``)."""

from .cli import entry

entry()
