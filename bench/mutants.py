"""Mutation benchmark (issue 8): mutate every encoded formula, run the checkers, report the
share of non-equivalent mutants caught.

    python bench/mutants.py [--quick] [--only SUBSTRING] [--budget SECONDS] [--markdown FILE]

Mutants:
* sympy formulas (bun.THM22_EPS, THM43_EPS, LEMB1_EPS, cluster bounds, series approximations,
  must_profiles LAPLACE_PRINTED / GAUSS_PRINTED, …): one change at one node of the expression
  tree — a constant c → c + 1, c − 1, 2c (this covers operators too: sympy writes a − b as
  a + (−1)·b and a/b as a·b^(−1), so −1 → 0 or +1 turns − into + and / into ·), a sum into a
  product and back, a function dropped (log x → x, exp x → x), and two symbols swapped;
* Python formula functions (must_pa.t2_*, thm5_*): one change in the function's AST — an
  integer constant ±1, an arithmetic operator swapped (+ ↔ −, · ↔ /, ** → ·), two of its
  variables swapped.

Each mutant is judged by
1. the claim's own checker (`Budget(fail_fast=True)`): caught when it is REFUTED, or when the
   checker raises (the mutant is not even a well-defined formula on the claim's domain);
2. else the stronger checker, `verifydp regress`'s comparison with the printed formula: certified
   brackets of both at the claim's instance grid; caught when they are disjoint somewhere.
   For a bound claim, a mutant passing 1 but caught by 2 is labelled a *weakening* when it is
   nowhere certainly tighter than the printed bound on the grid (a looser bound, still true,
   which no sound checker of the statement may refute), else *missed* (the checker's instance
   grid does not reach where the mutant is too tight);
3. else equivalent: proved by sympy (`simplify(mutant − printed) == 0`) or equal to the printed
   formula at every grid point (listed, argued in docs/mutants.md).

Mutation score = caught (1 or 2) / non-equivalent.  The default run (2 processes, 3 s checker
budget per mutant) takes about 6 minutes.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import itertools
import sys
import textwrap
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import sympy

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from verifydp.claims.base import Budget, ClaimResult, Verdict  # noqa: E402
from verifydp.exact.interval import Bracket, bracket  # noqa: E402

Point = dict[str, Fraction]


# ================================================================ sympy mutants


def _local(e: sympy.Basic) -> Iterator[tuple[str, sympy.Basic]]:
    """Single changes at the node `e` itself."""
    if isinstance(e, sympy.Rational) and e not in (sympy.S.Zero,):
        for new, what in ((e + 1, "+1"), (e - 1, "−1"), (2 * e, "×2")):
            yield f"constant {e} → {new} ({what})", new
    elif isinstance(e, sympy.Add):
        yield f"sum → product in {_short(e)}", sympy.Mul(*e.args)
    elif isinstance(e, sympy.Mul) and not any(isinstance(a, sympy.Rational) and a == -1
                                              for a in e.args):
        yield f"product → sum in {_short(e)}", sympy.Add(*e.args)
    elif isinstance(e, sympy.log | sympy.exp):
        yield f"drop {e.func.__name__} in {_short(e)}", e.args[0]


def _short(e: sympy.Basic) -> str:
    s = str(e)
    return s if len(s) <= 40 else s[:37] + "..."


def _rewrite(e: sympy.Basic) -> Iterator[tuple[str, sympy.Basic]]:
    yield from _local(e)
    for i, a in enumerate(e.args):
        for desc, new in _rewrite(a):
            args = list(e.args)
            args[i] = new
            try:
                yield desc, e.func(*args)
            except (TypeError, ValueError):  # e.g. Max of a non-real: not a formula
                continue


def sympy_mutants(expr: sympy.Expr, protect: frozenset[str] = frozenset()
                  ) -> list[tuple[str, sympy.Expr]]:
    """All single-change mutants, deduplicated, never identical to `expr`; symbols named in
    `protect` are not swapped (e.g. auxiliary symbols substituted before evaluation)."""
    out: dict[sympy.Basic, str] = {}
    for desc, new in _rewrite(expr):
        out.setdefault(new, desc)
    syms = sorted((s for s in expr.free_symbols if s.name not in protect), key=lambda s: s.name)
    for a, b in itertools.combinations(syms, 2):
        new = expr.xreplace({a: b, b: a})
        out.setdefault(new, f"swap {a} ↔ {b}")
    out.pop(expr, None)
    return [(d, e) for e, d in out.items()]


def value(expr: sympy.Expr, point: Point) -> Bracket | None:
    """Certified bracket of `expr` at `point` (symbols by name); None when undefined there."""
    subs = {s: sympy.Rational(point[s.name].numerator, point[s.name].denominator)
            for s in expr.free_symbols if s.name in point}
    try:
        return bracket(expr.xreplace(subs))
    except (ValueError, ZeroDivisionError, TypeError):
        return None


def differs(a: Bracket | None, b: Bracket | None) -> bool:
    if a is None or b is None:
        return (a is None) != (b is None)
    return a.hi < b.lo or b.hi < a.lo


# ================================================================ AST mutants (Python formulas)


class _Mutator(ast.NodeTransformer):
    """Applies mutation number `target` (in visiting order) and records its description."""

    SWAP_OPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
                ast.Pow: ast.Mult}

    def __init__(self, target: int, names: tuple[str, ...]) -> None:
        self.target, self.count, self.names, self.desc = target, 0, names, ""

    def _hit(self, desc: str) -> bool:
        hit = self.count == self.target
        self.count += 1
        if hit:
            self.desc = desc
        return hit

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        new = self.SWAP_OPS.get(type(node.op))
        if new is not None and self._hit(
                f"line {node.lineno}: {type(node.op).__name__} → {new.__name__}"):
            return ast.copy_location(ast.BinOp(node.left, new(), node.right), node)
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if isinstance(node.value, int) and not isinstance(node.value, bool):
            for delta in (1, -1):
                if self._hit(f"line {node.lineno}: constant {node.value} → {node.value + delta}"):
                    return ast.copy_location(ast.Constant(node.value + delta), node)
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.names:
            for other in self.names:
                if other != node.id and self._hit(
                        f"line {node.lineno}: variable {node.id} → {other}"):
                    return ast.copy_location(ast.Name(other, ast.Load()), node)
        return node


def ast_mutants(fn: Callable[..., Any], names: tuple[str, ...]
                ) -> list[tuple[str, Callable[..., Any]]]:
    """Every single-change mutant of the Python function `fn` (compiled in its module)."""
    src = textwrap.dedent(inspect.getsource(fn))
    module = sys.modules[fn.__module__]
    out = []
    for i in itertools.count():
        tree = ast.parse(src)
        tree.body[0].body = [s for s in tree.body[0].body  # type: ignore[attr-defined]
                             if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        m = _Mutator(i, names)
        tree = ast.fix_missing_locations(m.visit(tree))
        if not m.desc:
            return out
        ns: dict[str, Any] = dict(vars(module))
        exec(compile(tree, f"<mutant {fn.__name__} #{i}>", "exec"), ns)  # noqa: S102
        out.append((m.desc, ns[fn.__name__]))


# ================================================================ targets


@dataclass(frozen=True)
class Target:
    """One encoded formula: its printed form, the checker it goes through, and the instance
    grid on which the stronger check compares a mutant with the printed formula."""

    name: str
    claim: str
    printed: Any  # a sympy expression or a Python formula function
    check: Callable[[Any, Budget], ClaimResult]
    grid: Callable[[], Iterable[Any]]
    names: tuple[str, ...] = ()  # AST targets: the variables that may be swapped
    protect: frozenset[str] = frozenset()
    direction: str = "equal"  # "upper" / "lower" bound claims admit true weakenings


def _eps_points(**ranges: Iterable[Any]) -> Callable[[], list[Point]]:
    def grid() -> list[Point]:
        keys = list(ranges)
        pts = []
        for vals in itertools.product(*(list(ranges[k]) for k in keys)):
            p = {k: Fraction(v) for k, v in zip(keys, vals)}
            if "m" in p and "n" in p and p["m"] > p["n"]:
                continue
            pts.append(p)
        return pts
    return grid


EPS_VALUES = (Fraction(1, 2), Fraction(1), Fraction(2), Fraction(1, 10))


def _targets() -> list[Target]:
    from verifydp.claims.bun import amplification as bun
    from verifydp.claims.bun import cluster as bun_cluster
    from verifydp.claims.bun import lemmas as bun_lemmas
    from verifydp.claims.must import amplification as must_pa
    from verifydp.claims.must import profiles as must_profiles
    from verifydp.population import Relation

    t: list[Target] = [
        Target("thm2.2 ε'", "bun/thm2.2", bun.THM22_EPS,
               lambda e, b: bun.check_thm22(b, eps_expr=e),
               _eps_points(epsilon=EPS_VALUES, n=(1, 2, 3, 4, 7, 20), m=(0, 1, 2, 3, 7)),
               direction="upper"),
        Target("thm2.2 δ'", "bun/thm2.2", bun.THM22_DELTA,
               lambda e, b: bun.check_thm22(b, delta_expr=e),
               _eps_points(delta=(Fraction(1, 10),), n=(1, 2, 3, 4, 7, 20), m=(0, 1, 2, 3, 7)),
               direction="upper"),
        Target("thm4.3 ε'", "bun/thm4.3", bun.THM43_EPS,
               lambda e, b: bun.check_thm43(b, eps_expr=e),
               _eps_points(epsilon=EPS_VALUES, r=bun.RATES), direction="upper"),
        Target("thm4.3 ≈ 6rε", "bun/thm4.3:approx", bun.THM43_APPROX,
               lambda e, b: bun.check_thm43_approx(b, approx=e),
               _eps_points(epsilon=EPS_VALUES, r=bun.RATES)),
        Target("thm3.1 ≈ aε", "bun/thm3.1:approx", bun.THM31_APPROX,
               lambda e, b: bun.check_thm31_approx(b, approx=e),
               _eps_points(epsilon=EPS_VALUES, a=(Fraction(1, 3), Fraction(1, 2), 1))),
        Target("lemB.1 ε' (corrected reading)", "bun/lemB.1:corrected", bun.LEMB1_EPS,
               lambda e, b: bun.check_lemb1(b, Relation.ADD_REMOVE, "bun/lemB.1:corrected",
                                            eps_expr=e, both_orientations=False),
               _eps_points(epsilon=EPS_VALUES, m=(0, 1, 2, 3), m_prime=(0, 1, 2, 4),
                           P_size=(1, 2, 3, 5)), direction="upper"),
        Target("thm5.2 ε' (upper)", "bun/thm5.2", bun_cluster.THM52_EPS,
               lambda e, b: bun_cluster.check_thm52(b, eps_expr=e),
               _eps_points(epsilon=EPS_VALUES, ell=(1, 2), k=(2, 3, 4), n_i=(1, 2, 3),
                           n_max=(1, 2, 4)), direction="upper"),
        Target("thm5.1 ε' (lower)", "bun/thm5.1", bun_cluster.THM51_EPS,
               lambda e, b: bun_cluster.check_thm51(b, eps_expr=e),
               _eps_points(epsilon=EPS_VALUES, ell=(1, 2), k=(2, 3, 4), n_i=(1, 2, 3),
                           n_min=(1, 2, 4)), direction="lower"),
        Target("lemA.4 bound", "bun/lemA.4", bun_lemmas.LEMA4_EPS,
               lambda e, b: bun_lemmas.check_lema4(b, bound=e),
               _eps_points(epsilon=EPS_VALUES, epsilon_prime=(Fraction(1, 2), 1, 2),
                           q=(Fraction(1, 4), Fraction(1, 2), 1)), direction="upper"),
        Target("thm1 Laplace profile", "must/thm1:laplace", must_profiles.LAPLACE_PRINTED,
               lambda e, b: must_profiles.check_laplace(
                   b, profile=e, group=e.subs(must_profiles.DELTA_1,
                                              must_profiles.J * must_profiles.DELTA_1)),
               _eps_points(epsilon=EPS_VALUES, Delta_1=(1, 2), sigma=(Fraction(1, 2), 1, 3))),
        Target("thm1 Gaussian profile", "must/thm1:gauss", must_profiles.GAUSS_PRINTED,
               lambda e, b: must_profiles.check_gauss(
                   b, profile=e, group=e.subs(must_profiles.DELTA_2,
                                              must_profiles.J * must_profiles.DELTA_2)),
               _eps_points(epsilon=EPS_VALUES, Delta_2=(1, 2), sigma=(Fraction(1, 2), 1, 3))),
    ]
    nm = [(n, m) for n in range(1, 8) for m in range(1, 7)]
    nbm = [(n, b, m) for n in range(1, 8) for b in range(1, n + 1) for m in range(1, 6)]
    t += [
        Target("Table 2 Poisson", "must/table2:poisson", must_pa.t2_poisson,
               lambda f, b: must_pa.check_t2_poisson(b, formula=f),
               lambda: [(Fraction(k, 10),) for k in range(11)], ("gamma",)),
        Target("Table 2 WOR", "must/table2:wor", must_pa.t2_wor,
               lambda f, b: must_pa.check_t2_wor(b, formula=f), lambda: nm, ("n", "m")),
        Target("Table 2 WR", "must/table2:wr", must_pa.t2_wr,
               lambda f, b: must_pa.check_t2_wr(b, formula=f), lambda: nm, ("n", "m", "j")),
        Target("Thm 5(a) MUST.OW", "must/thm5:ow", must_pa.thm5_ow,
               lambda f, b: must_pa.check_thm5_ow(b, formula=f), lambda: nbm, ("n", "b", "m", "j")),
        Target("Thm 5(b) MUST.WO", "must/thm5:wo", must_pa.thm5_wo,
               lambda f, b: must_pa.check_thm5_wo(b, formula=f),
               lambda: [x for x in nbm if x[2] <= x[1]], ("n", "b", "m", "j", "u")),
        Target("Thm 5(c) MUST.WW", "must/thm5:ww", must_pa.thm5_ww,
               lambda f, b: must_pa.check_thm5_ww(b, formula=f), lambda: nbm, ("n", "b", "m", "j", "u")),
    ]
    return t


# ================================================================ judging


@dataclass(frozen=True)
class Outcome:
    target: str
    mutant: str
    verdict: str  # "checker", "crash", "stronger", "equivalent (sympy)", "equivalent (grid)"
    seconds: float


def _formula_equal_on_grid(printed: Callable[..., Any], mutant: Callable[..., Any],
                           grid: Iterable[Any]) -> bool | None:
    """None when the mutant and the printed function differ somewhere on the grid (or the mutant
    fails where the printed one does not); True when they agree everywhere."""
    for args in grid:
        want = printed(*args)
        try:
            got = mutant(*args)
        except Exception:  # noqa: BLE001 — a mutant undefined on the domain differs
            return None
        if any(sympy.expand(sympy.sympify(a) - sympy.sympify(b)) != 0 for a, b in zip(want, got)):
            return None
    return True


def _judge(t: Target, desc: str, mutant: Any, seconds: float) -> Outcome:
    start = time.monotonic()
    try:
        res = t.check(mutant, Budget(seconds, fail_fast=True))
        caught = res.verdict is Verdict.REFUTED
        kind = "checker"
    except Exception:  # noqa: BLE001 — a checker refusing the mutant has detected it
        caught, kind = True, "crash"
    if not caught:
        if isinstance(t.printed, sympy.Basic):
            if sympy.simplify(mutant - t.printed) == 0:
                kind = "equivalent (sympy)"
            elif any(differs(value(mutant, p), value(t.printed, p)) for p in t.grid()):
                kind = "stronger" if t.direction == "equal" else _weaker(t, mutant)
            else:
                kind = "equivalent (grid)"
        else:
            same = _formula_equal_on_grid(t.printed, mutant, t.grid())
            kind = "equivalent (grid)" if same else "stronger"
    return Outcome(t.name, desc, kind, time.monotonic() - start)


def _weaker(t: Target, mutant: sympy.Expr) -> str:
    """For a bound claim: is the mutant a weakening (never certainly tighter than the printed
    bound on the grid, so its statement is as true as the printed one)?"""
    for p in t.grid():
        a, b = value(mutant, p), value(t.printed, p)
        if a is None or b is None:
            continue
        if (a.hi < b.lo) if t.direction == "upper" else (a.lo > b.hi):
            return "stronger (tighter somewhere)"
    return "stronger (looser)"


def mutants_of(t: Target) -> list[tuple[str, Any]]:
    if isinstance(t.printed, sympy.Basic):
        return sympy_mutants(t.printed, t.protect)
    return ast_mutants(t.printed, t.names)


def _run_target(index: int, seconds: float, limit: int | None, progress: bool) -> list[Outcome]:
    """One target (by index: the targets hold lambdas, so workers rebuild them)."""
    t = _targets()[index]
    out = []
    for desc, mut in mutants_of(t)[:limit]:
        o = _judge(t, desc, mut, seconds)
        out.append(o)
        if progress:
            print(f"  {o.verdict:<22} {o.seconds:5.1f}s  {t.name}: {desc}", flush=True)
    return out


def run(names: list[str], seconds: float, limit: int | None = None, progress: bool = True,
        workers: int = 1) -> list[Outcome]:
    """Judge every mutant of the named targets (in `workers` processes)."""
    index = [i for i, t in enumerate(_targets()) if t.name in names]
    if workers <= 1:
        return [o for i in index for o in _run_target(i, seconds, limit, progress)]
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(workers) as pool:
        futs = [pool.submit(_run_target, i, seconds, limit, progress) for i in index]
        return [o for f in futs for o in f.result()]


def score(outcomes: list[Outcome]) -> tuple[int, int, int]:
    """(caught, non-equivalent, equivalent)."""
    equiv = sum(o.verdict.startswith("equivalent") for o in outcomes)
    caught = sum(o.verdict in ("checker", "crash") or o.verdict.startswith("stronger") for o in outcomes)
    return caught, len(outcomes) - equiv, equiv


def markdown(outcomes: list[Outcome]) -> str:
    caught, non_eq, equiv = score(outcomes)
    by_checker = sum(o.verdict in ("checker", "crash") for o in outcomes)
    lines = ["| formula | mutants | caught by the claim's checker | crash | caught only by the "
             "stronger check | equivalent |", "|---|---:|---:|---:|---:|---:|"]
    for name in dict.fromkeys(o.target for o in outcomes):
        os_ = [o for o in outcomes if o.target == name]
        c = sum(o.verdict == "checker" for o in os_)
        cr = sum(o.verdict == "crash" for o in os_)
        s = sum(o.verdict.startswith("stronger") for o in os_)
        e = sum(o.verdict.startswith("equivalent") for o in os_)
        lines.append(f"| {name} | {len(os_)} | {c} | {cr} | {s} | {e} |")
    looser = sum(o.verdict == "stronger (looser)" for o in outcomes)
    maybe_false = non_eq - looser
    lines += ["", f"**Claims' own checkers: {by_checker}/{non_eq} = "
              f"{100 * by_checker / max(non_eq, 1):.1f}% of non-equivalent mutants.** "
              f"{looser} of the misses are looser bounds, which are still *true* statements: a "
              f"sound checker must not refute them; they are caught only by comparison with the "
              f"printed formula (what `verifydp regress` does). Of the {maybe_false} mutants that "
              f"can be false, the checkers catch {by_checker}/{maybe_false} = "
              f"{100 * by_checker / max(maybe_false, 1):.1f}%; the rest are tighter somewhere but "
              f"not refuted within the budget (listed below as 'tighter somewhere').", "",
              f"Checkers plus the comparison with the printed formula: {caught}/{non_eq} = "
              f"{100 * caught / max(non_eq, 1):.1f}% ({equiv} equivalent mutants excluded).", "",
              "### Caught only by the stronger check (comparison with the printed formula)", ""]
    lines += [f"- {o.target}: {o.mutant} — {o.verdict}" for o in outcomes
              if o.verdict.startswith("stronger")] or ["- none"]
    lines += ["", "### Equivalent mutants", ""]
    lines += [f"- {o.target}: {o.mutant} — {o.verdict}" for o in outcomes
              if o.verdict.startswith("equivalent")] or ["- none"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=None, help="targets whose name contains this")
    ap.add_argument("--budget", type=float, default=3.0,
                    help="checker budget per mutant, seconds (default 3)")
    ap.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    ap.add_argument("--limit", type=int, default=None, help="at most N mutants per formula")
    ap.add_argument("--markdown", type=Path, default=None, help="write the tables here")
    args = ap.parse_args(argv)
    names = [t.name for t in _targets() if args.only is None or args.only in t.name]
    start = time.monotonic()
    outcomes = run(names, args.budget, args.limit, workers=args.workers)
    caught, non_eq, equiv = score(outcomes)
    print(f"\nmutation score: {caught}/{non_eq} = {100 * caught / max(non_eq, 1):.1f}% of "
          f"non-equivalent mutants caught ({equiv} equivalent); {time.monotonic() - start:.0f} s")
    if args.markdown:
        args.markdown.write_text(markdown(outcomes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
