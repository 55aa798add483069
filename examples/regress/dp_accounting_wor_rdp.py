"""An accountant that matches a fixed-size loader: dp-accounting's RDP accountant for
sampling without replacement under replace-one neighbours.

    verifydp regress dp_accounting_wor_rdp:epsilon --accountant fixed-size
        → sound on the grid tried (RDP is loose: above the certified upper end)

Needs the optional extra `verifydp[peers]` (dp-accounting).
"""

from __future__ import annotations


def epsilon(sigma: float, batch_size: int, n: int, steps: int, delta: float) -> float:
    import dp_accounting
    from dp_accounting.rdp import RdpAccountant

    event = dp_accounting.SampledWithoutReplacementDpEvent(
        n, batch_size, dp_accounting.GaussianDpEvent(sigma))
    acc = RdpAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    acc.compose(event, steps)
    return float(acc.get_epsilon(delta))
