"""Posterior-to-posterior semantics (Kifer et al. §7; claim `kifer/bayes`).

Finite setting, exact Fractions: a dataset is a tuple of records, Jessie's first; the
attacker's prior is a dict dataset → probability; a mechanism maps a dataset to a dict
output → probability.  The counterfactual world replaces Jessie's record by a draw from
P_A(R | D⁻) ("psample", Option 3).  Everything here follows the defining formulas of §7.2
literally (actual and counterfactual posteriors computed separately, not their ratio formula).

Gaussian setting (rigorous brackets): Jessie's record is 0 or 1, the rest is known, and the
mechanism releases record + N(0, σ²).  The event {ratio ≥ T} is a half-line in ω (the
likelihood ratio is monotone), so its probabilities are Φ values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from itertools import product

from verifydp.exact import barith as ba
from verifydp.exact.interval import Bracket
from verifydp.semantics.normal import phi, phi_bar

Dataset = tuple[int, ...]
Dist = Mapping[object, Fraction]
Mechanism = Callable[[Dataset], Dist]


def _rest(d: Dataset) -> Dataset:
    return d[1:]


def _cond_record(prior: Mapping[Dataset, Fraction], rest: Dataset) -> dict[int, Fraction]:
    """P_A(R = r | D⁻ = rest)."""
    w = {d[0]: p for d, p in prior.items() if _rest(d) == rest and p}
    tot = sum(w.values(), Fraction(0))
    return {r: p / tot for r, p in w.items()}


def _psample_out(prior: Mapping[Dataset, Fraction], mech: Mechanism, rest: Dataset
                 ) -> dict[object, Fraction]:
    """Output law of M(psample(D)) given D⁻ = rest: mixture over r'' ~ P_A(R | D⁻)."""
    out: dict[object, Fraction] = {}
    for r2, w in _cond_record(prior, rest).items():
        for o, p in mech((r2, *rest)).items():
            out[o] = out.get(o, Fraction(0)) + w * p
    return out


def joint_actual(prior: Mapping[Dataset, Fraction], mech: Mechanism
                 ) -> dict[tuple[int, object], Fraction]:
    """P_A(R = r, M(X) = ω)."""
    j: dict[tuple[int, object], Fraction] = {}
    for d, pd in prior.items():
        for o, p in mech(d).items():
            j[(d[0], o)] = j.get((d[0], o), Fraction(0)) + pd * p
    return j


def joint_counterfactual(prior: Mapping[Dataset, Fraction], mech: Mechanism
                         ) -> dict[tuple[int, object], Fraction]:
    """P_A(R = r, M(psample(X)) = ω)."""
    j: dict[tuple[int, object], Fraction] = {}
    for d, pd in prior.items():
        for o, p in _psample_out(prior, mech, _rest(d)).items():
            j[(d[0], o)] = j.get((d[0], o), Fraction(0)) + pd * p
    return j


def posterior_ratios(prior: Mapping[Dataset, Fraction], mech: Mechanism
                     ) -> dict[tuple[int, object], Fraction]:
    """P_A(r | M(X)=ω) / P_A(r | M(psample(X))=ω) for every (r, ω) with both sides > 0."""
    ja, jc = joint_actual(prior, mech), joint_counterfactual(prior, mech)
    ma: dict[object, Fraction] = {}
    mc: dict[object, Fraction] = {}
    for (_, o), p in ja.items():
        ma[o] = ma.get(o, Fraction(0)) + p
    for (_, o), p in jc.items():
        mc[o] = mc.get(o, Fraction(0)) + p
    out = {}
    for (r, o), p in ja.items():
        c = jc.get((r, o), Fraction(0))
        if p and c:
            out[(r, o)] = (p / ma[o]) / (c / mc[o])
    return out


def prob_ratio_at_least(prior: Mapping[Dataset, Fraction], mech: Mechanism, r: int,
                        t: Fraction, given_r: bool, strict: bool = False) -> Fraction:
    """P(ratio(r, ω) ≥ t) (or > t) for ω from the prior's output law, optionally given R = r.

    An output whose counterfactual posterior of r is 0 while the actual one is positive has
    an infinite ratio and is counted."""
    ja, jc = joint_actual(prior, mech), joint_counterfactual(prior, mech)
    ratios = posterior_ratios(prior, mech)
    pr = sum((p for d, p in prior.items() if d[0] == r), Fraction(0))
    tot = Fraction(0)
    for (rr, o), p in ja.items():
        if given_r and rr != r:
            continue
        q = ratios.get((r, o))
        if q is None:
            bad = ja.get((r, o), Fraction(0)) > 0 and jc.get((r, o), Fraction(0)) == 0
        else:
            bad = q > t if strict else q >= t
        if bad:
            tot += p
    return tot / pr if given_r else tot


# ------------------------------------------------------------ mechanism parameters


def neighbour_pairs(records: Iterable[int], n: int) -> list[tuple[Dataset, Dataset]]:
    """Ordered pairs of datasets of n records differing in exactly one record (bounded)."""
    recs = list(records)
    ds = list(product(recs, repeat=n))
    return [(a, b) for a in ds for b in ds if sum(x != y for x, y in zip(a, b, strict=True)) == 1]


def pure_t(mech: Mechanism, pairs: Iterable[tuple[Dataset, Dataset]]) -> Fraction | None:
    """e^ε of the exact pure-DP ε: max P(M(D1)=ω)/P(M(D2)=ω); None if unbounded."""
    t = Fraction(1)
    for a, b in pairs:
        pa, pb = mech(a), mech(b)
        for o, p in pa.items():
            if p and not pb.get(o):
                return None
            if p:
                t = max(t, p / pb[o])
    return t


def renyi_moment(mech: Mechanism, pairs: Iterable[tuple[Dataset, Dataset]], alpha: int
                 ) -> Fraction | None:
    """e^{(α−1)γ} for the exact (α, γ)-RDP at integer α: max_pairs Σ p^α q^{1−α}."""
    best = Fraction(0)
    for a, b in pairs:
        pa, pb = mech(a), mech(b)
        s = Fraction(0)
        for o, p in pa.items():
            if p and not pb.get(o):
                return None
            if p:
                s += p**alpha / pb[o] ** (alpha - 1)
        best = max(best, s)
    return best


# ------------------------------------------------------------ Gaussian, rest known


def gauss_event_probs(p1: Fraction, sigma: Fraction, r: int, t: Bracket
                      ) -> tuple[Bracket, Bracket]:
    """(P_ω, P_{ω|r}) of {ratio(r, ω) ≥ T} for ω = R + N(0, σ²), R ~ Bern(p1), T ∈ t.

    ratio(1, ω) = φ₁/(p1 φ₁ + (1−p1) φ₀) ≥ T ⟺ φ₀/φ₁ ≤ c := (1/T − p1)/(1 − p1)
    ⟺ ω ≥ w := 1/2 − σ² ln c  (empty when c ≤ 0); symmetrically for r = 0 with ω ≤ w.
    Both probabilities are monotone in T, so a bracket of T gives a bracket of each."""
    pr = p1 if r == 1 else 1 - p1
    outs = []
    for tv in (t.hi, t.lo):  # larger T ⇒ smaller event ⇒ lower end first
        c = (1 / tv - pr) / (1 - pr)
        if c <= 0:
            outs.append((Bracket.point(0), Bracket.point(0)))
            continue
        s2 = sigma * sigma
        if r == 1:
            w = ba.sub(Fraction(1, 2), ba.mul(s2, ba.log(c)))
            tail1, tail0 = phi_bar(ba.div(ba.sub(w, 1), sigma)), phi_bar(ba.div(w, sigma))
        else:
            w = ba.add(Fraction(1, 2), ba.mul(s2, ba.log(c)))
            tail1, tail0 = phi(ba.div(ba.sub(w, 1), sigma)), phi(ba.div(w, sigma))
        marg = ba.add(ba.mul(p1, tail1), ba.mul(1 - p1, tail0))
        outs.append((marg, tail1 if r == 1 else tail0))
    (m_lo, c_lo), (m_hi, c_hi) = outs
    return Bracket(m_lo.lo, m_hi.hi), Bracket(c_lo.lo, c_hi.hi)
