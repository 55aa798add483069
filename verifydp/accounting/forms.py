"""The forms of a per-step dominating pair and the record of one candidate (issue 16).

K(c) is the noise kernel centred at c; a the add/remove magnitude, d the substitution
diameter (docs/foundations.md#composition, proofs/deployment_pairs.md). `law_pair` builds the
added / swapped / displaced forms from a law of K (copies of the record in the sample),
`moved_pair` a record moved between two independently sampled groups; `Dominating` records
a candidate with what it covers, `Realised` a concrete dataset pair whose loss is not
monotone (lower ends only).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verifydp.accounting.atoms import FinitePair
from verifydp.accounting.composition import AnyPair, Pair, Revealed

__all__ = ["Dominating", "Realised", "bernoulli", "dyadic", "law_pair", "moved_pair",
           "revealed"]


@dataclass(frozen=True)
class Realised:
    """A concrete dataset pair's step, Σ_i w_i K(c_i) against K(0) (centres of any sign, so
    no monotone loss: its lower end is a threshold-count test, `audit.deployment`)."""

    comps: tuple[tuple[Fraction, Fraction], ...]
    noise: Fraction
    kernel: str
    where: str


@dataclass(frozen=True)
class Dominating:
    """One candidate per-step pair with the share of dataset pairs it covers.

    `law` is the law of K behind it (copies of the record: l ↦ Pr) and `tail` the exact mass
    a truncated law of K left out (δ ≤ δ₀ + Tτ and δ ≥ δ₀ − Tτ(1 + e^ε), accounting.laws).
    `form` is added / swapped / displaced (module docstring); `why` one line for the report."""

    pair: AnyPair
    form: str
    law: tuple[tuple[int, Fraction], ...]
    tail: Fraction
    why: str
    # clusters: the record's cluster is drawn with probability `reveal`, and whether it was
    # may show (its other records can differ from every other cluster's); `pair` is then the
    # step given the cluster is drawn, and `lower` a concrete realisable pair for lower bounds
    reveal: Fraction | None = None
    lower: Pair | FinitePair | None = None
    # when > 0: realisable clusters show the record's cluster up to a misclassification of
    # the output at this distance (cluster-mates at −C, other clusters at +C: shift −m·d)
    separation: Fraction = Fraction(0)
    # a realised pair whose loss is not monotone (a lower end by a count test)
    realised: Realised | None = None
    # the pair composed for the upper end when it is not `pair` itself: set by
    # `accounting.orientation.oriented` alone (a substitution's dominated order may change
    # from release to release); `pair` stays the realisable pair of the lower end
    upper: AnyPair | None = None

    @property
    def upper_pair(self) -> AnyPair:
        """The pair whose T-fold composition bounds δ from above."""
        return self.pair if self.upper is None else self.upper

    @property
    def q(self) -> Fraction | None:
        """Pr(K = 1) when K ∈ {0, 1} (the record is in the sample at most once)."""
        if all(k in (0, 1) for k, _ in self.law):
            return sum((w for k, w in self.law if k == 1), Fraction(0))
        return None


def law_pair(law: tuple[tuple[int, Fraction], ...], shift: Fraction, noise: Fraction,
             kernel: str, form: str, name: str = "") -> Pair:
    """The pair of a law of K: ``displaced``/``added`` put copy l at l·shift against K(0);
    ``swapped`` puts it at ±shift. The loss is non-decreasing in x for every kernel: against
    K(0) every component's likelihood ratio K(x − c)/K(x) is non-decreasing for c ≥ 0; for
    ``swapped`` (K ≤ 1) the ratio ((1−π) + πK(x−s)/K(x)) / ((1−π) + πK(x+s)/K(x)) has a
    non-decreasing numerator and non-increasing denominator. For the discrete Gaussian
    (``dgauss``, Canonne, Kamath & Steinke 2020) the ratios are the continuous Gaussian's at
    integer x (the normaliser is common), so the same holds; its shifts must be integers."""
    law = tuple((int(k), Fraction(w)) for k, w in law if w)
    total = sum(w for _, w in law)
    law = tuple((k, w / total) for k, w in law)  # a truncated law, renormalised (tail apart)
    p = tuple((w, Fraction(k) * shift) for k, w in law)
    if form == "swapped":
        q = tuple((w, -Fraction(k) * shift) for k, w in law)
    else:
        q = ((Fraction(1), Fraction(0)),)
    return Pair(p, q, Fraction(noise), kernel, name)


def moved_pair(a: Fraction, b: Fraction, shift: Fraction, noise: Fraction, kernel: str,
               name: str = "", shift_q: Fraction | None = None) -> Pair:
    """A record moved between two independently sampled groups (strata) by a replacement:
    under D it displaces one of its first group's draws with probability a, under D' one of
    the second group's with probability b: (1−a)K(0) + aK(shift) against
    (1−b)K(0) + bK(−shift_q) (shift_q = shift unless given). The ratio's numerator is
    non-decreasing and its denominator non-increasing in x, so the loss is non-decreasing
    (proofs/deployment_pairs.md#moved)."""
    down = Fraction(shift if shift_q is None else shift_q)
    p = tuple((w, c) for w, c in ((1 - a, Fraction(0)), (a, Fraction(shift))) if w)
    q = tuple((w, c) for w, c in ((1 - b, Fraction(0)), (b, -down)) if w)
    return Pair(p, q, Fraction(noise), kernel, name)


def revealed(branches: list[tuple[Fraction, AnyPair]] | tuple[tuple[Fraction, AnyPair], ...],
             name: str) -> AnyPair:
    """The branches' pairs with the branch label revealed (`Revealed`), or the lone pair
    when there is one branch (nothing to reveal)."""
    return branches[0][1] if len(branches) == 1 else Revealed(tuple(branches), name)


def bernoulli(pi: Fraction) -> tuple[tuple[int, Fraction], ...]:
    return ((0, 1 - pi), (1, pi)) if pi < 1 else ((1, Fraction(1)),)


def dyadic(x: Fraction, bits: int, up: bool) -> Fraction:
    """x rounded up (capped at 1) or down to the grid 2^-bits: a rate with a huge
    denominator made cheap, on the side that keeps a bound a bound."""
    if up:
        return min(Fraction(-(-x.numerator * 2**bits // x.denominator), 2**bits), Fraction(1))
    return Fraction(x.numerator * 2**bits // x.denominator, 2**bits)
