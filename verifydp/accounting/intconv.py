"""Exact convolution of non-negative integer vectors.

Kronecker substitution: each vector becomes one huge decimal integer (one fixed-width slot
per entry), the two integers are multiplied by Python's `decimal` module (libmpdec switches
to a number-theoretic transform for large operands, so this is fast *and* exact: the context
has the maximal precision and the Inexact flag is checked), and the product's slots are the
convolution.  No floating point is involved anywhere.
"""

from __future__ import annotations

import decimal
from collections.abc import Sequence

_CTX = decimal.Context(prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)


def _pack(v: Sequence[int], width: int) -> decimal.Decimal:
    return decimal.Decimal("".join(f"{x:0{width}d}" for x in reversed(v)) or "0")


def convolve(a: Sequence[int], b: Sequence[int]) -> list[int]:
    """The exact convolution c[i] = Σ_j a[j] b[i−j] of two non-empty vectors of ints ≥ 0."""
    if not a or not b:
        raise ValueError("empty vector")
    if min(a) < 0 or min(b) < 0:
        raise ValueError("entries must be non-negative")
    bound = max(a) * max(b) * min(len(a), len(b))
    width = len(str(bound)) + 1  # every output slot is < 10^width, so slots never carry
    _CTX.clear_flags()
    prod = _CTX.multiply(_pack(a, width), _pack(b, width))
    if _CTX.flags[decimal.Inexact] or _CTX.flags[decimal.Rounded]:
        raise ArithmeticError("decimal product was rounded")  # cannot happen at MAX_PREC
    n = len(a) + len(b) - 1
    s = str(prod).rjust(n * width, "0")
    if len(s) != n * width:
        raise ArithmeticError("slot overflow in Kronecker substitution")
    return [int(s[(n - 1 - i) * width:(n - i) * width]) for i in range(n)]
