#!/usr/bin/env python
"""Performance benchmarks for verifydp, each checked against a target.

Usage:  python bench/run.py [--json] [--only SUBSTRING]

Prints one line per benchmark (name, measured value, target, PASS/FAIL) and exits with
status 1 if any target is missed or any result is wrong, 0 otherwise. `--json` prints a
JSON list of {name, value, unit, target, ok, detail} instead.

Targets (from the project's issue; the reference machine has 2 cores). All times are wall
time measured with `time.perf_counter`:

  srs-n1000-certified        < 1 s    median of 5. SRSWOR(500) on the REPLACE pair
                                      P = {a x 999, x}, P' = {a x 999, y}; base class
                                      ε-deletion-DP (Relation.ADD_REMOVE), t = 2. Times both
                                      sample laws AND worst_case_ratio. The result must be
                                      exactly 5/2 both ways (lower == upper == 5/2, the
                                      reference example of docs/foundations.md); otherwise FAIL.
  stratified-10x50/r=1/7     < 1 s    median of 5. Symmetry-reduced sample law of
  stratified-10x50/r=1/10             StratifiedProportional(r, Rounding.RANDOMISED) on 10
                                      strata of 50 records (one record type per stratum).
                                      r = 1/7 makes every stratum's size 50/7 genuinely random
                                      (7 or 8), so the law has 2^10 = 1024 outcomes; r = 1/10
                                      gives the deterministic size 5 (1 outcome). Probabilities
                                      must sum to exactly 1 and the outcome counts must match.
  check-all                  < 60 s   one run of `verifydp check --all --json --no-witnesses
                                      --no-progress` as a subprocess; exit status 0, and the
                                      JSON must hold one object per catalogue claim, each
                                      verdict in {refuted, holds-on-instance, proved,
                                      inconclusive}.
  lp-random-size-n1000       < 10 s   one run. RandomSizeWOR with size law uniform on
                                      {0..1000} on the same REPLACE pair of size 1000, t = 2,
                                      ε-deletion-DP base class: both sample laws plus
                                      worst_case_ratio. The LP size (points, edges) is
                                      reported. The issue allowed falling back to {400..600}
                                      if the full range were too slow; it is not (a few s).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run from a checkout even without an install
    sys.path.insert(0, str(REPO))

from verifydp.designs import SRSWOR, RandomSizeWOR, Rounding, StratifiedProportional  # noqa: E402
from verifydp.exact.dist import FiniteDist  # noqa: E402
from verifydp.population import (  # noqa: E402
    Population,
    PopulationPair,
    RecordType,
    Relation,
    universe_of,
)
from verifydp.worstcase import MechanismClass, WorstCase, worst_case_ratio  # noqa: E402

VERDICTS = {"refuted", "holds-on-instance", "proved", "inconclusive"}


@dataclass
class Result:
    name: str
    value: float | None  # None when the benchmark crashed
    unit: str
    target: float  # the measured value must be strictly below it
    ok: bool
    detail: str = ""

    def line(self) -> str:
        val = "-" if self.value is None else f"{self.value:.3f} {self.unit}"
        status = "PASS" if self.ok else "FAIL"
        text = f"{self.name:<26} {val:>11}  target < {self.target:g} {self.unit:<2} {status}"
        return f"{text}  ({self.detail})" if self.detail else text

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "value": self.value, "unit": self.unit,
                "target": self.target, "ok": self.ok, "detail": self.detail}


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def median_of(runs: int, fn: Callable[[], object]) -> tuple[float, list[object]]:
    times, outs = [], []
    for _ in range(runs):
        dt, out = timed(fn)
        times.append(dt)
        outs.append(out)
    return statistics.median(times), outs


def judged(name: str, seconds: float, target: float, problems: list[str], detail: str) -> Result:
    ok = seconds < target and not problems
    if problems:
        detail = "; ".join(["WRONG: " + p for p in problems] + ([detail] if detail else []))
    return Result(name, seconds, "s", target, ok, detail)


def replace_pair_n1000() -> PopulationPair:
    """P = {a x 999, x}, P' = {a x 999, y}: neighbours under replacement."""
    a, x, y = RecordType("a"), RecordType("x"), RecordType("y")
    return PopulationPair(
        Population.of({a: 999, x: 1}), Population.of({a: 999, y: 1}), Relation.REPLACE
    )


def both_ways(design, pair: PopulationPair, t: int) -> WorstCase:  # type: ignore[no-untyped-def]
    u = pair.universe
    law_p = design.sample_law(pair.p, u)
    law_q = design.sample_law(pair.q, u)
    return worst_case_ratio(law_p, law_q, MechanismClass.pure(Relation.ADD_REMOVE, t))


# --------------------------------------------------------------------------- benchmarks


def bench_srs() -> list[Result]:
    pair = replace_pair_n1000()
    design = SRSWOR(500)
    med, outs = median_of(5, lambda: both_ways(design, pair, 2))
    want = Fraction(5, 2)
    problems = []
    for k, wc in enumerate(outs):
        assert isinstance(wc, WorstCase)
        for label, b in (("forward", wc.forward), ("backward", wc.backward)):
            if not (b.lower == b.upper == want):
                problems.append(f"run {k + 1} {label}: [{b.lower}, {b.upper}] != 5/2")
    wc = outs[0]
    detail = f"exact 5/2 both ways, LP {wc.lp_points} points" if not problems else ""
    return [judged("srs-n1000-certified", med, 1.0, problems[:2], detail)]


def bench_stratified() -> list[Result]:
    strata = [RecordType("a", f"s{h}") for h in range(10)]
    pop = Population.of({rt: 50 for rt in strata})
    universe = universe_of(pop)
    results = []
    # r -> (expected outcome count, allowed per-stratum sizes)
    cases = {Fraction(1, 7): (1024, {7, 8}), Fraction(1, 10): (1, {5})}
    for r, (n_out, sizes) in cases.items():
        design = StratifiedProportional(r, Rounding.RANDOMISED)
        med, outs = median_of(5, lambda d=design: d.sample_law(pop, universe))
        law = outs[0]
        assert isinstance(law, FiniteDist)
        problems = []
        total = sum(law.probs.values(), Fraction(0))
        if total != 1:
            problems.append(f"probabilities sum to {total}")
        if len(law.probs) != n_out:
            problems.append(f"{len(law.probs)} outcomes, expected {n_out}")
        if any(set(v) - sizes for v in law.probs):
            problems.append(f"a stratum sample size outside {sorted(sizes)}")
        detail = f"{len(law.probs)} outcome(s), probabilities sum to 1" if not problems else ""
        results.append(judged(f"stratified-10x50/r={r}", med, 1.0, problems, detail))
    return results


def bench_check_all() -> list[Result]:
    from verifydp.claims import catalogue

    expected = list(catalogue())
    cmd = [sys.executable, "-m", "verifydp.cli.main", "check", "--all", "--json",
           "--no-witnesses", "--no-progress"]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    problems: list[str] = []
    # a scratch cwd, so nothing can land in the checkout whatever the CLI writes
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True,
                                  timeout=600)
        except subprocess.TimeoutExpired:
            return [judged("check-all", time.perf_counter() - t0, CHECK_ALL_S,
                           ["killed after 600 s"], "")]
        seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        err = proc.stderr.strip().splitlines()[-1:] or ["(no stderr)"]
        problems.append(f"exit status {proc.returncode}: {err[0]}")
    counts: dict[str, int] = {}
    try:
        data = json.loads(proc.stdout)
        if not isinstance(data, list):
            raise ValueError("top level is not a list")
        got = [obj["claim"] for obj in data]
        if sorted(got) != sorted(expected):
            problems.append(f"claims {got} != catalogue {expected}")
        for obj in data:
            v = obj.get("verdict")
            if v not in VERDICTS:
                problems.append(f"{obj.get('claim')}: verdict {v!r}")
            counts[v] = counts.get(v, 0) + 1
    except (ValueError, KeyError, TypeError) as exc:
        problems.append(f"bad JSON output: {exc}")
    detail = ""
    if not problems:
        slow = sorted(((obj["detail"].get("seconds") or 0, obj["claim"]) for obj in data),
                      reverse=True)
        LAST_SECONDS.update({cid: sec for sec, cid in slow})
        detail = f"{len(expected)} claims: " + ", ".join(
            f"{n} {v}" for v, n in sorted(counts.items())) + "; slowest: " + ", ".join(
            f"{cid} {sec:.1f} s" for sec, cid in slow[:8])
    return [judged("check-all", seconds, CHECK_ALL_S, problems, detail)]


CHECK_ALL_S = 60.0  # issue 29: the README's first command in under a minute on 2 cores
LAST_SECONDS: dict[str, float] = {}  # per-claim seconds of the last check-all run


def costs_source(seconds: dict[str, float]) -> str:
    """The SECONDS table of verifydp/claims/costs.py from one check-all run's seconds
    (claims of at least 0.5 s; the rest count as short)."""
    rows = sorted(((s, c) for c, s in seconds.items() if s >= 0.5), reverse=True)
    return "".join(f'    "{c}": {s:.1f},\n' for s, c in rows)


def bench_lp_random_size() -> list[Result]:
    pair = replace_pair_n1000()
    lo, hi = 0, 1000
    size_law = FiniteDist.from_pairs((m, Fraction(1, hi - lo + 1)) for m in range(lo, hi + 1))
    design = RandomSizeWOR(size_law)
    seconds, wc = timed(lambda: both_ways(design, pair, 2))
    assert isinstance(wc, WorstCase)
    problems = []
    for label, b in (("forward", wc.forward), ("backward", wc.backward)):
        if b.lower is None or b.upper is None:
            problems.append(f"{label} bound is infinite")
        elif not (1 <= b.lower <= b.upper):
            problems.append(f"{label} bracket [{float(b.lower)}, {float(b.upper)}] malformed")
    detail = ""
    if not problems:
        w = wc.worst
        detail = (f"size law U{{{lo}..{hi}}}, LP {wc.lp_points} points / {wc.lp_edges} edges, "
                  f"worst ratio in [{float(w.lower):.6f}, {float(w.upper):.6f}]")
    return [judged("lp-random-size-n1000", seconds, 10.0, problems, detail)]


def bench_cluster_k8() -> list[Result]:
    """Issue 3 target: certified worst case, cluster sampling ℓ = 3 of k = 8 clusters of sizes
    1-4 (all records distinct; orbit LP over interchangeable clusters), < 60 s."""
    from verifydp.claims.bun.cluster import cluster_pair
    from verifydp.designs import ClusterSRS
    from verifydp.worstcase import MechanismClass, worst_case_ratio

    sizes = (4, 1, 2, 3, 4, 1, 2, 3)
    pair, groups = cluster_pair(sizes, 0)
    u = pair.universe
    classes = tuple(tuple(sorted(u.index(t) for t in g)) for g in groups)

    def run() -> WorstCase:
        d = ClusterSRS(3)
        law_p, law_q = d.sample_law(pair.p, u), d.sample_law(pair.q, u)
        return worst_case_ratio(law_p, law_q, MechanismClass.pure(Relation.ADD_REMOVE, 2),
                                classes=classes)

    seconds, wc = timed(run)
    assert isinstance(wc, WorstCase)
    problems = []
    w = wc.worst
    if w.lower is None or wc.upper is None or not (1 <= w.lower <= wc.upper):
        problems.append("bracket malformed")
    detail = (f"sizes {sizes}, LP {wc.lp_points} orbit points / {wc.lp_edges} edges, "
              f"worst ratio in [{float(w.lower or 0):.9f}, {float(wc.upper or 0):.9f}]")
    return [judged("cluster-k8-ell3-certified", seconds, 60.0, problems, detail)]


BENCHMARKS: list[tuple[str, Callable[[], list[Result]], float]] = [
    ("srs-n1000-certified", bench_srs, 1.0),
    ("stratified-10x50", bench_stratified, 1.0),
    ("check-all", bench_check_all, CHECK_ALL_S),
    ("lp-random-size-n1000", bench_lp_random_size, 10.0),
    ("cluster-k8-ell3-certified", bench_cluster_k8, 60.0),
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print a JSON list of results")
    ap.add_argument("--only", metavar="SUBSTRING",
                    help="run only the benchmarks whose name contains SUBSTRING")
    ap.add_argument("--costs", action="store_true",
                    help="after check-all, print the per-claim seconds as the SECONDS table of "
                         "verifydp/claims/costs.py (the scheduling hint)")
    args = ap.parse_args(argv)
    results: list[Result] = []
    for name, fn, target in BENCHMARKS:
        if args.only and args.only not in name:
            continue
        try:
            out = fn()
        except Exception as exc:  # a crash is a failed benchmark, not a crashed script
            where = traceback.extract_tb(exc.__traceback__)[-1]
            msg = f"ERROR: {type(exc).__name__}: {exc} (at {Path(where.filename).name}:{where.lineno})"
            out = [Result(name, None, "s", target, False, msg)]
        for r in out:
            results.append(r)
            if not args.json:
                print(r.line(), flush=True)
    if args.json:
        print(json.dumps([r.to_json() for r in results], indent=2))
    if args.costs and LAST_SECONDS:
        print(costs_source(LAST_SECONDS), end="")
    if not results:
        print(f"no benchmark matches {args.only!r}", file=sys.stderr)
        return 2
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
