"""The example deployments of issue 16 (`examples/deploy_*.toml`), audited at full size:
time and bracket width.

For each `examples/deploy_*.toml` this runs the deployment part of `verifydp audit` (the
certified ε at the target δ after T releases, one release, both curves, the named
accountant) and prints the seconds (and of them the named accountant's, a peer library's
time), the certified bracket, its relative width and the accountant's flag. Exit status 1
when an example's deployment part takes 20 s or more, the DP-SGD fixed-batch one (10^4
steps) 5 s or more (issue 29's goal 4, on 2 cores), its relative width is 5 % or more
(issue 16), or when the fixed-size, shuffle or with-replacement example's Poisson
accountant is not flagged. The shuffle example's bracket is not a lattice's (no
amplification assumed above, Chua et al.'s max test below: its width is the gap between
them), so it is held to issue 30's own goal instead of 5 %: half the 61 % the issue measured
(≤ 30.5 %), with the report stating the open gap; it misses that today (61 %: no upper
theorem below no amplification, docs/design-files.md#shuffle). The proportional-allocation example
misses 5 % today (its upper end aligns shifts that a concrete dataset cannot all realise:
proofs/deployment_pairs.md#resized), and so does the with-replacement example under
substitution (16 %: its upper end is at the floor of any single dominating pair, the
rest is the composition's, docs/design-files.md#copies); the bench reports them. Poisson PPS under add/remove and successive PPS are within 5 % since issue 30
(the others' inclusions or arrival clocks shown: #pps, #successive). The balls-and-bins
example (issue 30) must be within 1 % and under 30 s.

    python bench/deployment.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from verifydp.audit.deployment import audit_deployment
from verifydp.audit.spec import AuditSpec, load_design, parse_design

try:  # Python ≥ 3.11; `tomli` is the same parser for 3.10
    import tomllib
except ModuleNotFoundError:
    import tomli as tomllib  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parents[1]
MAX_SECONDS = 20.0
FAST = {"deploy_dpsgd_fixed_batch.toml": 5.0}  # issue 29: 10^4 steps in 5 s
MAX_WIDTH = 0.05
NARROW = {"deploy_dpsgd_balls_and_bins.toml": 0.01,  # issue 30: balls-and-bins within 1 %
          "deploy_dpsgd_shuffle.toml": 0.305}  # issue 30: at least halve the 61 % it measured
FLAGGED = ("fixed_batch", "shuffle", "with_replacement")  # Poisson accountants that understate


def _runs() -> list[tuple[str, AuditSpec]]:
    """Every example, and the household survey once more with an open block frame (issue 30:
    a household forming its own block displaces a drawn one)."""
    out = []
    for path in sorted((ROOT / "examples").glob("deploy_*.toml")):
        out.append((path.name, load_design(path)))
        if path.name == "deploy_household_two_stage.toml":
            obj = tomllib.loads(path.read_text())
            obj["protect"]["clusters"] = "open"
            out.append((f"{path.stem} (open frame)", parse_design(obj)))
    return out


def main() -> int:
    misses = []
    for name, spec in _runs():
        marks: dict[str, float] = {}
        t = time.perf_counter()
        dep = audit_deployment(spec, progress=lambda s, marks=marks: marks.setdefault(s.split(" (")[0],
                                                                        time.perf_counter()))
        secs = time.perf_counter() - t
        peer = t + secs - marks.get("your accountant", t + secs)
        width = dep.relative_width
        print(f"{name:40s} {secs:6.1f} s (accountant {peer:.1f} s)  {dep.headline()}  "
              f"width {width:.2%}")
        if dep.accountant is not None:
            print(f"{'':40s} {dep.accountant.note}")
        limit = FAST.get(name, MAX_SECONDS)
        if secs >= limit:
            misses.append(f"{name}: {secs:.1f} s ≥ {limit} s")
        if dep.note:
            print(f"{'':40s} {dep.note}")
        most = NARROW.get(name, MAX_WIDTH)
        if width >= most:
            misses.append(f"{name}: relative width {width:.2%} ≥ {most:.1%}")
        if "shuffle" in name and "gap is open" not in (dep.note or ""):
            misses.append(f"{name}: the report does not state the open gap")
        flagged = dep.accountant is not None and dep.accountant.understates is not None
        if any(k in name for k in FLAGGED) and not flagged:
            misses.append(f"{name}: the Poisson accountant was not flagged")
    for m in misses:
        print(f"MISS {m}")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
