"""Progress in a log and the check table's summary line (issue 27)."""

from __future__ import annotations

import io
import time

from verifydp.cli.main import verdict_counts
from verifydp.cli.progress import LogProgress, progress


def test_log_progress_prints_lines_while_a_step_runs() -> None:
    """A long step with no advance still gets lines: the thread prints every `every`
    seconds, with the current description, the count and the time elapsed."""
    out = io.StringIO()
    with LogProgress(every=0.05, stream=out) as bar:
        task = bar.add_task("checking", total=3)
        bar.update(task, description="done bun/thm2.2", advance=1)
        time.sleep(0.3)
    lines = out.getvalue().splitlines()
    assert len(lines) >= 2
    assert lines[-1].startswith("verifydp: done bun/thm2.2 (1/3, ")


def test_a_short_run_prints_nothing() -> None:
    out = io.StringIO()
    with LogProgress(every=30, stream=out) as bar:
        bar.advance(bar.add_task("checking", total=1))
    assert out.getvalue() == ""


def test_not_a_terminal_gets_log_lines_and_no_progress_gets_none() -> None:
    # under pytest stderr is captured, not a terminal
    assert isinstance(progress(False), LogProgress)
    assert not isinstance(progress(True), LogProgress)


def test_verdict_counts_line() -> None:
    rows = [{"verdict": v} for v in ("refuted", "holds-on-instance", "refuted", "inconclusive")]
    assert verdict_counts(rows) == "4 claims: 2 refuted, 1 holds-on-instance, 1 inconclusive"
