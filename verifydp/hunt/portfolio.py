"""The hunt portfolio: spend a wall-clock budget across claims, on local processes or a cluster.

Round 1 runs every selected claim's checker grid (so the hunt refutes at least what `check`
refutes, with the same certificates) and then, for claims with a search space
(`verifydp.hunt.spaces`), a hypothesis search for the rest of the claim's slice.  Later rounds
share the remaining time among the claims with a space that are still unrefuted, each with a
new seed.  A refuted claim's witness is written (atomically) the moment it is found, and
replaced only by a strictly smaller one, so stopping a hunt at any point loses no witness.

State: after every finished task the portfolio writes `state.json` (claims done, tries, best
margins, witnesses).  `resume=True` skips the claims already refuted or fully searched and
continues the others with fresh seeds.

Executors (`verifydp.hunt.executors`): local processes by default, or a Dask cluster
(`executor="dask"`, an existing scheduler at `address` or a LocalCluster), running the same
task function — see docs/hunting.md; tests/cli/test_cluster.py runs it on a LocalCluster.
"""

from __future__ import annotations

import json
import math
import time
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verifydp.casebook import offer_witness
from verifydp.files import NotRegular, TooLarge, read_bounded
from verifydp.hunt.executors import ExecutorError, Pool, open_pool
from verifydp.witness import atomic_write, witness_stem

STATE_VERSION = 1
MAX_STATE_BYTES = 50_000_000  # a state file holds one small object per claim
MAX_ROUNDS = 6


class HuntError(ValueError):
    """Bad hunt input (unknown executor, unreadable state)."""


# ---------------------------------------------------------------- one task (runs in a worker)


def _seed(claim: str, round_: int) -> int:
    return zlib.crc32(claim.encode()) + 7919 * round_


def hunt_task(claim: str, seconds: float, round_: int, witness_dir: str | None,
              run_checker: bool, deadline: float | None = None) -> dict[str, Any]:
    """Checker grid (round 1) and search; a JSON-able summary (picklable across processes).

    The search gets `seconds`, cut at `deadline` (wall clock, `time.time()`: shared by all
    workers), so that a portfolio whose tasks queue behind slow ones still ends on time."""
    from verifydp.claims import Budget, get_claim
    from verifydp.claims.base import Verdict
    from verifydp.hunt.search import hard_stop, search
    from verifydp.hunt.spaces import space_for

    start = time.monotonic()
    out: dict[str, Any] = {"claim": claim, "round": round_, "tries": 0,
                           "best_margin": None, "first_witness_s": None, "witness": None,
                           "source": None, "minimised": None, "check_verdict": None}
    directory = Path(witness_dir) if witness_dir else None

    def keep(w: Any, source: str) -> bool:
        if directory is None or w is None:
            return False
        path, size, written = offer_witness(w, directory)
        if written or out["witness"] is None:
            out["witness"], out["witness_size"] = str(path), size
            out["source"] = source if written else out["source"] or "earlier run"
        return written

    if run_checker:
        # the grid runs in full, as `check` runs it, so the hunt refutes what `check` refutes;
        # a Ctrl-C that lands in a finaliser there (z3's objects have many) is raised again
        with hard_stop([math.inf]):
            res = get_claim(claim).check(Budget(None, fail_fast=False))
        out["check_verdict"] = res.verdict.value
        out["tries"] += len(res.instances)
        margins = [i.margin for i in res.instances if i.margin is not None]
        if margins:
            out["best_margin"] = max(margins)
        if res.verdict is Verdict.REFUTED:
            out["first_witness_s"] = time.monotonic() - start
            keep(res.witness, "grid")
            out["refuted"] = True
    space = space_for(claim)
    left = seconds - (time.monotonic() - start)
    if deadline is not None:
        left = min(left, deadline - time.time())
    if space is not None and left > 0.5:
        on_disk: list[dict[str, Any]] = []  # the search's witnesses actually written

        def on_witness(r: Any, params: dict[str, Any], size: int) -> None:
            if keep(r.witness, "search"):
                on_disk.append({"size": size, "params": params})

        t0 = time.monotonic()
        try:
            o = search(space, left, _seed(claim, round_), on_witness)
        except Exception as exc:  # noqa: BLE001 - one claim's bug must not stop the portfolio
            out["error"] = f"{type(exc).__name__}: {exc}"
            out["refuted"] = bool(out.get("refuted"))
            out["checked"], out["searched"] = run_checker, True
            out["seconds"] = round(time.monotonic() - start, 3)
            return out
        out["tries"] += o.tries
        if math.isfinite(o.best_margin):
            out["best_margin"] = max(out["best_margin"] or -math.inf, o.best_margin)
        if o.found:
            out["refuted"] = True
            if out["first_witness_s"] is None:
                out["first_witness_s"] = (t0 - start) + (o.first_found_s or 0.0)
            assert o.best is not None
            # report the witness the file holds: the search's best unless the directory
            # already had a better one (then the file, not the search, is the minimum)
            written = bool(on_disk) and on_disk[-1]["params"] is o.best[1]
            own = written or directory is None or o.best[2].witness is None
            out["minimised"] = {
                "first_size": o.first_size,
                "final_size": o.best[0] if own else out.get("witness_size", o.best[0]),
                "shrink_steps": o.shrink_steps,
                "params": {k: _jsonable(v) for k, v in o.best[1].items()} if own else None,
                "on_disk": ("search" if written else "not written" if directory is None
                            else "no file (a formula point)" if o.best[2].witness is None
                            else "an earlier, better witness"),
            }
            out["search_result"] = o.best[2].to_json()
    out.setdefault("refuted", False)
    out["checked"] = run_checker
    out["searched"] = space is not None
    out["seconds"] = round(time.monotonic() - start, 3)
    return out


def _jsonable(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_jsonable(x) for x in v]
    if isinstance(v, bool | int | float | str) or v is None:
        return v
    return str(v)


# ---------------------------------------------------------------- the portfolio


@dataclass
class HuntState:
    claims: dict[str, dict[str, Any]] = field(default_factory=dict)
    interrupted: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"version": STATE_VERSION, "interrupted": self.interrupted,
                "claims": self.claims}

    @staticmethod
    def load(path: Path) -> HuntState:
        try:
            try:  # issue 28: --state /dev/zero read forever
                raw = read_bounded(path, MAX_STATE_BYTES)
            except NotRegular:
                raise HuntError(f"cannot read hunt state {path}: not a regular file") from None
            except TooLarge:
                raise HuntError(f"cannot read hunt state {path}: larger than "
                                f"{MAX_STATE_BYTES} bytes") from None
            obj = json.loads(raw.decode("utf-8"))
            if not isinstance(obj, dict) or obj.get("version") != STATE_VERSION:
                version = obj.get("version") if isinstance(obj, dict) else None
                raise HuntError(f"{path}: unsupported state version {version}")
            claims = obj["claims"]
            if not isinstance(claims, dict) or not all(isinstance(v, dict)
                                                       for v in claims.values()):
                raise HuntError(f"{path}: 'claims' must map claim ids to objects")
            return HuntState(dict(claims), bool(obj.get("interrupted")))
        except HuntError:
            raise
        except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
            raise HuntError(f"cannot read hunt state {path}: {exc}") from exc

    def save(self, path: Path) -> None:
        atomic_write(path, json.dumps(self.to_json(), indent=2) + "\n")

    def merge(self, task: dict[str, Any]) -> None:
        claim = task["claim"]
        old = self.claims.get(claim, {"tries": 0, "rounds": 0, "best_margin": None,
                                      "refuted": False, "witness": None})
        merged = dict(old)
        merged["tries"] = old.get("tries", 0) + task["tries"]
        merged["rounds"] = max(old.get("rounds", 0), task["round"])
        margins = [m for m in (old.get("best_margin"), task["best_margin"]) if m is not None]
        merged["best_margin"] = max(margins) if margins else None
        for key in ("check_verdict", "searched"):
            if task.get(key) is not None:
                merged[key] = task[key]
        if task.get("refuted") and not old.get("refuted"):
            merged["first_witness_s"] = task["first_witness_s"]
        merged["refuted"] = bool(old.get("refuted") or task.get("refuted"))
        for key in ("witness", "witness_size", "source", "minimised", "search_result", "error"):
            if task.get(key) is not None:
                merged[key] = task[key]
        if task.get("checked"):
            merged["round_done"] = True
        merged["seconds"] = round(old.get("seconds", 0.0) + task.get("seconds", 0.0), 3)
        self.claims[claim] = merged


def _open_for_search(state: HuntState, claims: Iterable[str]) -> list[str]:
    from verifydp.hunt.spaces import space_for

    return [c for c in claims if space_for(c) is not None
            and not state.claims.get(c, {}).get("refuted")]


def run_hunt(claims: list[str], budget: float, workers: int, state_path: Path,
             witness_dir: Path | None, resume: bool = False, executor: str = "local",
             address: str | None = None,
             progress: Callable[[dict[str, Any]], None] | None = None) -> HuntState:
    """Hunt `claims` for `budget` seconds; KeyboardInterrupt is caught, the state saved with
    `interrupted = True` and the witnesses already written kept (then re-raised)."""
    state = HuntState.load(state_path) if resume and state_path.exists() else HuntState()
    state.interrupted = False
    wall_start = time.time()
    wdir = str(witness_dir) if witness_dir else None
    try:
        with open_pool(executor, workers, address) as pool:
            workers = pool.parallelism  # a cluster's own size shares out the budget
            # the budget starts once the workers are up (a LocalCluster takes seconds)
            start = time.monotonic()
            deadline = time.time() + budget
            first = [c for c in claims if "round_done" not in state.claims.get(c, {})]
            round_ = max((state.claims.get(c, {}).get("rounds", 0) for c in claims),
                         default=0) + 1
            if first:
                slice_ = budget * workers / len(first)
                _run_round(pool, [(c, slice_, round_, wdir, True, deadline) for c in first],
                           state, state_path, progress)
                round_ += 1
            for _ in range(MAX_ROUNDS):
                left = budget - (time.monotonic() - start)
                todo = _open_for_search(state, claims)
                if left < 2 or not todo:
                    break
                slice_ = left * workers / len(todo)
                _run_round(pool, [(c, slice_, round_, wdir, False, deadline) for c in todo],
                           state, state_path, progress)
                round_ += 1
    except ExecutorError as exc:
        raise HuntError(str(exc)) from exc
    except KeyboardInterrupt:
        state.interrupted = True
        _adopt_written(state, claims, witness_dir, wall_start)
        state.save(state_path)
        raise
    state.save(state_path)
    return state


def _run_round(pool: Pool, tasks: list[tuple], state: HuntState, state_path: Path,
               progress: Callable[[dict[str, Any]], None] | None) -> None:
    for _, result in pool.map_unordered(hunt_task, tasks):
        state.merge(result)
        state.save(state_path)
        if progress:
            progress(result)


def _adopt_written(state: HuntState, claims: list[str], witness_dir: Path | None,
                   since: float) -> None:
    """After an interrupt: record witnesses that workers wrote during this run but could not
    report (the files are complete: they are written atomically)."""
    if witness_dir is None:
        return

    for c in claims:
        path = witness_dir / f"{witness_stem(c)}.json"
        if path.exists() and path.stat().st_mtime >= since - 1:
            entry = state.claims.setdefault(c, {"tries": 0, "rounds": 0, "best_margin": None})
            entry["refuted"] = True
            entry["witness"] = str(path)
            entry.setdefault("source", "search (interrupted)")
