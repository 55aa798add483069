"""Hypothesis strategies for the objects the engine checks (exported for users' own tests).

Every strategy draws small objects first and shrinks towards fewer records, smaller sizes and
simpler rationals, so a failing example found by a search is reported in its minimal form.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from verifydp.designs import SRSWOR, SRSWR, MustOW, MustWO, MustWW, Poisson
from verifydp.designs.base import Design
from verifydp.epsilon import EpsSpec
from verifydp.population import Population, RecordType

__all__ = [
    "eps_specs",
    "group_profiles",
    "populations",
    "rates",
    "simple_designs",
    "size_laws",
    "t_values",
]


def t_values(max_t: int = 20, max_denominator: int = 20) -> st.SearchStrategy[Fraction]:
    """t = e^ε > 1 as an exact rational (shrinks towards 2)."""
    return st.fractions(Fraction(1), max_t, max_denominator=max_denominator).filter(
        lambda t: t > 1).map(Fraction)


def eps_specs(max_t: int = 20) -> st.SearchStrategy[EpsSpec]:
    return t_values(max_t).map(EpsSpec.of_t)


def rates(max_denominator: int = 20) -> st.SearchStrategy[Fraction]:
    """Sampling rates r ∈ (0, 1]."""
    return st.fractions(0, 1, max_denominator=max_denominator).filter(lambda r: r > 0).map(
        Fraction)


def size_laws(n: int) -> st.SearchStrategy[dict[int, Fraction]]:
    """A law of the sample size on {0, …, n}: integer weights, normalised (shrinks towards a
    point mass at 0)."""
    return st.lists(st.integers(0, 20), min_size=n + 1, max_size=n + 1).filter(any).map(
        lambda w: {k: Fraction(x, sum(w)) for k, x in enumerate(w) if x})


def populations(max_types: int = 4, max_count: int = 6, strata: int = 0
                ) -> st.SearchStrategy[Population]:
    """Populations of record types v0, v1, … with multiplicities (optionally stratified)."""
    def build(counts: list[int], labels: list[int]) -> Population:
        out = []
        for i, c in enumerate(counts):
            if c:
                s = f"s{labels[i]}" if strata else None
                out.append((RecordType(f"v{i}", s), c))
        return Population.of(out)

    counts = st.lists(st.integers(0, max_count), min_size=1, max_size=max_types)
    return counts.flatmap(lambda c: st.lists(
        st.integers(0, max(strata - 1, 0)), min_size=len(c), max_size=len(c)).map(
            lambda lab: build(c, lab)))


def simple_designs(n: int) -> st.SearchStrategy[Design]:
    """One-stage and MUST designs applicable to a population of size n."""
    m = st.integers(0, n)
    return st.one_of(
        m.map(SRSWOR), m.map(SRSWR), rates().map(Poisson),
        st.tuples(st.integers(1, max(n, 1)), st.integers(0, 4)).map(lambda bm: MustOW(*bm)),
        st.tuples(st.integers(0, 4), st.integers(0, 4)).filter(lambda bm: bm[1] <= bm[0]).map(
            lambda bm: MustWO(*bm)),
        st.tuples(st.integers(1, 4), st.integers(0, 4)).map(lambda bm: MustWW(*bm)),
    )


def group_profiles(length: int) -> st.SearchStrategy[tuple[Fraction, ...]]:
    """Non-decreasing δ_1 ≤ … ≤ δ_length in [0, 1] (a group privacy profile at one ε)."""
    return st.lists(st.fractions(0, 1, max_denominator=100), min_size=length,
                    max_size=length).map(lambda xs: tuple(sorted(Fraction(x) for x in xs)))
