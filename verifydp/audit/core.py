"""`audit(design) -> Report`: what privacy a proposed sampling design really gives (issue 6).

Steps: validate the design file (spec), confront it with the catalogued theorems (bounds),
build the scaled-down instance (instance) and solve the exact worst case over *all* base
mechanisms of the stated class on it (verifydp.worstcase), at the base ε (certified bracket of
e^ε) and on a grid of ε for the plots; then red flags, a nearby better design when there is
one, and a replayable witness whenever the instance violates the target.

Soundness: verdicts compare certified brackets only (exact rationals and rigorous intervals);
the floats in the report are for display. A catalogued theorem is applied only under its
checked hypotheses (verifydp.audit.bounds); each applied upper bound is then evaluated at the
instance's own parameters and confronted with the certified worst case there: a bound below
the certified lower bound is a contradiction (a refutation of that application, issue 14
item 3), reported with its numbers and never counted as "met".
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import sympy

from verifydp.audit.bounds import Bound, best_lower, best_upper, catalogue_bounds, copies_law
from verifydp.audit.deployment import audit_deployment
from verifydp.audit.flags import red_flags
from verifydp.audit.instance import (
    FullSizeAnswer,
    Instance,
    Scenario,
    build_instance,
    full_size_answer,
    full_size_plan,
)
from verifydp.audit.report import (
    Contradiction,
    ExactPoint,
    FullSizePoint,
    HockeyPoint,
    Report,
    Suggestion,
    Verdicts,
    decimal_text,
    effect_delta,
)
from verifydp.audit.spec import (
    AuditSpec,
    DesignFileError,
    build_design,
    load_design,
    one_release,
)
from verifydp.designs import DesignError
from verifydp.epsilon import EpsSpec
from verifydp.exact.special import brackets_for_eps, exp_bracket
from verifydp.population import Relation
from verifydp.witness import Witness, write_witness
from verifydp.worstcase import MechanismClass, RegionTooLarge, worst_case_hockey, worst_case_ratio
from verifydp.worstcase.lp import LPFailure

Progress = Callable[[str], None]
GRID_FACTORS = (Fraction(1, 4), Fraction(1, 2), Fraction(2), Fraction(4))
MAX_LP_POINTS = 60_000


def coarse_bracket(eps: Fraction) -> tuple[Fraction, Fraction]:
    """Rationals t_lo ≤ e^ε ≤ t_hi with 2^-32 denominators: the rigorous bracket rounded
    outward, so that exact certification does not carry 128-bit denominators around."""
    lo, hi = brackets_for_eps(eps)
    scale = 1 << 32
    return (Fraction(math.floor(lo * scale), scale), Fraction(math.ceil(hi * scale), scale))


def _t_of(eps: Fraction) -> Fraction:
    """A rational t close to e^ε: grid points are solved at t exactly (ε = log t)."""
    return Fraction(math.exp(float(eps))).limit_denominator(64)


def _solve_ratio(scenarios: tuple[Scenario, ...], laws: list[Any], spec: AuditSpec,
                 t_lo: Fraction, t_hi: Fraction, label: float,
                 eps: Fraction | None = None) -> ExactPoint:
    mclass = MechanismClass(spec.base.relation, t_lo, t_hi)
    best: ExactPoint | None = None
    for sc, (lp, lq) in zip(scenarios, laws, strict=True):
        wc = worst_case_ratio(lp, lq, mclass, max_points=MAX_LP_POINTS, classes=sc.classes())
        w = wc.worst
        pt = ExactPoint(label, t_lo, t_hi, w.lower, wc.upper, sc,
                        "forward" if w is wc.forward else "backward", w.witness, wc.lp_points,
                        eps)
        if best is None or pt.beats(best):
            best = pt
    assert best is not None
    return best


def _solve_hockey(scenarios: tuple[Scenario, ...], laws: list[Any], spec: AuditSpec,
                  tp_lo: Fraction, tp_hi: Fraction, label: float,
                  eps: Fraction | None = None) -> HockeyPoint:
    t_lo, t_hi = coarse_bracket(spec.base.epsilon)
    mclass = MechanismClass(spec.base.relation, t_lo, t_hi, spec.base.delta)
    best: HockeyPoint | None = None
    for sc, (lp, lq) in zip(scenarios, laws, strict=True):
        wc = worst_case_hockey(lp, lq, mclass, tp_lo, tp_hi, max_points=MAX_LP_POINTS,
                               classes=sc.classes())
        w = wc.worst
        pt = HockeyPoint(label, tp_lo, tp_hi, w.lower or Fraction(0), wc.upper, sc,
                         "forward" if w is wc.forward else "backward", w.witness, eps)
        if best is None or pt.lower > best.lower:
            best = pt
    assert best is not None
    return best


def _grid(spec: AuditSpec) -> list[Fraction]:
    eps = spec.base.epsilon
    grid = spec.eps_grid or tuple(eps * f for f in GRID_FACTORS if eps * f <= 20)
    return sorted(set(grid) - {eps})


def _at_eps(spec: AuditSpec, e: Fraction) -> AuditSpec:
    """The design file with the base at ε = e (a point of the ε grid)."""
    return dataclasses.replace(spec, base=dataclasses.replace(spec.base, epsilon=e))


def _at_eps_prime(spec: AuditSpec, ep: Fraction) -> AuditSpec:
    """The design file asking for δ' at ε' = ep (a point of the privacy profile)."""
    return dataclasses.replace(spec, target=dataclasses.replace(spec.target, epsilon=ep))


def _short(x: float) -> Fraction:
    """x to 3 significant digits, as the exact decimal it reads as (0.00183, not 5/2731)."""
    return Fraction(f"{x:.3g}")


def _eps_primes(spec: AuditSpec, full: list[FullSizePoint], main: ExactPoint | None
                ) -> list[Fraction]:
    """The ε' of the privacy profile δ'(ε') beside the target's: 1/4, 1/2 and 3/4 of ε' at
    the base ε — at full size where it is certified above, else on the instance (only where
    to evaluate, never a reported number), else twice the target."""
    top: float | None = None
    base = next((p for p in full if p.quantity == "ratio" and p.eps == spec.base.epsilon), None)
    if base is not None and base.complete and base.upper is not None:
        top = math.log(base.upper)
    elif main is not None:
        top = main.eps_prime_upper()
    reach = (top if top and math.isfinite(top) and top > 0 else
             float(spec.target.epsilon * 2))
    taken = {p.eps_prime for p in full if p.eps_prime is not None}
    out = []
    for f in (0.25, 0.5, 0.75):
        ep = _short(reach * f)
        if ep > 0 and abs(ep - spec.target.epsilon) > spec.target.epsilon / 20 and \
                ep not in taken:
            taken.add(ep)
            out.append(ep)
    return out


def _copies(spec: AuditSpec) -> Fraction | None:
    """Pr[K ≥ 2]: copies of one record in a with-replacement sample (exact, when cheap)."""
    p = spec.params
    if spec.kind == "srswr":
        law = copies_law("wr", spec.size, None, p["m"])
    elif spec.kind.startswith("must-"):
        law = copies_law(spec.kind, spec.size, p["b"], p["m"])
    else:
        return None
    return None if law is None else 1 - law.prob(0) - law.prob(1)


def _instance_spec(spec: AuditSpec, sc: Scenario) -> AuditSpec | None:
    """The design file restated at the instance's own parameters (the scenario's population
    size and scaled design), so that a theorem stated for every population can be evaluated
    where the exact worst case was computed. None for designs whose instance is not one
    population of the same kind (stratified, Neyman, PPS, fixed-order systematic)."""
    shape, p = sc.shape, spec.params
    if spec.kind in ("poisson", "srswor", "srswr", "proportional", "systematic-random") or \
            spec.kind.startswith("must-"):
        params = {k: (Fraction(shape[k]) if isinstance(v, Fraction) else shape[k])
                  if k in shape else v for k, v in p.items()}
        return dataclasses.replace(spec, size=int(shape["N"]), params=params, design=sc.design)
    if spec.kind == "random-size":
        law = dict(sc.design.size_law)  # type: ignore[attr-defined]
        return dataclasses.replace(spec, size=int(shape["N"]), params={**p, "size_law": law},
                                   design=sc.design)
    if spec.kind == "cluster-srs":
        sizes = tuple(int(x) for x in shape["cluster sizes"])
        return dataclasses.replace(spec, size=sum(sizes), clusters=sizes,
                                   params={**p, "ell": int(shape["ell"])}, design=sc.design)
    return None


def _exp_hi(x: Fraction) -> Fraction:
    return exp_bracket(x).hi


def _full_size_contradictions(spec: AuditSpec, neyman_delta: int | None,
                              full: list[FullSizePoint]) -> list[Contradiction]:
    """The applied upper bounds at the design file's own N against the certified worst case
    there (verifydp.audit.instance.full_size_answer), at every point solved: e^{ε'} at each ε
    of the grid for a pure statement, δ' at each ε'' (computed at e^{ε''} ≥ the bracket of
    ε'') for an (ε', δ') statement whose ε' is at most ε''."""
    bounds = [b for b in catalogue_bounds(spec, neyman_delta)
              if b.applies and b.direction == "upper" and b.expr is not None]
    out: list[Contradiction] = []
    where = f"full size N = {spec.size}"
    for p in full:
        fb = p.answer.bracket
        if fb is None:
            continue
        for b in bounds:
            br = b.eps_prime(p.eps)
            if br is None:
                continue
            pure = b.delta_prime is None or b.delta_prime.hi == 0
            if p.quantity == "ratio":
                if pure and (fb.lower is None or _exp_hi(br.hi) < fb.lower):
                    out.append(Contradiction(b.claim, "upper",
                                             f"ε = {decimal_text(p.eps)}, {where}",
                                             br, (fb.lower, fb.upper), fb.worst))
            elif b.delta_prime is not None and p.eps_prime is not None and \
                    br.hi <= p.eps_prime and fb.lower is not None and \
                    fb.lower > b.delta_prime.hi:
                out.append(Contradiction(
                    b.claim, "upper", f"δ'(ε' = {decimal_text(p.eps_prime)}), {where}",
                    b.delta_prime, (fb.lower, fb.upper), fb.worst, "delta_prime"))
    return out


def contradictions(spec: AuditSpec, points: list[ExactPoint], hockey: list[HockeyPoint],
                   neyman_delta: int | None = None, full: list[FullSizePoint] | None = None
                   ) -> tuple[Contradiction, ...]:
    """Applied upper bounds, evaluated at the instance's parameters, that the certified worst
    case of the instance refutes. A pure bound (δ' = 0) is confronted with the certified lower
    bound of e^{ε'} at each exact point; a bound stating δ' > 0 with the certified lower bound
    of δ'(ε'') at every exact ε'' ≥ its ε' (δ' is non-increasing in ε'). The exact points are
    over ε-DP base mechanisms under the design file's relation on the instance's pairs, which
    the theorem's hypotheses (checked on the restated design) cover."""
    out: list[Contradiction] = []
    cache: dict[str, list[Bound]] = {}

    def bounds_for(sc: Scenario) -> list[Bound]:
        if sc.label not in cache:
            ispec = _instance_spec(spec, sc)
            cache[sc.label] = [] if ispec is None else [
                b for b in catalogue_bounds(ispec, neyman_delta)
                if b.applies and b.direction == "upper" and b.expr is not None]
        return cache[sc.label]

    for p in points:
        eps = p.eps if p.eps is not None else spec.base.epsilon
        for b in bounds_for(p.scenario):
            if b.delta_prime is not None and b.delta_prime.hi > 0:
                continue  # an (ε', δ') statement: confronted with δ'(ε') below
            br = b.eps_prime(eps)
            if br is not None and (p.lower is None or _exp_hi(br.hi) < p.lower):
                out.append(Contradiction(b.claim, "upper",
                                         f"ε = {decimal_text(eps)} on the scaled instance", br,
                                         (None if p.lower is None else p.lower,
                                          p.upper), p.scenario.label))
    for h in hockey:  # solved for the base ε's class
        for b in bounds_for(h.scenario):
            br = b.eps_prime(spec.base.epsilon)
            dp = b.delta_prime if b.delta_prime is not None else None
            if br is None or dp is None:
                continue
            if h.tp_lo >= _exp_hi(br.hi) and h.lower > dp.hi:
                out.append(Contradiction(b.claim, "upper", f"δ'(ε' = {h.eps_text}), base ε = "
                                         f"{decimal_text(spec.base.epsilon)} on the scaled "
                                         "instance", dp,
                                         (h.lower, h.upper), h.scenario.label, "delta_prime"))
    out += _full_size_contradictions(spec, neyman_delta, full or [])
    seen: set[tuple[str, str]] = set()
    unique = []
    for c in out:
        if (c.claim, c.at) not in seen:
            seen.add((c.claim, c.at))
            unique.append(c)
    return tuple(unique)


def _verdicts(spec: AuditSpec, main: ExactPoint | None, hockey: HockeyPoint | None,
              at_base: HockeyPoint | None, bounds: list[Bound],
              contra: tuple[Contradiction, ...] = (),
              full_size: FullSizeAnswer | None = None) -> Verdicts:
    """`hockey`: δ'(ε') at the target ε'; `at_base`: δ'(ε) at ε' = ε (bases with δ > 0).
    Bounds contradicted on the instance count for nothing at full size."""
    eps, target = spec.base.epsilon, spec.target
    tt_lo, tt_hi = brackets_for_eps(target.epsilon)
    bad = frozenset(c.claim for c in contra)
    up = best_upper(bounds, eps, bad)
    low = best_lower(bounds, eps)
    effect, why = "undetermined", []
    if main is not None:
        effect = main.effect
        if effect == "undetermined":
            why.append(main.why_inconclusive())
    elif at_base is not None:
        effect = effect_delta(at_base.lower, at_base.upper, spec.base.delta)
    if target.delta == 0 and main is not None:
        lo_r, up_r = main.lower, main.upper
        target_inst = ("violated" if lo_r is None or lo_r > tt_hi else "met"
                       if up_r is not None and up_r <= tt_lo else "undetermined")
        if target_inst == "undetermined":
            why.append(f"the certified bracket of e^ε' on the instance, "
                       f"[{float(lo_r):.6g}, {float(up_r or math.inf):.6g}], contains "
                       f"e^ε' at the target ε' = {decimal_text(target.epsilon)}")
    else:
        target_inst = _hockey_target(hockey, target.delta)
    full = "undetermined"
    if low is not None and low[1].lo > target.epsilon:
        full = "violated"
    elif any(_meets(b, eps, target.epsilon, target.delta) for b in bounds
             if b.claim not in bad):
        full = "met"
    if full == "undetermined" and full_size is not None:  # the exact worst case at N
        full = full_size.verdict
    return Verdicts(effect, target_inst, full, up, low, "; ".join(why))


def _meets(b: Bound, eps: Fraction, t_eps: Fraction, t_delta: Fraction) -> bool:
    """An applicable upper bound certifying (ε', δ') within the target at full size."""
    if b.direction != "upper" or not b.applies:
        return False
    br = b.eps_prime(eps)
    dp = b.delta_prime
    return br is not None and br.hi <= t_eps and (dp is None or dp.hi <= t_delta)


def _hockey_target(hockey: HockeyPoint | None, delta: Fraction) -> str:
    if hockey is None:
        return "undetermined"
    if hockey.lower > delta:
        return "violated"
    if hockey.upper is not None and hockey.upper <= delta:
        return "met"
    return "undetermined"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "design"


def _witness(spec: AuditSpec, main: ExactPoint | None, hockey: HockeyPoint | None,
             verdicts: Verdicts) -> Witness | None:
    """A replayable witness of the target's violation on the instance (verifydp replay)."""
    if verdicts.target_instance != "violated":
        return None
    eps = EpsSpec.of_eps(spec.base.epsilon)
    tgt = sympy.Rational(spec.target.epsilon.numerator, spec.target.epsilon.denominator)
    common = {"claim": f"audit/{_slug(spec.name)}", "base_relation": spec.base.relation,
              "eps": eps, "delta": spec.base.delta, "params": {}}
    if spec.target.delta == 0 and main is not None and main.witness is not None:
        sc = main.scenario
        return Witness(pair=sc.pair, design=sc.design, design_prime=sc.design_prime,
                       quantity="ratio", direction=main.direction, acceptance=main.witness,
                       claimed_expr=sympy.exp(tgt), t_prime_expr=None,
                       claimed_text=f"target e^ε' = e^{float(tgt):g}",
                       actual_text=main.ratio_text(), **common)  # type: ignore[arg-type]
    if hockey is None or hockey.witness is None:
        return None
    sc = hockey.scenario
    d = spec.target.delta
    return Witness(pair=sc.pair, design=sc.design, design_prime=sc.design_prime,
                   quantity="hockey", direction=hockey.direction, acceptance=hockey.witness,
                   claimed_expr=sympy.Rational(d.numerator, d.denominator),
                   t_prime_expr=sympy.exp(tgt),
                   claimed_text=f"target δ' = {d} at ε' = {float(tgt):g}",
                   actual_text=f"δ' ≥ {float(hockey.lower):.6g}",
                   **common)  # type: ignore[arg-type]


# ---------------------------------------------------------------- suggestions


def _alternative(spec: AuditSpec) -> tuple[str, AuditSpec] | None:
    """A nearby design that avoids the main red flag, or None."""
    p, kind = dict(spec.params), spec.kind
    new: tuple[str, dict[str, Any]] | None = None
    why = ""
    if kind in ("proportional", "stratified-proportional") and p["rounding"] != "randomised":
        new, why = (kind, {**p, "rounding": "randomised"}), "randomised instead of " \
            f"{p['rounding']} rounding"
    elif kind == "stratified-neyman":
        r = Fraction(p["m"], spec.size)
        if 0 < r < 1:
            new = ("stratified-proportional", {"r": r, "rounding": "randomised"})
            why = f"proportional allocation r = m/N = {decimal_text(r)} with randomised " \
                  "rounding instead of Neyman allocation"
    elif (kind == "srswr" or kind.startswith("must-") or kind == "srswor") \
            and 0 < p["m"] <= spec.size:
        if spec.protect is Relation.ADD_REMOVE:
            # a fixed size lets an added record displace another: Poisson does not
            q = Fraction(p["m"], spec.size)
            new = ("poisson", {"q": q})
            why = f"Poisson sampling with the same expected size (q = m/N = {decimal_text(q)})"
        elif kind != "srswor":
            new = ("srswor", {"m": p["m"]})
            why = f"one stage without replacement (SRSWOR of m = {p['m']}): no copies"
    elif kind == "systematic-fixed":
        new = ("systematic-random", {"interval": p["interval"]})
        why = "systematic sampling over a uniformly random, secret order"
    if new is None:
        return None
    try:
        design = build_design(*new)
    except (DesignError, ValueError):
        return None
    return why, dataclasses.replace(spec, kind=new[0], params=new[1], design=design)


def _suggest(spec: AuditSpec, main: ExactPoint | None, progress: Progress,
             here: FullSizePoint | None = None) -> Suggestion | None:
    """A nearby design when it is much better (its ε' below 0.9 × the file's at the base ε):
    compared at full size when both are certified there (`here`: the file's own point), else
    on the scaled instances."""
    alt = _alternative(spec)
    if alt is None or main is None:
        return None
    why, other = alt
    progress(f"nearby design: {other.kind}")
    t_lo, t_hi = coarse_bracket(spec.base.epsilon)
    try:  # the alternative is advice: if it cannot be solved, there is no suggestion
        inst = build_instance(other)
        laws = [sc.laws() for sc in inst.scenarios]
        pt = _solve_ratio(inst.scenarios, laws, other, t_lo, t_hi, float(spec.base.epsilon))
    except (RegionTooLarge, LPFailure, DesignError):
        return None
    try:
        there: FullSizePoint | None = FullSizePoint(
            full_size_answer(other, quantity="ratio"), spec.base.epsilon)
    except DesignError:
        there = None
    bounds = catalogue_bounds(other, _neyman_delta(inst))
    up = best_upper(bounds, spec.base.epsilon)
    cur = main.eps_prime_lower()
    alt_eps = pt.eps_prime_upper()
    if here is not None and here.solved and there is not None and there.complete and \
            there.upper is not None:  # like with like: both at full size
        cur = None if here.lower is None else math.log(here.lower)
        alt_eps = math.log(there.upper)
    if cur is None or (alt_eps is not None and alt_eps < 0.9 * cur):
        return Suggestion(why, other.kind, other.params, pt, up, inst.note, there, spec.size)
    return None


def _neyman_delta(inst: Instance) -> int | None:
    return None if inst.neyman is None else inst.neyman.delta


# ---------------------------------------------------------------- the audit


def planned_steps(spec: AuditSpec, grid: bool = True) -> int:
    """How many times `audit` calls `progress` at most (for a progress bar's total): the grid
    at full size, and on the scaled instance the base ε plus, at most, every point full size
    leaves out of reach."""
    pure = spec.base.delta == 0
    n_grid = len(_grid(spec)) if grid else 0
    steps = 3 + (1 + 2 * n_grid if pure else 1)  # instance, theorems, full size; the grid
    if spec.base.delta > 0 or spec.target.delta > 0 or grid:
        steps += 1 + (6 if grid else 0)  # δ' at the target; three ε' at full size and scaled
    return steps + 2  # a nearby design, a witness


def audit(design: AuditSpec | str | Path | dict[str, Any], progress: Progress | None = None,
          witness_dir: Path | str | None = None, grid: bool = True,
          deployment: bool = True) -> Report:
    """Audit a design (a validated spec, a TOML path, or a parsed dict).

    `progress(step)` is called before each step; `witness_dir` receives a witness file when the
    instance violates the target; `grid=False` skips the ε grid (plots then show one point).
    A file with `[mechanism]` or `[composition]` also gets its deployment's answer
    (`Report.deployment`, `audit.deployment`) unless `deployment=False`.
    """
    from verifydp.audit.spec import parse_design

    spec = design if isinstance(design, AuditSpec) else (
        parse_design(design) if isinstance(design, dict) else load_design(design))
    whole, spec = spec, one_release(spec)  # shuffle: one batch; its epochs: deployment part
    step = progress or (lambda _s: None)
    step("scaled-down instance")
    try:  # a design outside its domain on this population is the design file's problem
        inst = build_instance(spec)
        laws = [sc.laws() for sc in inst.scenarios]
    except DesignError as exc:
        raise DesignFileError(f"design: {exc}") from None
    step("catalogued theorems")
    bounds = catalogue_bounds(spec, _neyman_delta(inst))
    eps = spec.base.epsilon
    want_hockey = spec.base.delta > 0 or spec.target.delta > 0 or grid
    step("exact worst case at full size")
    plan = full_size_plan(spec)  # the orbits do not depend on ε, ε' or δ: built once
    full_size = full_size_answer(spec, plan=plan)
    # an (ε', δ') target is answered by δ' at ε'; with a pure base the ratio at the file's N is
    # solved too, so the single release leads with ε' at full size (issue 27)
    full_ratio = (full_size_answer(spec, plan=plan, quantity="ratio")
                  if full_size.quantity == "delta" and spec.base.delta == 0 else None)
    main: ExactPoint | None = None
    points: list[ExactPoint] = []
    notes: list[str] = []  # the full-size answer is the report's own table (issue 27)
    if whole.kind == "shuffle":
        notes.append(f"shuffle: this single-release audit is of one batch (b = "
                     f"{whole.params['batch']} of N without replacement); the epochs are in "
                     f"the deployment part")
    hockey_pts: list[HockeyPoint] = []
    # the grid at full size first (issue 27): a scaled instance only where it is out of reach
    full_grid: list[FullSizePoint] = []
    if spec.base.delta == 0:
        base_ratio = full_size if full_size.quantity == "ratio" else full_ratio
        assert base_ratio is not None
        full_grid.append(FullSizePoint(base_ratio, eps, None, full_size.quantity == "ratio"))
        for e in _grid(spec) if grid else []:
            step(f"exact worst case at full size, ε = {decimal_text(e)}")
            full_grid.append(FullSizePoint(full_size_answer(
                _at_eps(spec, e), plan=plan, quantity="ratio"), e))

    def attempt(what: str, solve: Callable[[], Any]) -> Any:
        """One exact solve; a solver failure is reported, and the other points stand."""
        step(what)
        try:
            return solve()
        except (RegionTooLarge, LPFailure) as exc:
            notes.append(f"{what}: not solved ({type(exc).__name__}: {exc})")
            return None

    def scaled(solve: Callable[..., Any], what: str, x: Fraction, why: str = "") -> Any:
        """`solve` (ratio at ε = x, or δ' at ε' = x) on the scaled instance, at the rigorous
        bracket of e^x, so the point is at the user's value."""
        lo, hi = coarse_bracket(x)
        return attempt(f"{what} on the scaled instance{why}",
                       lambda: solve(inst.scenarios, laws, spec, lo, hi, float(x), x))

    out_of_reach = " (out of reach at full size)"
    if spec.base.delta == 0:  # the base ε on the instance: the witness and the cross-check
        main = scaled(_solve_ratio, f"exact worst case at ε = {decimal_text(eps)}", eps)
        if main is not None:  # points[0] is the base ε
            points.append(main)
            for fp in full_grid[1:]:
                if not fp.solved:
                    pt = scaled(_solve_ratio, f"exact worst case at ε = {decimal_text(fp.eps)}",
                                fp.eps, out_of_reach)
                    if pt is not None:
                        points.append(pt)
    base_hockey = target_hockey = None
    if spec.base.delta > 0 and spec.target.epsilon != eps:  # the effect: δ'(ε) against δ
        full_grid.append(FullSizePoint(
            full_size_answer(_at_eps_prime(spec, eps), plan=plan, quantity="delta"),
            eps, eps, False, spec.base.delta))
    if spec.base.delta > 0:
        base_hockey = scaled(_solve_hockey, f"exact δ'(ε') at ε' = ε = {decimal_text(eps)}",
                             eps)
    if want_hockey:
        target = spec.target.epsilon
        at_target = (FullSizePoint(full_size, eps, target, True, spec.base.delta)
                     if full_size.quantity == "delta" else FullSizePoint(full_size_answer(
                         _at_eps_prime(spec, target), plan=plan, quantity="delta"),
                         eps, target))
        full_grid.append(at_target)
        # the instance's δ' at the target: the witness and the instance's verdict of an
        # (ε', δ') target, and the answer there when full size is out of reach
        if spec.target.delta > 0 or spec.base.delta > 0 or not at_target.solved:
            target_hockey = scaled(_solve_hockey, f"exact δ'(ε') at ε' = {decimal_text(target)}",
                                   target)
        for ep in _eps_primes(spec, full_grid, main) if grid else []:
            step(f"exact δ'(ε') at full size, ε' = {decimal_text(ep)}")
            fp = FullSizePoint(full_size_answer(_at_eps_prime(spec, ep), plan=plan,
                                                quantity="delta"), eps, ep)
            full_grid.append(fp)
            if fp.solved:
                continue
            hp = scaled(_solve_hockey, f"exact δ'(ε') at ε' = {decimal_text(ep)}", ep,
                        out_of_reach)
            if hp is not None:
                hockey_pts.append(hp)
    hockey_pts += [h for h in (base_hockey, target_hockey) if h is not None]
    hockey_pts = sorted(hockey_pts, key=lambda h: h.label)
    contra = contradictions(spec, points, hockey_pts, _neyman_delta(inst), full_grid)
    verdicts = _verdicts(spec, main, target_hockey, base_hockey, bounds, contra, full_size)
    flags = red_flags(spec, _copies(spec))
    suggestion = _suggest(spec, main, step, full_grid[0] if spec.base.delta == 0 else None)
    witness = _witness(spec, main, target_hockey, verdicts)
    path = None
    if witness is not None and witness_dir is not None:
        step("writing witness")
        path = write_witness(witness, Path(witness_dir))
    dep = None
    if deployment and (spec.mechanism is not None or spec.composition is not None):
        dep = audit_deployment(whole, step)  # the named mechanism, T releases, the accountant
    return Report(whole, inst, bounds, points, hockey_pts, verdicts, flags, suggestion,
                  witness, str(path) if path else None, tuple(notes), contra, dep, full_size,
                  full_ratio, tuple(full_grid))
