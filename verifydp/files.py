"""Reading a file the user names, bounded (issue 28): `/dev/zero` would be read forever and
a FIFO without a writer blocks in open, so only regular files are read, non-blocking, and
never more than a limit, whatever stat said. Each caller words its own one-line refusal."""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["NotRegular", "TooLarge", "read_bounded"]


class NotRegular(ValueError):
    """The path is not a regular file (a device, a FIFO, a directory)."""


class TooLarge(ValueError):
    """The file holds more than the limit."""


def read_bounded(path: Path, limit: int) -> bytes:
    """At most `limit` bytes of the regular file `path` (OSError propagates)."""
    if not stat.S_ISREG(path.stat().st_mode):
        raise NotRegular(str(path))
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as fh:
        raw = fh.read(limit + 1)
    if len(raw) > limit:
        raise TooLarge(str(path))
    return raw
