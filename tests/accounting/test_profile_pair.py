"""`atoms.ProfilePair`: the symmetric pair whose profile at γ ≥ 1 is a given convex
piecewise-linear function (issue 30, proofs/deployment_pairs.md#copies-partial).

Its atoms are checked against the function they must realise, exactly (rational masses, the
hockey-stick sums of both orders at breakpoints and between them), the constructor against
functions no pair has, and its composition by the certified accountant against the T = 2
and 3 divergences enumerated over the atoms in mpmath (the upper end, which the audit
composes, to 0.1 %; its lower end comes from the realised pair, not this one)."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import mpmath
import pytest

from verifydp.accounting import Grid, composed
from verifydp.accounting.atoms import ProfilePair, profile_atoms

PAIR = ProfilePair((F(1), F(2), F(4)), (F(3, 10), F(1, 10), F(1, 40)))


def _atoms(pair: ProfilePair) -> list[tuple[F, F]]:
    """(P, Q) masses of the finite-loss atoms, exactly, from the class docstring's recipe
    written out again here: the loss 0 mass, q_i at γ_i and the mirror images."""
    s = pair.descents
    out = [(1 - pair.values[0] - 2 * s[0],) * 2]
    for i, g in enumerate(pair.gammas[1:], start=1):
        q = s[i - 1] - s[i]
        out += [(g * q, q), (q, g * q)]
    return out


def _piecewise(pair: ProfilePair, gamma: F) -> F:
    g, v = pair.gammas, pair.values
    if gamma >= g[-1]:
        return v[-1]
    i = max(k for k in range(len(g)) if g[k] <= gamma)
    return v[i] + (v[i + 1] - v[i]) * (gamma - g[i]) / (g[i + 1] - g[i])


@pytest.mark.parametrize("gamma", [F(1), F(3, 2), F(2), F(3), F(4), F(10)])
def test_atoms_realise_the_profile_in_both_orders(gamma: F) -> None:
    at = _atoms(PAIR)
    inf = PAIR.values[-1]
    assert sum(p for p, _ in at) + inf == 1 and sum(q for _, q in at) + inf == 1
    fwd = sum(max(p - gamma * q, F(0)) for p, q in at) + inf
    rev = sum(max(q - gamma * p, F(0)) for p, q in at) + inf
    assert fwd == rev == _piecewise(PAIR, gamma)
    # the certified atoms hold the same masses
    cert = profile_atoms(PAIR)
    got = sorted((float(p.mid()), float(q.mid())) for p, q in zip(cert.p, cert.q, strict=True))
    want = sorted((float(p), float(q)) for p, q in at if p or q)
    assert [x for pq in got for x in pq] == pytest.approx([x for pq in want for x in pq])


@pytest.mark.parametrize("gammas,values", [
    ((F(1), F(2), F(4)), (F(3, 10), F(1, 4), F(0))),        # concave: descents grow
    ((F(1), F(2)), (F(1, 10), F(2, 10))),                    # increasing
    ((F(2), F(3)), (F(1, 10), F(0))),                        # does not start at γ = 1
    ((F(1), F(3, 2)), (F(1, 2), F(0))),                      # 1 − H(1) − 2·descent < 0
])
def test_constructor_refuses_functions_no_pair_has(gammas: tuple[F, ...],
                                                   values: tuple[F, ...]) -> None:
    with pytest.raises(ValueError):
        ProfilePair(gammas, values)


def _exact_delta(pair: ProfilePair, steps: int, eps: F) -> mpmath.mpf:
    """δ(ε) of the T-fold pair by enumeration: sums over atom tuples of (P − e^εQ)_+, any
    tuple holding the +∞ atom counted with its whole P-mass."""
    at = _atoms(pair)
    inf = mpmath.mpf(pair.values[-1].numerator) / pair.values[-1].denominator
    e = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
    total = mpmath.mpf(0)
    for combo in itertools.product(at, repeat=steps):
        p = mpmath.fprod(mpmath.mpf(a.numerator) / a.denominator for a, _ in combo)
        q = mpmath.fprod(mpmath.mpf(b.numerator) / b.denominator for _, b in combo)
        total += max(p - e * q, 0)
    return total + 1 - (1 - inf) ** steps


@pytest.mark.parametrize("steps", [2, 3])
def test_composition_brackets_the_enumerated_divergence(steps: int) -> None:
    c = composed(PAIR, steps, Grid(F(1, 2000)))
    for eps in (F(1, 2), F(1), F(2)):
        exact = _exact_delta(PAIR, steps, eps)
        b = c.delta(eps)
        assert float(b.lo) <= exact * (1 + 1e-12) and exact <= float(b.hi) * (1 + 1e-12)
        assert float(b.hi) <= exact * (1 + 1e-3)  # the upper end, which the audit composes
