"""Which pair is composed for the upper end: the orientation rule, decided here alone
(issue 26; proofs/deployment_pairs.md#orientation).

T releases are bounded by the T-fold composition of one pair (P, Q) only if *every*
release's pair, in the order the dataset pair (D, D') fixes, is dominated by (P, Q) at every
γ > 0 (Zhu, Dong & Wang 2022, Theorem 10). Under add/remove D ⊂ D' for the whole run, and
every per-step derivation here gives domination at every γ in that order, so (P, Q) and
(Q, P) are composed as they are (`compose` takes both orders). Under substitution neither
run is the plain K(f(S)): given the common part, a release is (1−q)K(0) + qK(a) against
(1−q)K(0) + qK(b), and which order is the larger one at γ < 1 changes with the other
records' values, which the adversary may pick per release (Lebeda, Regehr, Kamath & Steinke
2024). A pair dominates such steps at every γ only if it dominates both orders, so the
upper end composes the symmetrisation (`composition.Symmetrised`) of a pair whose profile at
γ ≥ 1 bounds both orders of every step:

* ``displaced`` (and the in-place branches of sizes that follow the data, a count's
  ``added``): by Balle, Barthe & Gaboardi 2018 (Theorem 2, advanced joint convexity),
  H_γ((1−q)μ₀ + qμ₁ ‖ (1−q)μ₀ + qμ₁′) = qH_γ′(μ₁ ‖ (1−β)μ₀ + βμ₁′) ≤ q·max(H_γ′(K(a)‖K(0)),
  H_γ′(K(a)‖K(b))) ≤ qH_γ′(K(d)‖K(0)) = H_γ((1−q)K(0) + qK(d) ‖ K(0)) for γ ≥ 1, |a|, |b|,
  |a − b| ≤ d, in both orders: the displaced pair's forward profile, so its symmetrisation;
* ``swapped`` and ``moved`` with Gaussian noise: the two-sided alignment of
  proofs/deployment_pairs.md#moved dominates every step *in the dataset pair's order* at
  every γ (the record's strata are fixed by (D, D'), and the swapped pair is its own
  mirror image), so they are composed as they are;
* ``swapped`` and ``moved`` with Laplace or discrete Gaussian noise: that alignment is not
  proved, so the pair is widened to what the same convexity argument proves — the
  displaced pair at rate max(a, b) with the shift the two sides can differ by
  (2C for swapped, d_h + d_g for moved), symmetrised;
* a pure shift K(s) against K(0), randomized response's symmetric pair and a profile's
  pair (`atoms.ProfilePair`, with replacement under substitution) are their own mirror
  images and dominate every step as they are (a shift pair: monotone in |s|).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from verifydp.accounting.atoms import FinitePair, ProfilePair
from verifydp.accounting.composition import AnyPair, Pair, Revealed, Symmetrised
from verifydp.accounting.forms import Dominating, bernoulli, law_pair

__all__ = ["oriented"]

_ALIGNED = ("swapped", "moved")  # fixed-order domination proved for Gaussian noise


def _shift_only(pair: Pair) -> bool:
    return len(pair.p) == 1 and len(pair.q) == 1


def _mirrored(pair: FinitePair) -> bool:
    """Swapping the sides is a relabelling of the outputs."""
    return pair.q == pair.p[::-1]


def _widened(pair: Pair) -> Pair | Symmetrised:
    """(1−a)K(0) + aK(s) against (1−b)K(0) + bK(−s′) (swapped: a = b, s = s′ = C; moved):
    the displaced pair at rate max(a, b) and shift s + s′, symmetrised (module docstring);
    at rate 1 that is the shift pair K(s + s′) against K(0), its own mirror image (and a
    symmetrisation whose loss-0 atom is exactly 0 cannot be certified non-negative)."""
    rate = max(sum((w for w, c in side if c != 0), Fraction(0)) for side in (pair.p, pair.q))
    span = max(c for _, c in pair.p) - min(c for _, c in pair.q)
    inner = law_pair(bernoulli(rate), span, pair.scale, pair.kernel, "displaced",
                     f"{pair.name}, widened: displaced at rate {rate}, shift {span}")
    return inner if _shift_only(inner) else Symmetrised(inner, inner.name)


def _leaf(pair: Pair | FinitePair | Symmetrised, form: str) -> Pair | FinitePair | Symmetrised:
    if isinstance(pair, Symmetrised):
        return pair
    if isinstance(pair, FinitePair):
        return pair if _mirrored(pair) else Symmetrised(pair, pair.name)
    if _shift_only(pair):
        return pair
    if form in _ALIGNED:
        return pair if pair.kernel == "gauss" else _widened(pair)
    return Symmetrised(pair, pair.name)


def _upper(pair: AnyPair, form: str) -> AnyPair:
    if isinstance(pair, ProfilePair):  # symmetric by construction: both orders at once
        return pair
    if isinstance(pair, Revealed):
        return Revealed(tuple((w, _leaf(b, form)) for w, b in pair.branches), pair.name)
    return _leaf(pair, form)


def oriented(d: Dominating, add_remove: bool) -> Dominating:
    """`d` with the pair its upper end composes (module docstring); `d.pair` is kept as the
    realisable pair of the lower end."""
    if add_remove:
        return d
    up = _upper(d.pair, d.form)
    if up == d.pair:
        return d
    # a changed aligned pair (swapped, moved) was widened: Gaussian ones are kept as they are
    how = "widened and symmetrised" if d.form in _ALIGNED else "symmetrised"
    return replace(d, upper=up, why=f"{d.why}; upper end: the pair {how}, since under "
                                     f"substitution the dominated order may change from "
                                     f"release to release")
