"""Auditing a deployment: the named mechanism, T releases, and the user's accountant (issue 16).

Given a design file with `[mechanism]` and `[composition]` (docs/design-files.md#deployment),
this computes

* the certified ε at the target δ (or δ at the target ε) after T releases, as a bracket
  [lo, hi]: the largest over the design's per-step dominating pairs
  (`verifydp.accounting.dominating`, each realisable, so lo is attained by a concrete dataset
  pair and hi holds for every one) of `compose`'s certified bracket; lattice refined until
  the relative width is at most the file's `rtol`;
* the same for one release;
* when `[accountant]` names one, that accountant's ε (a peer library, imported lazily) and a
  flag when it is below the certified lower bound.

Releases either draw a new sample each (`resample = true`, DP-SGD: the product of per-step
pairs) or all use one sample (`resample = false`, a survey publishing T tables: one draw of
the sample, then T releases). For the latter, with the record in the sample at most once
(K ∈ {0, 1}, probability q) and (A, B) the T-fold pair of the bare mechanism, the pair is
((1−q)B + qA, B) and, exactly (Balle, Barthe & Gaboardi 2018, Theorem 2 for the first):

    δ_{P‖Q}(ε) = q · δ_{A‖B}(log(1 + (e^ε − 1)/q)),
    δ_{Q‖P}(ε) = (1 − e^ε(1−q)) · δ_{B‖A}(−log c),   c = (1 − e^ε(1−q)) / (e^ε q) ∈ (0, 1],

(δ_{Q‖P} = 0 when c ≤ 0); δ_{A‖B} = δ_{B‖A} for a shifted Gaussian or Laplace (reflection),
and δ(·) is non-increasing, so rational ends of the arguments' enclosures keep it certified.

Shuffling into fixed batches (`kind = "shuffle"`, one release per batch, ⌊N/b⌋ per epoch) has
no tight dominating pair (Chua et al., ICML 2024 and NeurIPS 2024), so its bracket is not a
lattice bracket: the upper end assumes no amplification (an epoch is one release at the
substitution diameter, E epochs its E-fold composition; proofs/deployment_pairs.md#shuffle),
the lower end is Chua et al.'s max test on a concrete pair (`verifydp.accounting.shuffle`).

Balls-and-bins (`kind = "balls-and-bins"`, each record in one of the t = ⌊N/b⌋ steps of an
epoch, independently, afresh each epoch) has a tight pair per epoch (Chua et al., AISTATS
2025), certified on both ends by `verifydp.accounting.ballsbins`: E epochs are its E-fold
composition (proofs/deployment_pairs.md#balls-and-bins).
Papers and claim ids: docs/foundations.md#composition.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from math import comb
from typing import Any

import flint

from verifydp.accounting import (
    Composed,
    FinitePair,
    Grid,
    Pair,
    allocation_gaussian,
    composed,
    invert_delta,
)
from verifydp.accounting.atoms import discrete_gaussian_sf
from verifydp.accounting.ballsbins import Allocation, unresolved_mass
from verifydp.accounting.chained import chained_upper
from verifydp.accounting.composition import (
    AnyPair,
    composed_spread,
    memo_cells,
    realised_lower,
)
from verifydp.accounting.dominating import (
    COPY_KINDS,
    KERNELS,
    Dominating,
    copies_chain,
    dominating_pairs,
    law_pair,
)
from verifydp.accounting.shuffle import shuffle_lower
from verifydp.accounting.threshold import ThresholdTest, count_test, mixture_count_test
from verifydp.accounting.twopoint import GaussianShift, gaussian_shift
from verifydp.audit.spec import (
    AuditSpec,
    CompositionSpec,
    DesignFileError,
    allocation_rate,
    steps_per_epoch,
)
from verifydp.exact.arb import ball, kernel_cdf, rational
from verifydp.exact.interval import Bracket
from verifydp.exact.numtext import decimal_string, readable
from verifydp.population import Relation

__all__ = ["AccountantResult", "Deployment", "allocation_delta", "audit_deployment",
           "number_json", "shuffle_delta"]

_TOL = Fraction(1, 2000)   # bisection tolerance of ε(δ), relative
_MAX_REFINE = 3
_CURVE_EPS = tuple(Fraction(k, 20) for k in (4, 7, 10, 13, 16, 20, 24, 30, 40))  # × ε(T)
_CURVE_TOL = Fraction(1, 50)  # plotted points: a coarser bisection (still certified)


def number_json(b: Bracket) -> dict[str, Any]:
    """{"lo", "hi", "lo_float", "hi_float"}: decimal strings rounded outward (9 digits), in
    the report's one JSON number format (verifydp.audit.numbers, issue 27)."""
    return {"lo": decimal_string(b.lo, False, 9), "hi": decimal_string(b.hi, True, 9),
            "lo_float": float(b.lo), "hi_float": float(b.hi)}


def _fmt(b: Bracket) -> str:
    return f"[{float(b.lo):.6g}, {float(b.hi):.6g}]"


# ---------------------------------------------------------------- certified pieces


DeltaFn = Callable[[Fraction], Bracket]


def _max(fns: list[DeltaFn]) -> DeltaFn:
    """The worst case over candidates: each covers its dataset pairs, so the largest."""
    def delta(eps: Fraction) -> Bracket:
        bs = [f(eps) for f in fns]
        return Bracket(max(b.lo for b in bs), max(b.hi for b in bs))
    return delta


def _plain(d: Dominating, steps: int, grid: Grid, target: float | None = None) -> DeltaFn:
    """δ(ε) of one realisable pair composed T times, with a truncated law's tail (laws.py):
    δ ≤ δ₀ + Tτ and δ ≥ δ₀ − Tτ(1 + e^ε). When the dominating pair is not itself realisable
    (randomized response under substitution), the lower end is `d.lower`'s, which is."""
    c = composed(d.upper_pair, steps, grid, target=target)
    # the lower end: the realisable pair (`d.lower`, else `d.pair` when the upper end composes
    # another pair: proofs/deployment_pairs.md#orientation), its buckets alone
    real_pair = d.lower if d.lower is not None else (d.pair if d.upper is not None else None)
    low = (composed(real_pair, steps, grid, directions=(), target=target)
           if real_pair is not None else None)
    tests: list[Callable[[Fraction], Fraction]] = []
    if d.realised is not None:
        r = d.realised
        tests.append(mixture_count_test(r.kernel, tuple((w, t / r.noise) for w, t in r.comps),
                                        steps, f"others at −C, the record at +C, {r.where}"
                                        ).delta)
        real = Pair(r.comps, ((Fraction(1), Fraction(0)),), r.noise, r.kernel,
                    "realised (loss not monotone: a test only)")
        tests.append(realised_lower(real, steps, grid))

    def delta(eps: Fraction) -> Bracket:
        b = c.delta(eps)  # its lower end counts only when c's pair is the realisable one
        lo = max([b.lo if real_pair is None else Fraction(0),
                  *([low.delta_lower(eps)] if low is not None else []),
                  *(t(eps) for t in tests)])
        if lo > b.hi:  # a realisable pair above a proved bound: a bug, never hidden
            raise ArithmeticError(f"{d.form}: lower end {float(lo):.6g} above the upper end "
                                  f"{float(b.hi):.6g} at ε = {eps}")
        b = Bracket(lo, b.hi)
        lo = b.lo - (steps * d.tail * (1 + rational(ball(eps).exp(), up=True)) if d.tail else 0)
        hi = min(b.hi + steps * d.tail, Fraction(1))
        return Bracket(max(lo, Fraction(0)), max(hi, Fraction(0)))
    return delta


_MAX_REVEALED_STEPS = 5000
_BREAKS = 8


def _revealed(d: Dominating, steps: int, grid: Grid, budget: Fraction,
              target: float | None = None) -> DeltaFn:
    """Clusters: the draws of the record's cluster J ~ Bin(T, a) are revealed (a common
    label, the same law under both datasets), so δ ≤ Σ_j Pr(J = j) δ_{P^j‖Q^j}; δ_j is
    non-decreasing in j (drop coordinates: post-processing), so j is rounded up to a few
    breakpoints, and J beyond the last one counts δ = 1. The lower end is the concrete pair
    `d.lower` (realisable) composed T times."""
    a = d.reveal
    assert a is not None and d.lower is not None
    if steps > _MAX_REVEALED_STEPS:
        raise DesignFileError(f"composition.steps: {steps} releases of a cluster design exceed "
                              f"the limit {_MAX_REVEALED_STEPS} of the revealed-cluster bound")
    pmf = [comb(steps, j) * a**j * (1 - a) ** (steps - j) for j in range(steps + 1)]
    tail, top = Fraction(0), steps
    while top > 0 and tail + pmf[top] < budget:  # counted as δ = 1
        tail += pmf[top]
        top -= 1
    if top <= 16:
        breaks = list(range(1, top + 1))
    else:
        breaks = sorted({max(1, round(top * (i / _BREAKS) ** 2)) for i in range(1, _BREAKS + 1)}
                        | {top})
    # (Pr(J rounded up to j), Pr(J rounded down to j), the j-fold pair); the mixture over j
    # is summed one order at a time (P‖Q, then Q‖P), never mixing the orders: the upper end
    # from `d.upper_pair` (symmetrised under substitution, so both orders agree), the
    # revealed lower end from the realisable `d.pair`
    eta = _misclassified(d) if d.separation else None
    parts: list[tuple[Fraction, Fraction, Composed | GaussianShift]] = []
    shown_parts: list[Composed | GaussianShift] = []
    prev = 0
    for i, j in enumerate(breaks):
        nxt = breaks[i + 1] if i + 1 < len(breaks) else steps + 1
        up = _j_fold(d.upper_pair, j, grid, target)
        parts.append((sum(pmf[prev + 1:j + 1], Fraction(0)), sum(pmf[j:nxt], Fraction(0)),
                      up))
        if eta is not None:
            shown_parts.append(up if d.upper is None else _j_fold(d.pair, j, grid, target))
        prev = j
    low = _lower_end(d.lower, steps, grid)

    def delta(eps: Fraction) -> Bracket:
        per = [[c.delta_direction(eps, o) for _, _, c in parts] for o in (0, 1)]
        hi = tail + max(sum((w * b.hi for (w, _, _), b in zip(parts, bs, strict=True)),
                            Fraction(0)) for bs in per)
        lo = low(eps)
        if eta is not None:  # the revealed mixture, less what misclassification can cost
            per = [[c.delta_direction(eps, o) for c in shown_parts] for o in (0, 1)]
            shown = max(sum((w * b.lo for (_, w, _), b in zip(parts, bs, strict=True)),
                            Fraction(0)) for bs in per)
            lo = max(lo, shown - steps * eta * (1 + rational(ball(eps).exp(), up=True)))
        return Bracket(lo, max(min(hi, Fraction(1)), lo))
    return delta


def _shifted(pair: Pair | FinitePair) -> tuple[Fraction, Fraction] | None:
    """(rate, shift) when `pair` is the added pair (1 − r)K(0) + rK(shift) against K(0), or
    (1, |a − b|) for K(a) against K(b) (a translation of K(|a − b|) against K(0), in
    either order: the kernels are symmetric)."""
    if not isinstance(pair, Pair):
        return None
    if (len(pair.p) == len(pair.q) == 1 and pair.p[0][0] == pair.q[0][0] == 1
            and pair.p[0][1] != pair.q[0][1]):
        return Fraction(1), abs(pair.p[0][1] - pair.q[0][1])
    if pair.q != ((Fraction(1), Fraction(0)),):
        return None
    far = [(w, c) for w, c in pair.p if c != 0]
    if len(far) != 1 or far[0][1] <= 0:
        return None
    return far[0]


def _j_fold(pair: AnyPair, j: int, grid: Grid, target: float | None = None
            ) -> Composed | GaussianShift:
    """The j-fold pair of a revealed cluster: the two-point Gaussian pair in closed form (a
    whole displaced cluster moves the output by many noise units: a lattice over that loss
    range would be huge), every other pair by the certified accountant."""
    sh = _shifted(pair)
    if sh is not None and sh[0] == 1 and isinstance(pair, Pair) and pair.kernel == "gauss":
        return gaussian_shift(sh[1], pair.scale, j)
    return composed(pair, j, grid, target=target)


_COUNT_TEST_SHIFT = 4  # noise units: beyond, a realised added pair is bounded by a test


def _lower_end(pair: Pair | FinitePair | None, steps: int, grid: Grid
               ) -> Callable[[Fraction], Fraction]:
    """A certified lower end of δ(ε) of a realised pair after T releases: composed, or, for an
    added pair shifted by many noise units (a new cluster displacing a whole one), the
    threshold-count test (`accounting.threshold.count_test`)."""
    assert pair is not None
    sh = _shifted(pair)
    if (sh is not None and isinstance(pair, Pair) and pair.kernel in ("gauss", "laplace")
            and sh[1] > _COUNT_TEST_SHIFT * pair.scale):
        test = count_test(pair.kernel, sh[1] / pair.scale, sh[0], steps)
        return test.delta
    return composed(pair, steps, grid, directions=()).delta_lower  # buckets only


def _misclassified(d: Dominating) -> Fraction:
    """Per-step total variation between the concrete cluster pair (cluster-mates at −C,
    other clusters at +C: drawing the record's cluster moves the output by −s, s =
    `separation`) relabelled by the test y < −s/2, and the revealed pair. A component at 0 is
    misread with probability S(s/2), one at −s or −s + shift with at most S(s/2 − shift), S
    the kernel's survival function; then δ_concrete ≥ δ_revealed − Tη(1 + e^ε), because
    H_γ moves by at most TV(P, P') + γ TV(Q, Q')."""
    assert d.reveal is not None
    shift = max(c for _, c in d.pair.p)
    half = d.separation / 2
    if half <= shift:
        return Fraction(1)
    scale = ball(d.pair.scale)

    def sf(x: Fraction) -> flint.arb:  # x > 0
        if d.pair.kernel == "dgauss":  # an upper bound of Pr(noise ≥ x): η only grows
            return discrete_gaussian_sf(x, d.pair.scale)
        return kernel_cdf(d.pair.kernel, -ball(x) / scale, True)

    a = ball(d.reveal)
    return rational((1 - a) * sf(half) + a * sf(half - shift), up=True)


def _one_sample(cs: list[tuple[Composed, Fraction]]) -> DeltaFn:
    """δ(ε) of ((1−q)B + qA, B) from the T-fold (A, B) (module docstring)."""
    def delta(eps: Fraction) -> Bracket:
        e = ball(eps).exp()
        lo = hi = Fraction(0)
        for c, q in cs:
            qa = ball(q)
            a = (1 + (e - 1) / qa).log()
            b1 = (c.delta(rational(a, up=False)), c.delta(rational(a, up=True)))
            lo = max(lo, q * b1[1].lo)
            hi = max(hi, q * b1[0].hi)
            f = 1 - e * (1 - qa)
            if f.upper() <= 0:
                continue
            if not f.lower() > 0:  # c straddles 0: δ_{Q‖P} ≤ f⁺ · δ(0)
                hi = max(hi, rational(f, up=True) * c.delta(Fraction(0)).hi)
                continue
            arg = -(f / (e * qa)).log()
            lo = max(lo, rational(f, up=False) * c.delta(rational(arg, up=True)).lo)
            hi = max(hi, rational(f, up=True) * c.delta(max(rational(arg, up=False), Fraction(0))).hi)
        return Bracket(max(lo, Fraction(0)), min(max(hi, lo), Fraction(1)))
    return delta


def _shuffle_low(spec: AuditSpec, steps: int) -> ThresholdTest:
    """The lower end of a shuffling loader after `steps` releases: Chua et al.'s max test
    on the concrete pair (`verifydp.accounting.shuffle`)."""
    mech = spec.mechanism
    assert mech is not None
    b = spec.params["batch"]
    return shuffle_lower(KERNELS[mech.kind], mech.diameter / mech.noise, spec.size // b,
                         spec.size, b, steps, spec.protect is Relation.ADD_REMOVE)


def _shuffle_up(spec: AuditSpec, steps: int, grid: Grid) -> Composed:
    """The upper end: the one-release pair at the substitution diameter d composed over the
    epochs begun (releases past the last whole epoch are at most one more such release).
    Under add/remove too: coupled, the record trades places with one of the records that sit
    the epoch out, so its batch is a substitution (proofs/deployment_pairs.md#shuffle)."""
    mech = spec.mechanism
    assert mech is not None
    per_epoch = spec.size // spec.params["batch"]
    single = law_pair(((1, Fraction(1)),), mech.diameter, mech.noise, KERNELS[mech.kind],
                      "added", "shuffle: one release at shift d per epoch")
    return composed(single, -(-steps // per_epoch), grid)


def shuffle_delta(spec: AuditSpec, steps: int, grid: Grid) -> DeltaFn:
    """δ(ε) of a shuffling loader: [max test, no-amplification composition]."""
    up, low = _shuffle_up(spec, steps, grid), _shuffle_low(spec, steps)

    def delta(eps: Fraction) -> Bracket:
        lo, hi = low.delta(eps), min(up.delta(eps).hi, Fraction(1))
        if lo > hi:  # a realisable pair above a dominating bound: a bug, never hidden
            raise ArithmeticError(f"shuffle: lower end {float(lo):.6g} above the upper end "
                                  f"{float(hi):.6g} at ε = {eps}")
        return Bracket(lo, hi)
    return delta


def _allocation_pair(spec: AuditSpec) -> Allocation:
    """A balls-and-bins loader's epoch pair: t = ⌊N/b⌋ steps, σ = noise / clip."""
    mech = spec.mechanism
    assert mech is not None
    return allocation_gaussian(steps_per_epoch(spec.size, spec.params["batch"]),
                               mech.noise / mech.magnitude)


def allocation_delta(spec: AuditSpec, steps: int, grid: Grid, target: float | None = None
                     ) -> DeltaFn:
    """δ(ε) of a balls-and-bins loader after `steps` releases: E = steps/t epochs of the
    epoch pair (`verifydp.accounting.ballsbins`), both ends certified. A partial last epoch
    is bracketed by the epochs begun (its steps are a post-processing of a whole epoch's) and
    the epochs completed (dropping releases is post-processing too)."""
    pair = _allocation_pair(spec)
    whole, part = divmod(steps, pair.bins)
    up = composed(pair, whole + (part > 0), grid, target=target)
    low = composed(pair, whole, grid, directions=()) if part and whole else None

    def delta(eps: Fraction) -> Bracket:
        b = up.delta(eps)
        lo = b.lo if not part else (low.delta_lower(eps) if low is not None else Fraction(0))
        if lo > b.hi:  # a dominated pair above a dominating one: a bug, never hidden
            raise ArithmeticError(f"balls-and-bins: lower end {float(lo):.6g} above the "
                                  f"upper end {float(b.hi):.6g} at ε = {eps}")
        return Bracket(lo, min(b.hi, Fraction(1)))
    return delta


def _allocation_resolvable(spec: AuditSpec, comp: CompositionSpec) -> None:
    """Refuse, before any certified work, an ε(δ) that the balls-and-bins lattices cannot
    reach: the P-mass their capped windows send to +∞, over the epochs, is at least δ
    (heavy-tailed likelihood-ratio terms at small σ), so every certified upper end of δ(ε)
    stays above δ."""
    assert comp.delta is not None
    pair = _allocation_pair(spec)
    t, sigma = pair.bins, pair.sigma
    epochs = -(-comp.steps // t)
    lost = unresolved_mass(pair) * epochs
    if lost >= float(comp.delta):
        raise DesignFileError(
            f"mechanism.noise_multiplier: balls-and-bins at σ = {float(sigma):g} with {t} "
            f"steps per epoch: the epoch's likelihood-ratio terms are too heavy-tailed for the "
            f"certified lattice (about {lost:.2g} of P-mass over {epochs} epochs lies beyond "
            f"its window, at least δ = {float(comp.delta):g}), so no finite ε is certified "
            f"at this δ; ask for δ at an ε instead, or see "
            f"docs/design-files.md#balls-and-bins for the range of σ")


def chained_delta(link: Dominating, steps: int, grid: Grid) -> DeltaFn:
    """δ(ε) of a design that may draw a record twice, under substitution: the upper end
    chains two add/remove links D → D⁻ → D' (`accounting.chained`), each the link pair
    composed T times (its truncated law's tail adds Tτ); the lower end is the link pair
    itself in reverse (the others at one end of the value range, realisable under
    substitution: `dominating.copies_chain`), less Tτ(1 + e^ε) for the truncated law."""
    c = composed(link.pair, steps, grid)
    tail = steps * link.tail

    def up(eps: Fraction) -> Fraction:
        return min(c.delta_upper(eps) + tail, Fraction(1))

    def delta(eps: Fraction) -> Bracket:
        hi = chained_upper(up, eps, lambda e: c.delta_upper_estimate(e) + float(tail))
        lo = c.delta(eps).lo
        if tail:
            lo -= tail * (1 + rational(ball(eps).exp(), up=True))
        if lo > hi:  # a realisable pair above a proved bound: a bug, never hidden
            raise ArithmeticError(f"chained: lower end {float(lo):.6g} above the upper end "
                                  f"{float(hi):.6g} at ε = {eps}")
        return Bracket(max(lo, Fraction(0)), hi)
    return delta


def _epsilon(delta: DeltaFn, target: Fraction, tol: Fraction = _TOL,
             hint: Fraction | None = None) -> Bracket:
    """ε(δ) by the accountant's certified inversion (`verifydp.accounting.invert_delta`)."""
    return invert_delta(delta, target, tol, hint, limit=Fraction(2**10))


# ---------------------------------------------------------------- the audit


@dataclass(frozen=True)
class AccountantResult:
    name: str
    assumes: str
    q: Fraction
    noise_multiplier: Fraction
    steps: int
    value: float | None          # the accountant's ε (or δ), None when it could not run
    note: str                    # why not, or the flag's sentence
    understates: float | None    # certified lo / accountant value, when below the bracket

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "assumes": self.assumes, "q": str(self.q),
                "noise_multiplier": str(self.noise_multiplier), "steps": self.steps,
                "value": self.value, "note": self.note, "understates_by": self.understates}


@dataclass(frozen=True)
class Deployment:
    """The deployment part of a report."""

    mechanism: str
    steps: int
    resample: bool
    quantity: str                 # "epsilon" (at the target δ) or "delta" (at the target ε)
    at: Fraction                  # the target δ or ε
    pairs: tuple[str, ...]        # one line per candidate dominating pair
    result: Bracket               # after T releases
    one_step: Bracket             # after one release
    target: str                   # met / violated / undetermined / not compared
    accountant: AccountantResult | None
    curve_delta: tuple[tuple[Fraction, Bracket], ...] = ()   # (ε, δ(ε)) after T releases
    curve_steps: tuple[tuple[int, Bracket], ...] = ()        # ε (or δ) against steps
    seconds: float = 0.0
    grid_h: Fraction = field(default=Fraction(1, 1000))
    note: str = ""                # what the bracket's ends are, when not one lattice's

    @property
    def relative_width(self) -> float:
        return float(self.result.width / self.result.hi) if self.result.hi else 0.0

    def headline(self) -> str:
        sym, other = ("ε", "δ") if self.quantity == "epsilon" else ("δ", "ε")
        return (f"{sym} at {other} = {float(self.at):g} after {self.steps} releases of "
                f"{self.mechanism}: certified {_fmt(self.result)} (target {self.target})")

    def lines(self) -> list[str]:
        out = [self.headline(),
               f"one release: {_fmt(self.one_step)}; "
               f"{'a new sample per release' if self.resample else 'one sample for all releases'}"]
        if self.note:
            out.append(f"{self.note} (relative width {self.relative_width:.3g})")
        out += [f"dominating pair: {readable(p)}" for p in self.pairs]  # JSON keeps the rationals
        if self.accountant is not None:
            a = self.accountant
            val = "not run" if a.value is None else f"{a.value:.6g}"
            out.append(f"your accountant {a.name} (assumes {a.assumes}, q = {float(a.q):.6g}, "
                       f"noise multiplier {float(a.noise_multiplier):g}, {a.steps} steps): "
                       f"{val}. {a.note}")
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "mechanism": self.mechanism, "steps": self.steps, "resample": self.resample,
            "quantity": self.quantity, "at": str(self.at),
            "result": number_json(self.result), "one_step": number_json(self.one_step),
            "relative_width": self.relative_width, "target": self.target,
            "pairs": list(self.pairs),
            "accountant": None if self.accountant is None else self.accountant.to_json(),
            "curve_delta": [{"epsilon": str(e), "delta": number_json(b)}
                            for e, b in self.curve_delta],
            "curve_steps": [{"steps": t, self.quantity: number_json(b)}
                            for t, b in self.curve_steps],
            "seconds": self.seconds, "lattice_step": str(self.grid_h), "note": self.note,
        }


def candidates(spec: AuditSpec) -> tuple[Dominating, ...]:
    """The design's per-step dominating pairs for the file's mechanism and relation."""
    mech = spec.mechanism
    assert mech is not None
    # shuffle: one batch alone is a fixed-size draw without replacement of b (its one release);
    # balls-and-bins: one step alone holds each record w.p. 1/t, independently (Poisson)
    kind, params = (("srswor", {"m": spec.params["batch"]}) if spec.kind == "shuffle" else
                    ("poisson", {"q": allocation_rate(spec)}) if spec.kind == "balls-and-bins"
                    else (spec.kind, spec.params))
    return dominating_pairs(
        kind, params, spec.size, mech.kind, mech.query, mech.magnitude,
        mech.diameter, mech.noise, spec.protect is Relation.ADD_REMOVE,
        {s.name: s.size for s in spec.strata}, spec.clusters,
        mech.epsilon0 if mech.kind == "randomized-response" else None,
        spec.cluster_frame == "fixed", spec.size_classes, spec.size_measures == "fixed")


def _delta_fn(cands: tuple[Dominating, ...], steps: int, resample: bool, grid: Grid,
              kernel_of: Callable[[Dominating], tuple[Fraction, Fraction, str]],
              budget: Fraction = Fraction(1, 2**64), target: float | None = None) -> DeltaFn:
    """`budget`: mass of a revealed cluster's many-draw tail that may count as δ = 1.
    `target`: the ε (floats) near which δ will be read: the T-fold upper vectors are then
    composed by float FFT tilted there (`accounting.composed(target=…)`; certified at every
    ε, tightest near it). One sample for all releases reads the bare pair at transformed
    arguments, so it takes no target."""
    if resample:
        return _max([_revealed(d, steps, grid, budget, target) if d.reveal is not None else
                     _plain(d, steps, grid, target) for d in cands])
    bases = []
    for d in cands:
        shift, noise, kernel = kernel_of(d)
        bare = law_pair(((1, Fraction(1)),), shift, noise, kernel, "added", "bare mechanism")
        bases.append((composed(bare, steps, grid), d.q))
    return _one_sample(bases)  # type: ignore[arg-type]


def audit_deployment(spec: AuditSpec, progress: Callable[[str], None] | None = None,
                     curves: bool = True) -> Deployment:
    """The deployment part of `verifydp audit` (module docstring). One pair on one lattice
    has its cells certified once for every composition here (`memo_cells`)."""
    with memo_cells():
        return _audit_deployment(spec, progress, curves)


def _audit_deployment(spec: AuditSpec, progress: Callable[[str], None] | None,
                      curves: bool) -> Deployment:
    t0 = time.perf_counter()
    mech, comp = spec.mechanism, spec.composition
    if mech is None:
        raise DesignFileError("mechanism: missing section (the deployment audit needs it)")
    if comp is None:  # a [mechanism] alone: one release at the target's δ
        comp = CompositionSpec(1, spec.target.delta or None,
                               None if spec.target.delta else spec.target.epsilon)
    step = progress or (lambda _s: None)
    # with replacement under substitution: the copy count revealed given the record is drawn
    # (`dominating.copies_revealed`); MUST's two stages have no single pair: two chained links
    substituted_copies = (spec.kind in COPY_KINDS and spec.protect is Relation.REPLACE
                          and mech.kind != "randomized-response")
    chain = substituted_copies and spec.kind != "srswr"
    copies = substituted_copies and spec.kind == "srswr"
    try:
        if chain:
            cands = (copies_chain(spec.kind, spec.params, spec.size, mech.kind, mech.query,
                                  mech.magnitude, mech.diameter, mech.noise),)
        else:
            cands = candidates(spec)
    except ValueError as exc:
        raise DesignFileError(f"design: {exc}") from None
    if chain and not comp.resample:
        raise DesignFileError(f"composition.resample: false is not derived for {spec.kind} "
                              f"under substitution (a new sample per release only)")
    if not comp.resample and mech.kind == "randomized-response":
        raise DesignFileError("composition.resample: false is not derived for "
                              "randomized-response (a new sample per release only)")
    if not comp.resample:
        bad = [d for d in cands if d.q is None or d.form in ("swapped", "moved", "resized")
               or d.reveal is not None or d.lower is not None]
        if bad:
            raise DesignFileError(
                "composition.resample: false is supported when the record is in the sample at "
                f"most once, its value is not swapped in place nor moved between strata, the "
                f"sample size is fixed and the design has no clusters ({bad[0].form} pair "
                f"here)")

    def kernel_of(d: Dominating) -> tuple[Fraction, Fraction, str]:
        shift = max(c for _, c in d.pair.p)
        return shift, d.pair.scale, d.pair.kernel

    quantity_is_eps = comp.delta is not None

    def answer(fn: DeltaFn, tol: Fraction = _TOL, hint: Fraction | None = None) -> Bracket:
        if comp.delta is not None:
            return _epsilon(fn, comp.delta, tol, hint)
        return fn(comp.epsilon)  # type: ignore[arg-type]

    # Laplace tails are heavy: mass beyond z scales goes to +∞, e^{-12}/2 per step at the
    # default z = 12 would floor δ near 1e-5; at z = 60 it is below 1e-26
    z = 60 if mech.kind == "laplace" else Grid().z
    shuffle = spec.kind == "shuffle"
    allocation = spec.kind == "balls-and-bins"
    # balls-and-bins composes epochs, not steps: a few dozen, so a coarse first lattice
    grid = Grid(_ONE_H if allocation else _first_h(cands, comp.steps, chain, copies), z)
    bits = _wide_bits(cands, comp.steps, z)
    if bits is not None:
        grid = replace(grid, h=max(grid.h, _WIDE_H), negligible_bits=bits)
    if allocation and comp.delta is not None:
        _allocation_resolvable(spec, comp)
    fn: DeltaFn
    # a tail counted as δ = 1 widens a bracket of ε(δ) by little if it is far below δ
    budget = comp.delta * comp.rtol / 64 if comp.delta is not None else Fraction(1, 2**64)

    def build(steps: int, g: Grid, target: float | None = None) -> DeltaFn:
        if shuffle:
            return shuffle_delta(spec, steps, g)
        if allocation:
            return allocation_delta(spec, steps, g, target)
        if chain:  # read at every split ε₁ ∈ [0, ε]: no one ε to tilt to
            return chained_delta(cands[0], steps, g)
        return _delta_fn(cands, steps, comp.resample, g, kernel_of, budget, target)

    last: Bracket | None = None
    # δ at the file's ε, or ε(δ) near the last lattice's bracket: the FFT's tilt (certified
    # at every ε; the first lattice of an ε(δ) composes in balls, no ε known yet)
    target = float(comp.epsilon) if comp.epsilon is not None else None
    if copies and target is None:
        # its lattice is not refined (the gap is the composition's): tilt it to the ε(δ) of
        # a coarse lattice in balls (DP-SGD with replacement: 11 s of ball powers → 6 s)
        target = float(answer(build(comp.steps, Grid(_PRE_H, z))).hi)
    for refinement in range(_MAX_REFINE + 1):
        step(f"composing {comp.steps} releases (lattice step {grid.h})")
        fn = build(comp.steps, grid, target)
        try:
            result = answer(fn)
        except ArithmeticError as exc:
            # a lattice too coarse for the loss (its windows sent ≥ δ to +∞): a finer one;
            # any other inconsistency is a bug and is raised
            if "cannot resolve" not in str(exc) or refinement == _MAX_REFINE:
                raise
            grid = replace(grid, h=grid.h * 2 / 5)
            continue
        if result.hi == 0 or result.width <= comp.rtol * result.hi or refinement == _MAX_REFINE:
            break
        if shuffle or chain or copies:  # the gap is the two arguments', not the lattice's
            break
        if last is not None and result.width > last.width * 2 / 3:
            break  # the gap is not the lattice's (revealed clusters): refining cannot close it
        last = result
        if comp.delta is not None:
            target = float(result.lo + result.hi) / 2
        grid = replace(grid, h=grid.h / _finer_by(result, comp.rtol))
    step("one release")
    # randomized response: a few atoms whose largest loss is where ε(δ) of one release sits,
    # split to the lattice points around it (an O(h) gap there); a finer lattice is cheap
    # (otherwise the last lattice when it is coarser: its cells are certified already)
    one_h = Fraction(1, 10**4) if mech.kind == "randomized-response" else max(_ONE_H, grid.h)
    one_grid = replace(grid, h=one_h)
    one = answer(chained_delta(cands[0], 1, one_grid) if chain else
                 _delta_fn(cands, 1, comp.resample, one_grid, kernel_of, budget))
    curve_d: list[tuple[Fraction, Bracket]] = []
    curve_t: list[tuple[int, Bracket]] = []
    if curves:
        step("δ(ε) curve")
        # δ brackets at a grid of ε: ε(δ) is monotone, so they bound the curve ε(δ) too
        top = result.hi if quantity_is_eps else comp.epsilon or Fraction(1)
        curve_d = [(e * top, fn(e * top)) for e in _CURVE_EPS if e * top > 0]
        step("steps curve")
        # a coarser lattice for the plotted points: certified, only the bands are wider
        # (the one-release lattice's: its cells are certified already)
        coarse = replace(grid, h=_COARSE_H if copies else max(grid.h, _ONE_H))
        ts = sorted({max(1, comp.steps // k) for k in (16, 4)} - {comp.steps})
        curve_t = [(t, answer(build(t, coarse, _curve_target(comp, result, t)),
                              _CURVE_TOL, result.hi))
                   for t in ts] + [(comp.steps, result)]
    quantity = "epsilon" if comp.delta is not None else "delta"
    at = comp.delta if comp.delta is not None else comp.epsilon
    assert at is not None
    target = _target(spec, quantity, at, result)
    if spec.accountant is not None:
        step(f"your accountant ({spec.accountant.name})")
    acct = _accountant(spec, quantity, at, result) if spec.accountant is not None else None
    pairs, note = tuple(d.why for d in cands), ""
    if spec.reading:
        note = spec.reading
    elif spec.kind in ("cluster-srs", "two-stage-cluster", "cluster-pps") and (
            spec.cluster_frame == "fixed"):
        note = ("cluster frame stated fixed in the file ([protect] clusters = \"fixed\"): "
                "neighbours that form, dissolve or change a record's cluster are not covered")
    if shuffle:
        per = spec.size // spec.params["batch"]
        pairs = (f"one batch (the one-release line): {pairs[0]}",
                 f"{comp.steps} releases = {-(-comp.steps // per)} epoch(s) of {per} batches: "
                 f"the record is in at most one batch per epoch"
                 + (" (added or removed, it trades places with a record that sits the epoch "
                    "out)" if spec.protect is Relation.ADD_REMOVE else "") +
                 f", so an epoch is at most one release at shift {mech.diameter} (upper end)",
                 f"lower end: {_shuffle_low(spec, comp.steps).describe}")
        note = ("shuffled batches: the upper end assumes no amplification from shuffling; the "
                "lower end is Chua et al.'s max test on a concrete dataset pair (ICML 2024), so "
                "the bracket is wide where neither is tight. The gap is open: no upper end "
                "below no amplification is proved for fixed-size shuffled batches against an "
                "adversary who picks every gradient per step (Chua et al. 2024 give lower "
                "bounds only; balls-and-bins' pair, Chua et al. 2025, is for independent "
                "assignment, not fixed sizes), and no dataset pair is known to reach it")
    if allocation:
        per = steps_per_epoch(spec.size, spec.params["batch"])
        whole, part = divmod(comp.steps, per)
        pairs = (f"one step (the one-release line): {pairs[0]}",
                 f"{comp.steps} releases = {whole} epoch(s) of {per} steps"
                 + (f" and {part} of another (upper end: {whole + 1} whole epochs; lower end: "
                    f"{whole})" if part else "") +
                 f": each epoch the pair P = Σ_i N(e_i, σ²I)/{per} against Q = N(0, σ²I), "
                 f"σ = {float(mech.noise / mech.magnitude):g} (Chua et al. 2025), upper end "
                 f"a mean-preserving spread of its likelihood ratio, lower end a test on "
                 f"the exact law of its terms' floor labels")
    if chain:
        low = ("lower end: that link's pair in reverse (the others at one end of the value "
               "range, the record moved to the other: every copy moves by the diameter)")
        pairs = (f"upper end: a substitution is a removal then an addition (D → D⁻ → D'), so "
                 f"δ(ε) ≤ min over ε₁ + ε₂ = ε of δ₁(ε₁) + e^ε₁·δ₁(ε₂), δ₁ one link: "
                 f"{cands[0].why}", low)
        note = (f"{spec.kind} under substitution: the upper end chains two add/remove steps (a "
                f"group of two neighbours), not a tight pair; the lower end is a concrete "
                f"dataset pair, so the bracket may be wide")
    if copies:
        pairs = (*pairs, "lower end: the copies' pair unrevealed (the others at one end of the "
                         "value range, the record moved to the other: every copy moves by the "
                         "diameter)")
        note = ("with replacement under substitution: any single dominating pair must cover "
                "both orders of the lower end's asymmetric pair (the others may sit at either "
                "end at each release), so the gap is the composition's, not the lattice's; "
                "with Gaussian noise the upper end is the pair of a convex profile bound, "
                "close to that floor, otherwise it shows how many copies a drawn record has "
                "(docs/design-files.md#copies)")
    described = (
        f"randomized-response ε0 = {float(mech.epsilon0):g} on a binary statistic of the sample"
        if mech.kind == "randomized-response" else
        f"{mech.kind} noise {float(mech.noise):g} on a {mech.query} clipped at "
        f"{float(mech.clip):g}" + (f" / {float(mech.divisor):g}" if mech.query == "mean" else ""))
    return Deployment(
        described,
        comp.steps, comp.resample, quantity, at, pairs, result, one,
        target, acct, tuple(curve_d), tuple(curve_t), time.perf_counter() - t0, grid.h, note)


_ONE_H = Fraction(1, 250)   # the one-release lattice (at most)
_WIDE_H = Fraction(1, 10)    # the first lattice of a loss spread over hundreds of nats
_PRE_H = Fraction(1, 40)     # a coarse lattice whose ε(δ) only aims a finer one's FFT tilt
_COARSE_H = Fraction(1, 100)  # the first lattice of a few releases, and of a chained bracket
_LADDER = (Fraction(1, 250), Fraction(1, 500), Fraction(1, 1000))
_H_PER_SD = 4               # lattice points per standard deviation of one release's loss


def _wide_bits(cands: tuple[Dominating, ...], steps: int, z: int) -> int | None:
    """For an added pair shifted by many noise units (a one-record cluster displacing a
    whole drawn cluster: #restructured), the exponent of the negligible mass that keeps the
    lower end's test: its subtracted Q-tail carries the windows' dropped mass times e^ε, and
    ε reaches T times one release's largest loss, s²/2 + s·z for (discrete) Gaussian noise (s
    the shift and z the output range in noise units) and s for Laplace noise, so masses down to
    e^{−that} are kept (arb balls hold them). None for every other pair."""
    worst = 0.0
    for d in cands:
        for pair in (d.upper_pair, d.lower):
            sh = _shifted(pair) if isinstance(pair, Pair) else None
            if sh is not None and sh[1] > _COUNT_TEST_SHIFT * pair.scale:
                s = float(sh[1] / pair.scale)
                worst = max(worst, steps * (s if pair.kernel == "laplace" else s * s / 2 + s * z))
    return None if worst == 0 else Grid().negligible_bits + math.ceil(worst / math.log(2))


def _curve_target(comp: CompositionSpec, result: Bracket, steps: int) -> float | None:
    """Where to tilt the FFT of the steps curve's point at `steps` releases: the file's ε,
    or for ε(δ) the final ε scaled by √(steps/T) (floats aim the tilt; every ε is certified)."""
    if comp.epsilon is not None:
        return float(comp.epsilon)
    return float(result.hi) * math.sqrt(steps / comp.steps) if result.hi > 0 else None


def _first_h(cands: tuple[Dominating, ...], steps: int, chain: bool, copies: bool = False
             ) -> Fraction:
    """The first lattice. Few releases: the lattice error (O(h²) a release) stays small on a
    coarse lattice, and the work (cells ∝ 1/h) drops; a gap that is not the lattice's (a
    revealed cluster, aligned shifts) shows as a width that refining does not shrink, found
    at the price of one finer lattice. Many: the coarsest of `_LADDER` with
    `_H_PER_SD` points per standard deviation of one release's loss (a lattice much coarser
    than the loss itself loses the composed bulk to the windows' ends: Poisson q = 1/234,
    σ = 1.1 at h = 1/100 sends more than δ to +∞), the finest when the spread is not known
    (atoms, revealed mixtures). A chained bracket (substitution with copies) is not refined
    (its gap is the two arguments'), so the coarsest lattice that resolves it; nor is a
    revealed copy count (its gap is the label's), on the coarsest of `_LADDER` (DP-SGD with
    replacement: its δ moves by 0.4 % from there to 1/1000, at a twelfth of the time).
    Floats choose; every lattice is certified, and refinement narrows a bracket wider than
    rtol."""
    if chain or steps < 1000:
        return _COARSE_H
    if copies:
        return _LADDER[0]
    sds = [composed_spread(d.upper_pair, 1) for d in cands]
    if any(sd is None for sd in sds):
        return _LADDER[-1]
    sd = min(sds)  # type: ignore[type-var]
    return next((h for h in _LADDER if h * _H_PER_SD <= sd), _LADDER[-1])


def _finer_by(b: Bracket, rtol: Fraction) -> Fraction:
    """The refinement factor after a bracket wider than rtol: what the O(h²) law predicts
    to reach half of rtol, between 2 and 5/2: a wide bracket may not be the lattice's at all
    (the next level tells), and a bigger step would pay for a lattice it cannot use (floats
    choose; any lattice is certified)."""
    width = float(b.width / b.hi) if b.hi else 1.0
    factor = min(max(math.sqrt(width / (float(rtol) / 2)), 2.0), 2.5)
    return Fraction(factor).limit_denominator(16)


def _target(spec: AuditSpec, quantity: str, at: Fraction, result: Bracket) -> str:
    """The file's [target] against the T-release bracket, when they speak of the same δ/ε."""
    t = spec.target
    if quantity == "epsilon" and t.delta == at:
        bound = t.epsilon
    elif quantity == "delta" and t.epsilon == at and t.delta > 0:
        bound = t.delta
    else:
        return "not compared"
    if result.hi <= bound:
        return "met"
    if result.lo > bound:
        return "violated"
    return "undetermined"


# ---------------------------------------------------------------- the user's accountant


def _rr_pld(q: float, epsilon0: float) -> Any:
    """dp-accounting's PLD of Poisson-subsampled binary randomized response, as a user of
    the library builds it: (1 − q)RR(0) + qRR(1) against RR(0), from its two mass functions,
    both orders (the larger ε is taken)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    keep = math.exp(epsilon0) / (1 + math.exp(epsilon0))
    p = {1: math.log((1 - q) * (1 - keep) + q * keep), 0: math.log((1 - q) * keep + q * (1 - keep))}
    r0 = {1: math.log(1 - keep), 0: math.log(keep)}
    return [pld.from_two_probability_mass_functions(a, b, value_discretization_interval=1e-4)
            for a, b in ((p, r0), (r0, p))]


def peer_value(name: str, mechanism: str, q: float, z: float, steps: int, quantity: str,
               at: float, sensitivity: int = 1, epsilon0: float | None = None) -> float:
    """The named accountant's ε at δ = at (or δ at ε = at), Poisson-subsampled. `z` is the
    noise multiplier (the discrete Gaussian's σ is z·sensitivity, an integer sensitivity);
    randomized response takes `epsilon0`. Raises ImportError when the library is absent."""
    # peers are optional extras ([peers]): imported here so the audit runs without them
    if name == "dp-accounting-pld" and mechanism == "randomized-response":
        assert epsilon0 is not None
        plds = [d.self_compose(steps) for d in _rr_pld(q, epsilon0)]
        return max(d.get_epsilon_for_delta(at) if quantity == "epsilon"
                   else d.get_delta_for_epsilon(at) for d in plds)
    if name == "dp-accounting-pld":
        from dp_accounting.pld import privacy_loss_distribution as pld

        if mechanism == "discrete-gaussian":
            d = pld.from_discrete_gaussian_mechanism(z * sensitivity, sensitivity=sensitivity,
                                                     sampling_prob=q,
                                                     value_discretization_interval=1e-4)
        elif mechanism == "laplace":
            d = pld.from_laplace_mechanism(z, sampling_prob=q,
                                           value_discretization_interval=1e-4)
        else:
            d = pld.from_gaussian_mechanism(z, sampling_prob=q,
                                            value_discretization_interval=1e-4)
        d = d.self_compose(steps)
        return (d.get_epsilon_for_delta(at) if quantity == "epsilon"
                else d.get_delta_for_epsilon(at))
    if name == "dp-accounting-rdp":
        import dp_accounting
        from dp_accounting.rdp import rdp_privacy_accountant as rdp

        acc = rdp.RdpAccountant()
        acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)),
                    steps)
        return acc.get_epsilon(at) if quantity == "epsilon" else acc.get_delta(at)
    if name == "prv-accountant":
        from prv_accountant import PRVAccountant
        from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

        acc = PRVAccountant([PoissonSubsampledGaussianMechanism(q, z)], eps_error=0.01,
                            delta_error=1e-12, max_self_compositions=[steps])
        if quantity == "epsilon":
            return acc.compute_epsilon(at, [steps])[1]
        return acc.compute_delta(at, [steps])[1]
    if name == "autodp":
        from autodp import rdp_acct, rdp_bank

        acct = rdp_acct.anaRDPacct()
        acct.compose_subsampled_mechanism(
            lambda x: rdp_bank.RDP_gaussian({"sigma": z}, x), q, coeff=steps)
        if quantity != "epsilon":
            raise ImportError("autodp's RDP accountant is compared at a target δ only")
        return acct.get_eps(at)
    if name in ("opacus-rdp", "opacus-prv"):
        from opacus.accountants import PRVAccountant, RDPAccountant

        acc = RDPAccountant() if name == "opacus-rdp" else PRVAccountant()
        acc.history = [(z, q, steps)]
        if quantity != "epsilon":
            raise ImportError("opacus accountants are compared at a target δ only")
        return acc.get_epsilon(at)
    raise ImportError(f"unknown accountant {name}")


def _accountant(spec: AuditSpec, quantity: str, at: Fraction,
                result: Bracket) -> AccountantResult:
    a, mech = spec.accountant, spec.mechanism
    assert a is not None and mech is not None
    try:
        value = float(peer_value(
            a.name, mech.kind, float(a.q), float(a.noise_multiplier), a.steps, quantity,
            float(at), int(mech.magnitude) if mech.magnitude.denominator == 1 else 1,
            float(mech.epsilon0) if mech.kind == "randomized-response" else None))
    except ImportError as exc:
        return AccountantResult(a.name, a.assumes, a.q, a.noise_multiplier, a.steps, None,
                                f"not installed or not applicable here ({exc}); install the "
                                f"[peers] extra to compare", None)
    except Exception as exc:  # noqa: BLE001 - a peer library's own failure is reported, not raised
        return AccountantResult(a.name, a.assumes, a.q, a.noise_multiplier, a.steps, None,
                                f"the accountant failed: {exc}", None)
    sampler = {"srswor": "fixed-size batches without replacement", "poisson": "Poisson samples",
               "srswr": "batches with replacement",
               "shuffle": "shuffled fixed batches (one reshuffle per epoch)",
               "balls-and-bins": "balls-and-bins batches (each record in one step per "
                                 "epoch, independently)",
               }.get(spec.kind, f"{spec.kind} samples")
    sym = "ε" if quantity == "epsilon" else "δ"
    understates = None
    if not math.isfinite(value) or Fraction(value) < result.lo:
        ratio = float(result.lo) / value if value > 0 else math.inf
        understates = ratio
        note = (f"FLAG: your accountant assumes {a.assumes}; your loader draws {sampler}: "
                f"certified {sym} ≥ {float(result.lo):.6g}, accountant says {value:.6g}, "
                f"understates by ×{ratio:.3g}.")
    elif Fraction(value) > result.hi:
        times = (f"×{value / float(result.hi):.3g} of the certified upper end" if result.hi > 0
                 else "the certified upper end is 0")
        note = f"conservative: above the certified bracket {_fmt(result)} ({times})."
    else:
        note = f"inside the certified bracket {_fmt(result)}."
    if Fraction(a.steps) != (spec.composition.steps if spec.composition else 1):
        note += " (the accountant was given a different number of steps)"
    return AccountantResult(a.name, a.assumes, a.q, a.noise_multiplier, a.steps, value, note,
                            understates)
