"""Certified privacy accounting for k-fold composition.

* `compose`: certified δ(ε) and ε(δ) brackets for a per-step dominating pair (Poisson or
  fixed-size subsampled Gaussian, a law of K, Laplace): connect-the-dots upper bounds, a
  test on a dominated pair for lower bounds, ball-arithmetic composition (python-flint);
* `intconv`: exact integer convolution (the discrete Gaussian's lattice in
  `verifydp.semantics.dgauss`);
* `fourier`: the Fourier accountant exactly as printed in MUST Algorithm 1 (floats / mpmath)
  and the MUST per-step pair it takes;
* `atoms`: pairs with discrete outputs (randomized response, the discrete Gaussian) as
  certified atoms for `compose`;
* `dominating`: per-step dominating pairs of a design × mechanism × relation (issue 16),
  with their forms in `forms`, sizes that follow the data in `resized`, Poisson PPS in
  `pps`;
* `threshold`: threshold tests on concrete dataset pairs (certified lower ends without a
  monotone loss); `shuffle`: the max test on shuffled batches;
* `laws`: the law of K (copies of the differing record in a sample) of the MUST schemes.

    from fractions import Fraction
    from verifydp.accounting import compose, poisson_gaussian
    compose(poisson_gaussian(Fraction(1, 100), Fraction(1)), 1000, epsilon=Fraction(1))
"""

from verifydp.accounting.atoms import FinitePair, randomized_response
from verifydp.accounting.ballsbins import Allocation, allocation_gaussian
from verifydp.accounting.composition import (
    Composed,
    Grid,
    Pair,
    Revealed,
    compose,
    composed,
    fixed_size_gaussian,
    invert_delta,
    laplace,
    mixture_gaussian,
    poisson_gaussian,
)
from verifydp.accounting.dominating import Dominating, dominating_pairs, law_pair

__all__ = [
    "Allocation",
    "Composed",
    "Dominating",
    "FinitePair",
    "Grid",
    "Pair",
    "Revealed",
    "allocation_gaussian",
    "compose",
    "composed",
    "dominating_pairs",
    "fixed_size_gaussian",
    "invert_delta",
    "laplace",
    "law_pair",
    "mixture_gaussian",
    "poisson_gaussian",
    "randomized_response",
]
