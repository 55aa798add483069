"""`verifydp` command line: `main` dispatches to the sub-commands (docs/cli in the README)."""

from verifydp.cli.errors import EXIT_INTERNAL, EXIT_USAGE, UsageError
from verifydp.cli.main import main

__all__ = ["EXIT_INTERNAL", "EXIT_USAGE", "UsageError", "main"]
