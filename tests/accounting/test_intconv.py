"""Exact integer convolution (`accounting.intconv`, behind the discrete Gaussian's certified
composition) against the schoolbook product."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from verifydp.accounting.intconv import convolve


def _naive(a: list[int], b: list[int]) -> list[int]:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


@given(st.lists(st.integers(0, 2**70), min_size=1, max_size=12),
       st.lists(st.integers(0, 2**70), min_size=1, max_size=12))
def test_convolve_is_exact(a: list[int], b: list[int]) -> None:
    assert convolve(a, b) == _naive(a, b)


def test_convolve_long_vectors_exact() -> None:
    rng = random.Random(1)
    a = [rng.getrandbits(64) for _ in range(300)]
    b = [rng.getrandbits(64) for _ in range(200)]
    assert convolve(a, b) == _naive(a, b)


