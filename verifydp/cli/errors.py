"""The command line's error contract: one line on stderr, never a traceback."""

from __future__ import annotations

__all__ = ["EXIT_INTERNAL", "EXIT_USAGE", "UsageError"]

EXIT_USAGE = 2
EXIT_INTERNAL = 1


class UsageError(Exception):
    """Bad input from the user: reported in one line, exit status 2."""
