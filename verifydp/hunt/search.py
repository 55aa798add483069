"""One claim's search: hypothesis explores its space, `target` climbs the margin, and the
first certified violation is shrunk to a minimal one.

`hypothesis.find` drives both phases: generation (with targeting) until an example satisfies
"the claim's checker refutes it", then shrinking, during which every refuted example is
re-certified by the checker.  The smallest refuted example seen so far is handed to
`on_witness` as soon as it is found, so an interrupted search never loses it.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import math
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from random import Random
from types import SimpleNamespace
from typing import Any

from hypothesis import HealthCheck, Phase, find, settings, target
from hypothesis.errors import Flaky, NoSuchExample

from verifydp.claims.base import InstanceResult, Verdict
from verifydp.hunt.spaces import HuntSpace
from verifydp.witness import witness_order


class _TimeUp(BaseException):
    """Raised inside the search when its time slice is over (BaseException: hypothesis must
    not treat it as a failing example)."""


@dataclass
class SearchOutcome:
    tries: int = 0
    best_margin: float = -math.inf
    first_found_s: float | None = None
    first_size: int | None = None
    best: tuple[int, dict[str, Any], InstanceResult] | None = None  # (size, params, result)
    best_order: tuple[int, int, str] = (0, 0, "")  # `witness_order` of best's witness
    shrink_steps: int = 0

    @property
    def found(self) -> bool:
        return self.best is not None


_TICK = 0.25


@contextlib.contextmanager
def hard_stop(stop: list[float]) -> Iterator[None]:
    """Raise _TimeUp at stop[0], and KeyboardInterrupt on Ctrl-C, wherever the search is (main
    thread, POSIX only).

    `refuted` checks the time on every evaluation, but hypothesis's target phase can spend
    minutes on draws that never reach it (overruns, cache replays), so a timer enforces the
    slice; it re-arms itself while stop[0] moves (the shrinking allowance).  An exception
    raised while a finaliser or gc callback runs is dropped by Python, so both are raised
    again on every tick until the search has left, and a Ctrl-C that was dropped anyway is
    re-raised on the way out. Python hands such a dropped exception to sys.unraisablehook;
    while the timer runs, a hook of our own drops ours at once and keeps any other for the
    previous hook after the timer is off: the previous one (pytest's) formats tracebacks,
    which a tick could interrupt, and pytest then failed the test. Where Ctrl-C is ignored
    (a pool's worker: the main process ends it) it stays ignored. `stop = [math.inf]` guards
    work that has no time limit (the hunt's checker grid) against a dropped Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        with _thread_stop(stop):
            yield
        return
    if not hasattr(signal, "setitimer"):
        yield
        return
    interrupted = [False]

    def on_int(signum: int, frame: object) -> None:
        interrupted[0] = True
        raise KeyboardInterrupt

    def on_alarm(signum: int, frame: object) -> None:
        left = stop[0] - time.monotonic()
        signal.setitimer(signal.ITIMER_REAL, min(max(left, 0), _TICK) + 0.01)
        if interrupted[0]:
            raise KeyboardInterrupt
        if left <= 0:
            raise _TimeUp

    held: list[SimpleNamespace] = []

    def on_unraisable(u: Any) -> None:
        if isinstance(u.exc_value, (_TimeUp, KeyboardInterrupt)):
            return  # raised again on the next tick (or on the way out)
        # not the object being finalised: holding it would resurrect it
        held.append(SimpleNamespace(exc_type=u.exc_type, exc_value=u.exc_value,
                                    exc_traceback=u.exc_traceback, err_msg=u.err_msg,
                                    object=None))

    old_hook = sys.unraisablehook
    sys.unraisablehook = on_unraisable
    old_alarm = signal.signal(signal.SIGALRM, on_alarm)
    ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    old_int = signal.signal(signal.SIGINT, signal.SIG_IGN if ignored else on_int)
    signal.setitimer(signal.ITIMER_REAL, min(max(stop[0] - time.monotonic(), 0), _TICK) + 0.01)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old_alarm)
        signal.signal(signal.SIGINT, old_int)
        sys.unraisablehook = old_hook
        for u in held:
            old_hook(u)
    if interrupted[0]:
        raise KeyboardInterrupt


@contextlib.contextmanager
def _thread_stop(stop: list[float]) -> Iterator[None]:
    """`hard_stop` off the main thread, where no signal arrives: a Dask worker runs its tasks
    in a thread pool.  A watcher thread raises _TimeUp in the search's thread (CPython's
    PyThreadState_SetAsyncExc) on every tick past stop[0], until the search has left; on the
    way out the watcher is stopped and an exception still pending is withdrawn, under one lock,
    so none escapes the search."""
    tid = ctypes.c_ulong(threading.get_ident())
    set_async = ctypes.pythonapi.PyThreadState_SetAsyncExc
    lock = threading.Lock()
    leaving = threading.Event()

    def watch() -> None:
        while not leaving.wait(_TICK):
            with lock:
                if not leaving.is_set() and time.monotonic() > stop[0]:
                    set_async(tid, ctypes.py_object(_TimeUp))

    watcher = threading.Thread(target=watch, name="verifydp-search-stop", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        while True:
            # a _TimeUp delivered here is the one pending; the next is a tick away
            try:
                with lock:
                    leaving.set()
                break
            except _TimeUp:
                continue
        # At most one _TimeUp is still pending (set before `leaving`). It is delivered here,
        # not withdrawn: withdrawing it (SetAsyncExc(tid, NULL)) leaves CPython's
        # interpreter-wide async-exception flag set, and every thread then runs the eval
        # breaker on every jump — a later hunt in the main thread crawled and never ended.
        with contextlib.suppress(_TimeUp):
            for _ in range(8):  # each backward jump checks for a pending async exception
                pass
        watcher.join()


def with_search_point(res: InstanceResult, params: dict[str, Any]) -> InstanceResult:
    """`res` whose witness records the search point it came from (`found_at`), so that replay
    can tie a witness found off the checker's grid back to the claim (verifydp.casebook)."""
    w = res.witness
    if w is None or not hasattr(w, "found_at"):
        return res
    return dataclasses.replace(res, witness=dataclasses.replace(w, found_at=dict(params)))


def _order(res: InstanceResult, size: int) -> tuple[int, int, str]:
    if res.witness is None:
        return size, 0, ""
    _, length, text = witness_order(res.witness.to_json())
    return size, length, text


def search(space: HuntSpace, seconds: float, seed: int,
           on_witness: Callable[[InstanceResult, dict[str, Any], int], None] | None = None,
           shrink_seconds: float | None = None) -> SearchOutcome:
    """Search `space` for `seconds` (plus up to `shrink_seconds` to shrink a violation)."""
    out = SearchOutcome()
    start = time.monotonic()
    stop = [start + seconds]

    def refuted(params: dict[str, Any]) -> bool:
        if time.monotonic() > stop[0]:
            raise _TimeUp
        out.tries += 1
        res = space.evaluate(params)
        if res.margin is not None and math.isfinite(res.margin):
            target(res.margin, label="margin")
        if res.margin is not None:
            out.best_margin = max(out.best_margin, res.margin)
        if res.verdict is not Verdict.REFUTED:
            return False
        res = with_search_point(res, params)
        size = space.size(params)
        if out.first_found_s is None:
            out.first_found_s = time.monotonic() - start
            out.first_size = size
            # shrinking gets its own allowance once something is found
            stop[0] = time.monotonic() + (shrink_seconds if shrink_seconds is not None
                                          else max(seconds / 4, 2.0))
        else:
            out.shrink_steps += 1
        order = _order(res, size)
        if out.best is None or order < out.best_order:
            # the same order `offer_witness` keeps files by, so that the reported best and
            # the file on disk are the same witness (the shrinker's order is not the file's:
            # it once reported t = 2 while an equal-size t = 6 stayed on disk)
            out.best, out.best_order = (size, params, res), order
            if on_witness is not None:
                on_witness(res, params, size)
        return True

    # no explain phase: it only annotates a failure, and re-runs the test after shrinking
    cfg = settings(max_examples=10**6, deadline=None, database=None, derandomize=False,
                   suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
                   phases=[p for p in Phase if p is not Phase.explain])
    with contextlib.suppress(NoSuchExample, _TimeUp), hard_stop(stop):
        try:
            find(space.strategy, refuted, settings=cfg, random=Random(seed))
        except (Flaky, IndexError):
            # the alarm interrupted hypothesis mid-draw (a replay that differs, or its span
            # bookkeeping left half-done: seen on a slow machine): once the time is up that is
            # the end of the search, whose witnesses `refuted` has already kept
            if time.monotonic() <= stop[0]:
                raise
    return out
