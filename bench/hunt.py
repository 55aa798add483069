"""Acceptance figure for `verifydp hunt` (issue 5): with --all --budget 600 on 2 cores the hunt
finds a witness for every claim that `check` refutes, and for no claim that `check` says holds.

    python bench/hunt.py [--budget 600] [--workers 2]

Prints per claim the check verdict and the hunt result (tries, best margin, time to first
witness, minimisation) and exits non-zero on any disagreement or if the hunt overruns its
budget by more than OVERRUN seconds (its first round runs every checker grid in full).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time

OVERRUN = 60.0


def run(cmd: list[str]) -> tuple[list | dict, float]:
    t0 = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out), time.monotonic() - t0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", type=float, default=600)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    exe = [sys.executable, "-m", "verifydp"]
    with tempfile.TemporaryDirectory() as tmp:
        check, t_check = run([*exe, "check", "--all", "--json", "--no-progress",
                              "--workers", str(a.workers), "--witness-dir", f"{tmp}/c"])
        hunt, t_hunt = run([*exe, "hunt", "--all", "--json", "--no-progress", "--budget",
                            str(a.budget), "--workers", str(a.workers), "--witness-dir",
                            f"{tmp}/h", "--state", f"{tmp}/state.json"])
    verdict = {o["claim"]: o["verdict"] for o in check}
    bad = []
    print(f"{'claim':34} {'check':18} {'hunt':10} {'tries':>7} {'margin':>9} {'1st':>7}  minimised")
    for r in hunt["claims"]:
        c = r["claim"]
        found = bool(r.get("refuted"))
        expect = verdict[c] == "refuted"
        ok = found == expect or (found and verdict[c] == "inconclusive")
        mini = r.get("minimised")
        bm = r.get("best_margin")
        first = r.get("first_witness_s")
        print(f"{c:34} {verdict[c]:18} {'found' if found else '-':10} {r.get('tries', 0):7} "
              f"{'' if bm is None else f'{bm:.3g}':>9} {'' if first is None else f'{first:.1f}s':>7}  "
              f"{'' if not mini else str(mini['first_size']) + ' → ' + str(mini['final_size'])}"
              f"{'' if ok else '   <-- DISAGREES WITH CHECK'}")
        if not ok:
            bad.append(c)
    print(f"check --all: {t_check:.0f} s; hunt --all --budget {a.budget:.0f}: {t_hunt:.0f} s")
    refuted = sum(v == "refuted" for v in verdict.values())
    found = sum(bool(r.get("refuted")) for r in hunt["claims"])
    print(f"claims refuted by check: {refuted}; with a witness from the hunt: {found}; "
          f"disagreements: {len(bad)}")
    over = t_hunt - a.budget
    print(f"overrun: {over:.0f} s (allowed {OVERRUN:.0f} s)")
    return 1 if bad or over > OVERRUN else 0


if __name__ == "__main__":
    raise SystemExit(main())
