"""An exact model of a PINQ-style query system (Ebadi, Antignac, Sands; paper key `ebadi`):
plans over small datasets, PINQ's budget accounting, the exact privacy loss of a plan on two
neighbouring datasets, true stabilities, samplers and their partition versions."""

from verifydp.pinq.loss import exact_loss, loss_multiple
from verifydp.pinq.plan import Node, Plan, PlanBuilder, PlanError, charge, neighbours
from verifydp.pinq.stability import exhaustive_stability, z3_stability_bound

__all__ = [
    "Node",
    "Plan",
    "PlanBuilder",
    "PlanError",
    "charge",
    "exact_loss",
    "exhaustive_stability",
    "loss_multiple",
    "neighbours",
    "z3_stability_bound",
]
