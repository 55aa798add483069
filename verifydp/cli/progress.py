"""Progress on stderr: rich's live bar on a terminal, plain lines in a log (issue 27).

A bar is redrawn in place, which a log or a CI capture cannot show, so when stderr is not a
terminal the commands print a line instead, at least every `EVERY_S` seconds while work goes
on (a check of the catalogue or a deployment audit runs for minutes; silence in a log reads
as a hang). A command that finishes sooner prints nothing. Both kinds take the calls the
commands make on rich's `Progress`: `add_task`, `update(task, description=, advance=)`,
`advance`.
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import Any, TextIO

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

EVERY_S = 10.0


class LogProgress:
    """Plain progress lines for a log: `verifydp: <description> (done/total, 1m20s)`,
    printed every `every` seconds by a daemon thread, so a single long step is covered too."""

    def __init__(self, every: float = EVERY_S, stream: TextIO | None = None) -> None:
        self.every = every
        self.stream = stream if stream is not None else sys.stderr
        self._lock = threading.Lock()
        self._tasks: list[dict[str, Any]] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._t0 = time.monotonic()

    def add_task(self, description: str, total: float | None = None) -> int:
        with self._lock:
            self._tasks.append({"description": description, "total": total, "completed": 0})
            return len(self._tasks) - 1

    def update(self, task: int, description: str | None = None, advance: float = 0) -> None:
        with self._lock:
            if description is not None:
                self._tasks[task]["description"] = description
            self._tasks[task]["completed"] += advance

    def advance(self, task: int, advance: float = 1) -> None:
        self.update(task, advance=advance)

    def line(self) -> str:
        """The line printed now: each task's description, count and the time elapsed."""
        with self._lock:
            parts = []
            for t in self._tasks:
                count = (f"{int(t['completed'])}/{int(t['total'])}, " if t["total"] else "")
                parts.append(f"{t['description']} ({count}{_elapsed(time.monotonic() - self._t0)})")
        return "verifydp: " + "; ".join(parts)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                print(self.line(), file=self.stream, flush=True)
            except (OSError, ValueError):  # the stream went away: progress is best effort
                return

    def __enter__(self) -> LogProgress:
        self._t0 = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="verifydp-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, typ: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1)


def _elapsed(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    return f"{m}m{s:02d}s" if m else f"{s}s"


def progress(disabled: bool, *columns: Any) -> Progress | LogProgress:
    """rich's bar on a terminal; plain lines every `EVERY_S` seconds when stderr is not one;
    nothing when `disabled` (--no-progress). Columns default to description, bar, elapsed."""
    if not disabled and not sys.stderr.isatty():
        return LogProgress()
    cols = columns or (TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn())
    return Progress(*cols, console=Console(stderr=True), disable=disabled, transient=True)
