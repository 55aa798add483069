"""`check` and `hunt` on a Dask cluster against local processes (issue 17, "Running on more
than one machine"; README "Running on a cluster").

    python bench/cluster.py [--workers 2] [--budget 60] [--scheduler tcp://host:8786]
                            [--claims ID ...] [--hunt-claims ID ...]

Runs `check` (default: --all) and `hunt` (default: the claims with a search space, where the
budget buys search; --budget per hunt) twice each: `--executor local --workers N` and
`--executor dask` (a LocalCluster of N worker processes, or the cluster at --scheduler).
Prints wall times, the speed-up (local time / Dask time; for the hunt, whose wall time is its
budget, search tries per second), and exits non-zero if a `check` verdict or witness file, a
hunt's grid verdict, or a grid refutation differs between the two (the search part of a hunt
is timed, so its tries and what it finds beyond the grid may differ).
"""

from __future__ import annotations

import argparse
import filecmp
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from verifydp.hunt.executors import open_pool
from verifydp.hunt.spaces import SPACES


def run(cmd: list[str]) -> tuple[list | dict, float]:
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {proc.returncode}\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout), time.monotonic() - t0


def same_files(a: Path, b: Path) -> list[str]:
    """Names of witness files that differ between the two directories (or exist in one only)."""
    cmp = filecmp.dircmp(a, b) if a.exists() and b.exists() else None
    if cmp is None:
        return [] if not a.exists() and not b.exists() else ["(one directory missing)"]
    return sorted(cmp.left_only + cmp.right_only + cmp.diff_files)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--budget", type=float, default=60)
    ap.add_argument("--scheduler", default=None, help="an existing Dask scheduler")
    ap.add_argument("--claims", nargs="*", default=None, help="check these (default: --all)")
    ap.add_argument("--hunt-claims", nargs="*", default=None,
                    help="hunt these (default: every claim with a search space)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="check runs per executor, alternating which goes first; medians "
                         "(a shared machine's load drifts between runs)")
    ap.add_argument("--no-hunt", action="store_true")
    a = ap.parse_args()
    exe = [sys.executable, "-m", "verifydp"]
    check_sel = a.claims or ["--all"]
    hunt_sel = a.hunt_claims or sorted(SPACES)
    where = {"local": ["--executor", "local", "--workers", str(a.workers)],
             "dask": ["--executor", "dask", "--workers", str(a.workers),
                      *(["--scheduler", a.scheduler] if a.scheduler else [])]}
    bad: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        check, t_check, hunt, t_hunt = {}, {}, {}, {}
        times: dict[str, list[float]] = {n: [] for n in where}
        for k in range(a.repeat):
            for name in (("local", "dask") if k % 2 == 0 else ("dask", "local")):
                check[name], took = run(
                    [*exe, "check", *check_sel, "--json", "--no-progress", *where[name],
                     "--witness-dir", str(t / name / "check")])
                times[name].append(took)
        t_check = {n: statistics.median(v) for n, v in times.items()}
        for name, flags in where.items():
            if a.no_hunt:
                hunt[name], t_hunt[name] = {"claims": []}, 0.0
                continue
            hunt[name], t_hunt[name] = run(
                [*exe, "hunt", *hunt_sel, "--json", "--no-progress", "--budget", str(a.budget),
                 *flags, "--witness-dir", str(t / name / "hunt"),
                 "--state", str(t / name / "state.json")])
        verdicts = {n: {o["claim"]: o["verdict"] for o in check[n]} for n in where}
        bad += [f"check {c}: {verdicts['local'][c]} locally, {verdicts['dask'][c]} on Dask"
                for c in verdicts["local"] if verdicts["local"][c] != verdicts["dask"][c]]
        bad += [f"check witness {f}" for f in same_files(t / "local" / "check", t / "dask" / "check")]
        rows = {n: {r["claim"]: r for r in hunt[n]["claims"]} for n in where}
        for c in [] if a.no_hunt else hunt_sel:
            lo, da = rows["local"][c], rows["dask"][c]
            if lo.get("check_verdict") != da.get("check_verdict"):
                bad.append(f"hunt {c}: grid verdict {lo.get('check_verdict')} locally, "
                           f"{da.get('check_verdict')} on Dask")
            if lo.get("check_verdict") == "refuted" and not da.get("refuted"):
                bad.append(f"hunt {c}: refuted locally, not on Dask")
            if da.get("error"):
                bad.append(f"hunt {c}: search error on Dask: {da['error']}")
    tries = {n: sum(r.get("tries", 0) for r in rows[n].values()) for n in where}
    busy = {n: sum(r.get("seconds", 0.0) for r in rows[n].values()) for n in where}
    t0 = time.monotonic()
    with open_pool("dask", a.workers, a.scheduler):
        startup = time.monotonic() - t0
    found = {n: sum(bool(r.get("refuted")) for r in rows[n].values()) for n in where}
    label = f"Dask ({a.scheduler})" if a.scheduler else f"Dask LocalCluster ({a.workers} workers)"
    print(f"check {' '.join(check_sel) if a.claims else '--all'}: {len(verdicts['local'])} claims")
    runs = f" (median of {a.repeat})" if a.repeat > 1 else ""
    print(f"  local processes ({a.workers}): {t_check['local']:7.1f} s{runs}")
    print(f"  {label}: {t_check['dask']:7.1f} s   speed-up {t_check['local'] / t_check['dask']:.2f}"
          f" ({t_check['local'] / max(t_check['dask'] - startup, 1e-9):.2f} without the "
          f"{startup:.1f} s it takes to start the cluster and preload the catalogue)")
    if not a.no_hunt:
        print(f"hunt of {len(hunt_sel)} claims, --budget {a.budget:.0f}")
        for n, title in (("local", f"local processes ({a.workers})"), ("dask", label)):
            print(f"  {title}: {t_hunt[n]:7.1f} s wall, {tries[n]} tries in {busy[n]:.1f} "
                  f"task-seconds ({tries[n] / max(busy[n], 1e-9):.1f}/s), {found[n]} refuted")
        if tries["local"] and tries["dask"]:
            rate = (tries["dask"] / busy["dask"]) / (tries["local"] / busy["local"])
            print(f"  tries per task-second, Dask / local: {rate:.2f}")
    print("agreement: " + ("identical verdicts, refutations and witness files" if not bad
                           else f"{len(bad)} differences"))
    for b in bad:
        print("  " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
