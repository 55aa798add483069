"""Counterexample witnesses: what a violation is, serialised so that it replays from scratch.

`base` is the sampling witness (populations, design, an acceptance table that is exactly DP on
every edge) and the file format shared by all kinds; `group`, `pinq` and `instance` are the
other kinds. Dispatch over kinds, replay of files and the index live in `verifydp.casebook`.
"""

from verifydp.witness.base import (
    KindWitness,
    ReplayReport,
    Witness,
    WitnessFormatError,
    atomic_write,
    witness_order,
    witness_size,
    witness_stem,
    write_witness,
)

__all__ = [
    "KindWitness",
    "ReplayReport",
    "Witness",
    "WitnessFormatError",
    "atomic_write",
    "witness_order",
    "witness_size",
    "witness_stem",
    "write_witness",
]
