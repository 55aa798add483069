"""Calls into peer libraries (optional extra `verifydp[peers]`) and their certified judgement
(issue 8; used by `bench/peers.py` and tests/test_peers_*.py).  Every import is lazy: a missing
peer raises ImportError only when asked for.

Settings, all with add/remove neighbours unless stated:
* `gaussian_*`: the ε at δ of k-fold Poisson(q)-subsampled Gaussian(σ, sensitivity 1), judged
  against `truth.gaussian_delta_lower` (certified lower bound of the true δ; exact for k = 1);
* `generic_*`: a library's amplification of an *arbitrary* ε-DP mechanism, judged against the
  exact worst case over every ε-DP base mechanism (the LP engine, `truth.design_worst_ratio`).
"""

from __future__ import annotations

import importlib.util
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from types import ModuleType

# the autodp witness and its pinned formula live in the casebook, which derives the claimed
# bound from them on replay (issue 28); re-exported here, where the peers are
from verifydp.casebook import AUTODP_WR_CLAIM, autodp_wr_witness  # noqa: F401
from verifydp.regress.truth import gaussian_delta_lower, gaussian_eps_lower

# ---------------------------------------------------------------- DP-SGD accountants


def dp_accounting_rdp(sigma: float, q: float, k: int, delta: float) -> float:
    import dp_accounting
    from dp_accounting.rdp import RdpAccountant

    event = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))
    acc = RdpAccountant()
    acc.compose(event, k)
    return float(acc.get_epsilon(delta))


def dp_accounting_pld(sigma: float, q: float, k: int, delta: float) -> float:
    import dp_accounting
    from dp_accounting.pld import PLDAccountant

    event = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))
    acc = PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(event, k)
    return float(acc.get_epsilon(delta))


def opacus_rdp_module() -> ModuleType:
    """Opacus's RDP analysis (`opacus/accountants/analysis/rdp.py`, numpy + scipy only), loaded
    from its file: importing the `opacus` package would import torch (a multi-GB dependency)."""
    spec = importlib.util.find_spec("opacus")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("opacus is not installed")
    path = Path(next(iter(spec.submodule_search_locations))) / "accountants" / "analysis" / "rdp.py"
    name = "_verifydp_opacus_rdp"
    if name not in sys.modules:
        mspec = importlib.util.spec_from_file_location(name, path)
        if mspec is None or mspec.loader is None:
            raise ImportError(f"cannot load {path}")
        mod = importlib.util.module_from_spec(mspec)
        mspec.loader.exec_module(mod)
        sys.modules[name] = mod
    return sys.modules[name]


OPACUS_ORDERS = [1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64))  # opacus's default


def opacus_rdp(sigma: float, q: float, k: int, delta: float) -> float:
    rdp = opacus_rdp_module()
    r = rdp.compute_rdp(q=q, noise_multiplier=sigma, steps=k, orders=OPACUS_ORDERS)
    eps, _ = rdp.get_privacy_spent(orders=OPACUS_ORDERS, rdp=r, delta=delta)
    return float(eps)


def prv_upper(sigma: float, q: float, k: int, delta: float) -> float:
    """prv-accountant's certified-by-construction upper end of ε (its (low, est, up) triple)."""
    from prv_accountant import PRVAccountant
    from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

    acc = PRVAccountant([PoissonSubsampledGaussianMechanism(q, sigma)], eps_error=0.01,
                        delta_error=delta / 1000, max_self_compositions=[k])
    _, _, up = acc.compute_epsilon(delta=delta, num_self_compositions=[k])
    return float(up)


def autodp_rdp(sigma: float, q: float, k: int, delta: float) -> float:
    from autodp.mechanism_zoo import GaussianMechanism
    from autodp.transformer_zoo import AmplificationBySampling, Composition

    mech = AmplificationBySampling(PoissonSampling=True)(GaussianMechanism(sigma=sigma), q)
    if k > 1:
        mech = Composition()([mech], [k])
    return float(mech.get_approxDP(delta))


GAUSSIAN_PEERS: dict[str, Callable[[float, float, int, float], float]] = {
    "dp-accounting RDP": dp_accounting_rdp,
    "dp-accounting PLD": dp_accounting_pld,
    "opacus RDP (analysis.rdp)": opacus_rdp,
    "prv-accountant (upper)": prv_upper,
    "autodp RDP": autodp_rdp,
}

GAUSSIAN_SETTINGS = ((1.0, 0.1), (2.0, 0.01), (0.8, 0.5))
COMPOSITIONS = (1, 4, 16)  # perfect squares (see `truth.gaussian_delta_lower`)
DELTA = 1e-5
# A peer's ε whose true δ exceeds the target by less than this (relative) is a float root-finding
# rounding (seen: autodp at 6e-15), reported as exact rather than unsound.
ROUNDING = Fraction(1, 10**9)


@dataclass(frozen=True)
class GaussianJudgement:
    peer: str
    sigma: float
    q: float
    k: int
    eps_peer: float
    eps_lower: Fraction  # certified: the true ε(δ) is at least this
    unsound: bool  # certified: the true δ at the peer's ε exceeds the target δ (beyond ROUNDING)

    @property
    def ratio(self) -> float:
        return self.eps_peer / float(self.eps_lower) if self.eps_lower else math.inf


def judge_gaussian(peer: str, sigma: float, q: float, k: int,
                   delta: float = DELTA) -> GaussianJudgement:
    eps = GAUSSIAN_PEERS[peer](sigma, q, k, delta)
    fs, fq, fd = Fraction(sigma), Fraction(q), Fraction(delta)
    unsound = gaussian_delta_lower(fs, fq, k, Fraction(eps)) > fd * (1 + ROUNDING)
    return GaussianJudgement(peer, sigma, q, k, eps, gaussian_eps_lower(fs, fq, k, fd), unsound)


# ---------------------------------------------------------------- generic amplification


def autodp_subsample_epsdelta(eps: float, delta: float, prob: float) -> tuple[float, float]:
    """autodp.privacy_calibrator.subsample_epsdelta: its docstring says the result "applies to
    both subsampling with replacement and Poisson subsampling"."""
    import autodp.rdp_acct  # noqa: F401 — first: autodp's modules import each other circularly
    from autodp.privacy_calibrator import subsample_epsdelta

    e, d = subsample_epsdelta(eps, delta, prob)
    return float(e), float(d)


def opendp_population_amplification(eps_scale: float, m: int, n: int) -> tuple[float, float]:
    """OpenDP's make_population_amplification on a Laplace mean over sized data (m records,
    symmetric distance, so one replacement is d_in = 2): (base ε, amplified ε) at d_in = 2."""
    import opendp.prelude as dp

    dp.enable_features("contrib", "honest-but-curious")
    space = dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0), nan=False), size=m), \
        dp.symmetric_distance()
    meas = space >> dp.t.then_mean() >> dp.m.then_laplace(scale=eps_scale)
    amp = dp.c.make_population_amplification(meas, population_size=n)
    return float(meas.map(2)), float(amp.map(2))


def generic_srs_truth(design: str, n: int, m: int, t: Fraction) -> Fraction:
    """Certified lower bound of the worst-case e^{ε'} over every e^ε = t replacement-DP base
    mechanism of SRSWOR(m) or SRSWR(m) on a replacement pair of size n (the LP's primal value,
    exact in rationals; it is the exact worst case whenever the dual certificate meets it)."""
    from verifydp.claims.bun.amplification import replace_pair
    from verifydp.designs import SRSWOR, SRSWR
    from verifydp.population import Relation
    from verifydp.worstcase import MechanismClass, worst_case_ratio

    pair = replace_pair(n)
    u = pair.universe
    d = SRSWOR(m) if design == "wor" else SRSWR(m)
    wc = worst_case_ratio(d.sample_law(pair.p, u), d.sample_law(pair.q, u),
                          MechanismClass.pure(Relation.REPLACE, t))
    assert wc.worst.lower is not None
    return wc.worst.lower


def generic_poisson_truth(q: Fraction, t: Fraction) -> Fraction:
    """Exact worst-case e^{ε'} of Poisson(q) over every add/remove ε-DP base mechanism
    (add pair of size 1 and 2; the value does not depend on the size)."""
    from verifydp.claims.bun.amplification import add_pair
    from verifydp.designs import Poisson
    from verifydp.population import Relation
    from verifydp.worstcase import MechanismClass, worst_case_ratio

    best = Fraction(1)
    for n in (1, 2):
        pair = add_pair(n)
        u = pair.universe
        wc = worst_case_ratio(Poisson(q).sample_law(pair.p, u), Poisson(q).sample_law(pair.q, u),
                              MechanismClass.pure(Relation.ADD_REMOVE, t))
        assert wc.worst.lower is not None
        best = max(best, wc.worst.lower)
    return best
