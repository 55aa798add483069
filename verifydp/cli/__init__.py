"""`verifydp` command line: `main` dispatches to the sub-commands (docs/cli in the README)."""

import os
import sys

from verifydp.cli.errors import EXIT_INTERNAL, EXIT_USAGE, UsageError


def _start_up() -> None:
    """Before the engine's imports (issue 28): a deleted working directory fails inside
    them (hypothesis reads it at import), and a Ctrl-C during them printed a traceback."""
    try:
        os.getcwd()
    except OSError:
        print("verifydp: the current directory no longer exists (cd to one that does)",
              file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None


_start_up()
try:
    from verifydp.cli.main import main
except KeyboardInterrupt:  # Ctrl-C while the engine imports: one line, never a traceback
    print("verifydp: interrupted", file=sys.stderr)
    raise SystemExit(130) from None

__all__ = ["EXIT_INTERNAL", "EXIT_USAGE", "UsageError", "main"]
