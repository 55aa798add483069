"""Implementations of printed amplification formulas, written the way real code names things
(docs/regress.md).

    # SRS without replacement (Bun et al. Theorem 2.2), other argument names:
    verifydp regress amplification:srs_epsilon --claim bun/thm2.2 \
        --map eps=epsilon,m=sample_size,n=population_size
    # the same formula on numpy arrays:
    verifydp regress amplification:srs_epsilon_np --claim bun/thm2.2 \
        --vectorised --map eps=epsilon,m=sample_size,n=population_size
    # a looser bound (e^{2ε} for e^ε): disagrees with the paper, passes --sound-only
    verifydp regress amplification:srs_loose --claim bun/thm2.2 --sound-only
    # Bernoulli (Poisson) sampling, pure DP (Ebadi et al. §4.5)
    verifydp regress amplification:bernoulli --claim ebadi/bernoulli
"""

from __future__ import annotations

import math

import numpy as np


def srs_epsilon(epsilon: float, sample_size: int, population_size: int) -> float:
    return math.log1p(sample_size / population_size * math.expm1(epsilon))


def srs_epsilon_np(epsilon: np.ndarray, sample_size: np.ndarray,
                   population_size: np.ndarray) -> np.ndarray:
    return np.log1p(sample_size / population_size * np.expm1(epsilon))


def srs_loose(eps: float, m: int, n: int) -> float:
    return math.log1p(m / n * math.expm1(2 * eps))


def bernoulli(eps: float, b: float) -> float:
    return math.log1p(b * math.expm1(eps))
