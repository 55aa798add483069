#!/usr/bin/env python
"""Benchmark: the exact worst case at the design file's own N (issue 16 item 1).

Usage:  python bench/fullsize.py [--json] [--only NAME]

Times `verifydp.audit.instance.full_size_answer` (orbit reduction, docs/foundations.md#fact-8)
once per case, and checks what it must reach:

  examples/<file>.toml          every catalogued example: < 60 s; a certified bracket whose
                                relative width (on e^ε' or δ') is below 5 %, or an explicit
                                "lower bound only" / out-of-reach reason where the reduction
                                does not apply (MUST, Neyman: lower bounds)
  srswor-N1e6                   N = 10^6, m = 10^5, replace: < 60 s, width < 5 %
  srswr-N1e6                    N = 10^6, m = 1000 draws with replacement: < 60 s, width < 5 %
  poisson-N1e6                  N = 10^6, (ε, δ) target: < 60 s, width < 5 %
  strata50-N1e6                 50 strata, 10^6 records, randomised proportional allocation,
                                add-remove: < 60 s, width < 5 %
  two-stage-1e4-clusters        10^4 clusters of 50 distinct sizes (60..158), ℓ = 300,
                                SRS of 10 per cluster (N = 1,090,000): < 60 s, width < 5 %
  strata50-replace-N1e6         50 strata, replace (2,450 ordered cross-stratum pairs):
                                reported, target < 120 s

Exit status 1 if a target is missed, else 0.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run from a checkout even without an install
    sys.path.insert(0, str(REPO))

from verifydp.audit.instance import full_size_answer  # noqa: E402
from verifydp.audit.spec import load_design, parse_design  # noqa: E402

WIDTH = Fraction(5, 100)
# examples whose full-size answer is, by design, only a lower bound or out of reach
EXPECTED_OPEN = {"must_bootstrap": "lower bound only", "business_survey_neyman": "lower bound only"}


def _strata(n: int, rounding: str) -> dict[str, int]:
    base = n // 50
    sizes = {f"s{i}": base + 7 * i - 171 for i in range(50)}
    sizes["s0"] += n - sum(sizes.values())
    return sizes


SYNTHETIC: dict[str, tuple[dict, float]] = {
    "srswor-N1e6": ({"population": {"size": 10**6}, "design": {"kind": "srswor", "m": 10**5},
                     "protect": {"relation": "replace"}}, 60.0),
    "srswr-N1e6": ({"population": {"size": 10**6}, "design": {"kind": "srswr", "m": 1000}},
                   60.0),
    "poisson-N1e6": ({"population": {"size": 10**6}, "design": {"kind": "poisson", "q": "1/1000"},
                      "target": {"epsilon": 0.001, "delta": "1e-6"}}, 60.0),
    "strata50-N1e6": ({"population": {"strata": _strata(10**6, "randomised")},
                       "design": {"kind": "stratified-proportional", "r": "1/10",
                                  "rounding": "randomised"}}, 60.0),
    "two-stage-1e4-clusters": ({"population": {"clusters": [{"size": 60 + 2 * i, "count": 200}
                                                            for i in range(50)]},
                                "design": {"kind": "two-stage-cluster", "ell": 300,
                                           "within": "srs", "m": 10}}, 60.0),
    "strata50-replace-N1e6": ({"population": {"strata": _strata(10**6, "half-up")},
                               "design": {"kind": "stratified-proportional", "r": "1/10",
                                          "rounding": "half-up"},
                               "protect": {"relation": "replace"}}, 120.0),
}


def _spec(body: dict) -> object:
    doc = {"name": "bench", "base": {"epsilon": 1.0}, "target": {"epsilon": 0.5}, **body}
    return parse_design(doc)


def _width(ans: object, spec: object) -> float | None:
    """Relative width of the bracket; for δ' relative to max(upper end, target δ), since a
    true δ' of 0 has no relative scale of its own."""
    b = ans.bracket  # type: ignore[attr-defined]
    if b is None or b.lower is None or b.upper is None:
        return None
    scale = b.upper
    if ans.quantity == "delta":  # type: ignore[attr-defined]
        scale = max(scale, spec.target.delta)  # type: ignore[attr-defined]
    return 0.0 if scale == 0 else float((b.upper - b.lower) / scale)


def _case(name: str, spec: object, target_s: float, open_reason: str | None) -> dict:
    start = time.perf_counter()
    ans = full_size_answer(spec)  # type: ignore[arg-type]
    secs = time.perf_counter() - start
    width = _width(ans, spec)
    text = ans.text()
    if open_reason is not None:
        ok = open_reason in text and secs < target_s
    else:
        ok = width is not None and width < WIDTH and secs < target_s
    return {"name": name, "seconds": round(secs, 3), "target_s": target_s,
            "relative_width": width, "verdict": ans.verdict, "ok": ok, "detail": text}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--only", default="")
    args = ap.parse_args(argv)
    rows = []
    for path in sorted((REPO / "examples").glob("*.toml")):
        if args.only in f"examples/{path.name}":
            rows.append(_case(f"examples/{path.name}", load_design(path), 60.0,
                              EXPECTED_OPEN.get(path.stem)))
    for name, (body, target) in SYNTHETIC.items():
        if args.only in name:
            rows.append(_case(name, _spec(body), target, None))
    if not rows:
        print(f"no benchmark matches {args.only!r}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        for r in rows:
            w = "-" if r["relative_width"] is None else f"{r['relative_width']:.2e}"
            print(f"{r['name']:<58} {r['seconds']:>8.2f} s  width {w:>9}  "
                  f"{r['verdict']:<12} {'PASS' if r['ok'] else 'FAIL'}")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
