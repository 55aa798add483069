"""An accountant as many DP-SGD codebases write it: dp-accounting's PLD accountant for
Poisson-subsampled Gaussian noise with rate q = batch_size / n.

    verifydp regress dp_accounting_poisson:epsilon --accountant poisson
        → sound (the certified composition contains its value)
    verifydp regress dp_accounting_poisson:epsilon --accountant fixed-size
        → UNSOUND: a loader drawing fixed-size batches without replacement (substitution
          neighbours) has a larger ε than the Poisson accountant reports

Needs the optional extra `verifydp[peers]` (dp-accounting).
"""

from __future__ import annotations


def epsilon(sigma: float, batch_size: int, n: int, steps: int, delta: float) -> float:
    import dp_accounting
    from dp_accounting.pld import PLDAccountant

    event = dp_accounting.PoissonSampledDpEvent(
        batch_size / n, dp_accounting.GaussianDpEvent(sigma))
    acc = PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(event, steps)
    return float(acc.get_epsilon(delta))
