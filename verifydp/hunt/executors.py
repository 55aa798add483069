"""Where `check --all` and `hunt` run their tasks: local processes or a Dask cluster (issue 17,
"Running on more than one machine"; docs/hunting.md, README "Running on a cluster").

A task is a module-level function with picklable arguments and a picklable result
(`verifydp.hunt.portfolio.hunt_task`, the command line's per-claim check), so the executor
only decides *where* it runs, never *what* it computes: every verdict is still decided in the
worker by the claim's own exact checker (docs/foundations.md#verdicts-and-the-soundness-contract),
and the results are those of local processes.

* ``local`` — a `ProcessPoolExecutor` with `workers` processes (no pool for one worker: tasks
  run inline, which keeps the hunt's SIGALRM timer in the main thread).
* ``dask`` — a `distributed` client (the ``verifydp[cluster]`` extra).  The scheduler address
  is `scheduler`, else the environment variable ``VERIFYDP_SCHEDULER``, else a
  `distributed.LocalCluster` with `workers` single-threaded worker processes is started on
  127.0.0.1 and closed afterwards.  With an existing cluster the parallelism is the cluster's
  thread count, not `workers`.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

KINDS = ("local", "dask")
SCHEDULER_ENV = "VERIFYDP_SCHEDULER"
PRELOAD = "verifydp.hunt.spaces"  # imports every claim (the bulk of a task's start-up)


class ExecutorError(ValueError):
    """An executor that cannot be opened (unknown kind, missing extra, unreachable scheduler)."""


@dataclass(frozen=True)
class Pool:
    """An open executor: `executor` is None when tasks run inline in this process."""

    executor: Executor | None
    parallelism: int
    where: str  # for reports: "inline", "4 local processes", "dask tcp://…: 8 threads"

    def map_unordered(self, fn: Callable[..., Any],
                      calls: list[tuple[Any, ...]]) -> Iterator[tuple[int, Any]]:
        """(index, fn(*calls[index])) as tasks finish; inline calls run in order."""
        if self.executor is None:
            for i, args in enumerate(calls):
                yield i, fn(*args)
            return
        futures: dict[Future[Any], int] = {self.executor.submit(fn, *a): i
                                           for i, a in enumerate(calls)}
        for fut in as_completed(futures):
            yield futures[fut], fut.result()


def worker_init(parent: int) -> None:
    """Run in every local worker: ignore Ctrl-C (the main process decides and ends the
    workers; each would otherwise print its own traceback), and end when the main process
    ends, SIGKILL included (issue 28: hunt workers outlived a killed parent): Linux's
    parent-death signal, and a thread that watches the parent's pid everywhere else."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))
    if os.getppid() != parent:  # it died before the signal was asked for
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True,
                     name="verifydp-parent-watch").start()


PR_SET_PDEATHSIG = 1
PARENT_POLL_S = 1.0


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(PARENT_POLL_S)
        if os.getppid() != parent:
            os._exit(1)


def _end_workers(pp: ProcessPoolExecutor) -> None:
    """Terminate the pool's worker processes now, and kill any still alive after a second."""
    procs = list((getattr(pp, "_processes", None) or {}).values())
    for p in procs:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            p.terminate()
    deadline = time.monotonic() + 1.0
    for p in procs:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            p.join(max(0.0, deadline - time.monotonic()))
            if p.is_alive():
                p.kill()
                p.join(1.0)


def scheduler_address(scheduler: str | None) -> str | None:
    """The scheduler to use: the explicit one, else ``$VERIFYDP_SCHEDULER``, else None."""
    return scheduler or os.environ.get(SCHEDULER_ENV) or None


@contextmanager
def open_pool(kind: str, workers: int, scheduler: str | None = None) -> Iterator[Pool]:
    """Open the executor for `kind`; on leaving (also by Ctrl-C) pending tasks are cancelled
    and whatever was started here (processes, a LocalCluster) is shut down."""
    if workers < 1:
        raise ExecutorError("--workers must be at least 1")
    if kind == "local":
        if scheduler is not None:
            raise ExecutorError("--scheduler needs --executor dask")
        if workers == 1:
            yield Pool(None, 1, "inline")
            return
        pp = ProcessPoolExecutor(max_workers=workers, initializer=worker_init,
                                 initargs=(os.getpid(),))
        try:
            yield Pool(pp, workers, f"{workers} local processes")
        except BaseException:
            # Ctrl-C or SIGTERM to the main process alone (what CI timeouts and supervisors
            # send): the workers would otherwise finish every task already handed to them,
            # and interpreter exit waits for them (issue 28). Witnesses are written
            # atomically, so ending a worker mid-task leaves every file whole.
            _end_workers(pp)
            raise
        finally:
            pp.shutdown(wait=False, cancel_futures=True)
        return
    if kind == "dask":
        with _dask_pool(workers, scheduler_address(scheduler)) as pool:
            yield pool
        return
    raise ExecutorError(f"unknown executor {kind!r} (one of: {', '.join(KINDS)})")


@contextmanager
def _dask_pool(workers: int, address: str | None) -> Iterator[Pool]:
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise ExecutorError("--executor dask needs the cluster extra: "
                            "pip install 'verifydp[cluster]'") from exc
    cluster = None
    try:
        if address is None:
            # one thread per worker process and no memory limit, as local processes; the
            # scheduler's HTTP endpoint on a free local port (8787 may be another user's)
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                   memory_limit=0)
            client = Client(cluster)
        else:
            client = Client(address)  # connect timeout: dask config (30 s by default)
    except (OSError, TimeoutError, ValueError) as exc:
        if cluster is not None:
            cluster.close()
        raise ExecutorError(f"cannot reach the Dask scheduler "
                            f"{address or '(LocalCluster)'}: {exc}") from exc
    try:
        threads = sum(client.nthreads().values())
        if threads < 1:
            raise ExecutorError(f"the Dask scheduler {address} has no workers")
        # Dask workers are fresh interpreters (local processes are forks that have it already):
        # import the catalogue before any budget starts, not inside the first timed task
        client.run(importlib.import_module, PRELOAD)
        # pure=False: tasks write witness files and read the clock, so two equal calls are
        # two runs, never one cached result
        executor = client.get_executor(pure=False)
        where = f"dask {address or 'LocalCluster'}: {threads} worker threads"
        try:
            yield Pool(executor, threads, where)
        finally:
            executor.shutdown(wait=False)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
