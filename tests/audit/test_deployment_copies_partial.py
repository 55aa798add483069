"""With replacement under substitution, Gaussian noise: the copy count revealed in a fraction ρ
of the releases (`verifydp.accounting.partial`, proofs/deployment_pairs.md#copies-partial).

The certifier is checked against an independent float evaluation of the two profiles (it
refuses ρ = 0, which the floats show below the bound g at some γ, and accepts ρ = 1/200 at
DP-SGD's size), and the audit that uses it is checked the way it is used: N = 100, m = 2
(small enough for the oracle, large enough that a ρ ≤ 1/5 certifies), after T = 1 and 3 releases
against the composition oracle of tests/audit/test_deployment_composition.py over concrete
substitutions (the other records at one value or split between two, the record moved
between grid values, in any order per release)."""

from __future__ import annotations

from fractions import Fraction as F
from math import comb

import numpy as np
from scipy.stats import norm

from tests.audit.test_deployment_composition import (
    MECHANISMS,
    Candidate,
    Design,
    Shape,
    _check,
    certified,
)
from verifydp.accounting import dominating_pairs
from verifydp.accounting.laws import truncated_law
from verifydp.accounting.partial import certify_partial

_N, _M, _SIGMA, _D = 60000, 256, F(11, 10), F(2)


def _dpsgd() -> tuple[F, tuple[F, ...], tuple[F, ...]]:
    law = truncated_law("wr", _N, None, _M)
    drawn = [(k, w) for k, w in law.weights if k >= 1]
    kept = sum(w for _, w in drawn)
    total = sum(w for _, w in law.weights)
    return (kept / total, tuple(w / kept for _, w in drawn),
            tuple(k * _D / _SIGMA for k, _ in drawn))


def _float_profiles(pi: float, ws: np.ndarray, mus: np.ndarray, rho: float, kappa: float,
                    gammas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """g and h by scipy, from scratch: the half-line of the mixture by bisection."""
    def mixture(g: float) -> float:
        lo, hi = -80.0, 80.0
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if np.sum(ws * np.exp(mus * mid - mus ** 2 / 2)) < g else (lo,
                                                                                          mid)
        return float(np.sum(ws * norm.sf(hi - mus)) - g * norm.sf(hi))

    def revealed(g: float) -> float:
        t = np.log(g) / mus + mus / 2
        return float(np.sum(ws * (norm.sf(t - mus) - g * norm.sf(t))))

    gs, hs = [], []
    for gam in gammas:
        gp = 1 + (gam - 1) / pi
        beta = gam / gp
        gs.append(pi * ((1 - beta) * mixture(gp) + beta * revealed(gp)))
        q = pi * (1 + kappa)
        gpp = 1 + (gam - 1) / q
        hs.append(q * ((1 - rho) * mixture(gpp) + rho * revealed(gpp)))
    return np.array(gs), np.array(hs)


def test_certifier_refuses_what_floats_refute_and_accepts_the_rest() -> None:
    """DP-SGD's size: with ρ = 0 (the count always hidden) h falls below g near γ ≈ 235 by
    the independent float evaluation, and the certifier refuses it; with ρ = 1/200 it
    certifies, and the floats agree that h ≥ g on a grid of γ."""
    pi, ws, mus = _dpsgd()
    fw, fm = np.array([float(w) for w in ws]), np.array([float(m) for m in mus])
    gammas = np.exp(np.linspace(0.0, 12.0, 241))
    g, h0 = _float_profiles(float(pi), fw, fm, 0.0, 0.005, gammas)
    assert np.any(h0 < g * (1 - 1e-6))
    assert certify_partial(pi, ws, mus, F(0), F(1, 200)) is None
    cert = certify_partial(pi, ws, mus, F(1, 200), F(1, 200))
    assert cert is not None and cert.tail < F(1, 10**24)
    _, h = _float_profiles(float(pi), fw, fm, 0.005, 0.005, gammas)
    assert np.all(h >= g * (1 - 1e-9))


_SMALL = Design("srswr", {"m": 2}, {"size": 100}, Shape("plain", (None,)), "replace")


def _sums(m: int, n_others: int, split: tuple[int, int], values: tuple[int, int], x: int
          ) -> list[tuple[F, F]]:
    """The sum's law: K ~ Bin(m, 1/N) copies of the record at x, the other m − K draws from
    n_others records of which split[0] hold values[0] and split[1] values[1]."""
    n = n_others + 1
    out: dict[F, F] = {}
    p_first = F(split[0], n_others)
    for k in range(m + 1):
        pk = comb(m, k) * F(1, n) ** k * F(n - 1, n) ** (m - k)
        for j in range(m - k + 1):
            pj = comb(m - k, j) * p_first ** j * (1 - p_first) ** (m - k - j)
            c = F(k * x + j * values[0] + (m - k - j) * values[1])
            out[c] = out.get(c, F(0)) + pk * pj
    return sorted((w, c) for c, w in out.items() if w)


def _candidates() -> list[Candidate]:
    """Concrete substitutions at N = 100, m = 2, values in units of C/5: the others all at
    one value or split evenly between −C and +C; the record moved between grid values."""
    cands = []
    others = 99
    configs = [((others, 0), (c, c), f"others at {c}/5") for c in (-5, 0, 5)]
    configs.append(((50, 49), (-5, 5), "others split −C / +C"))
    for split, values, where in configs:
        for x, x2 in ((-5, 5), (-5, 0), (0, 5), (-2, 2)):
            a = _sums(2, others, split, values, x)
            b = _sums(2, others, split, values, x2)
            cands.append(Candidate(("srswr", where), a, b, f"{where}, record {x} → {x2}"))
    return cands


def test_audit_uses_the_partial_pair_and_meets_the_oracle() -> None:
    """The audit at N = 100, m = 2, Gaussian σ = C (the partial pair certifies there):
    after 3 releases (ε = 0.2 … 2) and after one, the certified upper end is above every
    oracle lower value over sequences of the concrete substitutions, and the lower end below
    the largest oracle upper value."""
    mech = MECHANISMS["gaussian"]
    (d,) = dominating_pairs("srswr", {"m": 2}, 100, "gaussian", "sum", F(1), F(2), F(1),
                            False)
    assert "shown in a fraction" in d.why
    at_t, at_1 = certified(_SMALL, mech, 3)
    cands = _candidates()
    bad = _check(_SMALL, mech, 3, at_t, cands) + _check(_SMALL, mech, 1, at_1, cands)
    assert not bad, "\n".join(bad)
