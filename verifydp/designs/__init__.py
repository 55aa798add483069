"""Sampling designs: exact, symmetry-reduced laws of the sample as count vectors.

The brute-force oracle used by the tests lives in `tests/oracles/naive_designs.py`.
"""

from verifydp.designs.allocation import LinearSizeRule, ProportionalWOR, Rounding, round_allocation
from verifydp.designs.base import Design, DesignError
from verifydp.designs.cluster import ClusterSRS, TwoStageCluster
from verifydp.designs.pps import ClusterPPS, PoissonPPS, SuccessivePPS
from verifydp.designs.simple import SRSWOR, SRSWR, Poisson, RandomSizeWOR
from verifydp.designs.stratified import StratifiedFixed, StratifiedProportional
from verifydp.designs.systematic import SystematicFixed, SystematicRandomOrder

__all__ = [
    "Design",
    "DesignError",
    "LinearSizeRule",
    "Poisson",
    "ProportionalWOR",
    "RandomSizeWOR",
    "Rounding",
    "SRSWOR",
    "SRSWR",
    "StratifiedFixed",
    "StratifiedProportional",
    "round_allocation",
]

__all__ += [  # cluster, PPS and systematic designs (Bun et al. §5, §6)
    "ClusterPPS",
    "ClusterSRS",
    "PoissonPPS",
    "SuccessivePPS",
    "SystematicFixed",
    "SystematicRandomOrder",
    "TwoStageCluster",
]
from verifydp.designs.neyman import StratifiedNeyman, neyman_allocation  # noqa: E402, I001
__all__ += ["StratifiedNeyman", "neyman_allocation"]
from verifydp.designs.must import (  # noqa: E402, I001
    MustOW, MustWO, MustWW, eta, eta_bracket, k_law, k_law_poisson,
)
__all__ += ["MustOW", "MustWO", "MustWW", "eta", "eta_bracket", "k_law", "k_law_poisson"]

from verifydp.designs.pinq_samplers import Reservoir, WithReplacement  # noqa: E402, I001

__all__ += ["Reservoir", "WithReplacement"]  # Ebadi et al. §4 samplers
