"""MUST designs (Zhao & Liu): sample laws vs the oracle, the law of K, eta, Corollary 6."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from fractions import Fraction as F
from itertools import product
from math import comb

import pytest

from tests.oracles.naive_designs import naive_sample_law
from verifydp.designs import (
    SRSWOR,
    SRSWR,
    Design,
    DesignError,
    MustOW,
    MustWO,
    MustWW,
    eta,
    eta_bracket,
    k_law,
    k_law_poisson,
)
from verifydp.exact.dist import FiniteDist
from verifydp.population import Population, RecordType

A, B, C, X = (RecordType(v) for v in "abcx")
ABSENT = RecordType("z")
MUSTS = (MustOW, MustWO, MustWW)


def populations(types: Sequence[RecordType], max_n: int) -> Iterator[Population]:
    for counts in product(range(max_n + 1), repeat=len(types)):
        if sum(counts) <= max_n:
            yield Population.of(zip(types, counts, strict=True))


def must_designs(n: int, max_b: int, max_m: int) -> Iterator[Design]:
    for b, m in product(range(max_b + 1), range(max_m + 1)):
        if b <= n and (b or not m):
            yield MustOW(b, m)
        if m <= b and (n or not b):
            yield MustWO(b, m)
        if (b or not m) and (n or not b):
            yield MustWW(b, m)


def grid() -> Iterator[tuple[str, int, int | None, int]]:
    """(scheme, n, b, m) for every valid small case."""
    for n, b, m in product(range(1, 7), range(0, 5), range(0, 5)):
        if b == 0:
            yield "wr", n, None, m
            if m <= n:
                yield "wor", n, None, m
        if b <= n and (b or not m):
            yield "must-ow", n, b, m
        if m <= b:
            yield "must-wo", n, b, m
        if b or not m:
            yield "must-ww", n, b, m


def x_marginal(scheme: str, n: int, b: int | None, m: int, naive: bool = False) -> FiniteDist:
    """Law of the copies of the one record x in {a: n-1, x: 1}, from a sample law."""
    design: Design
    if scheme == "wor":
        design = SRSWOR(m)
    elif scheme == "wr":
        design = SRSWR(m)
    else:
        design = {"must-ow": MustOW, "must-wo": MustWO, "must-ww": MustWW}[scheme](b, m)
    pop, universe = Population.of({A: n - 1, X: 1}), (A, X)
    law = naive_sample_law(design, pop, universe) if naive else design.sample_law(pop, universe)
    return law.map(lambda v: v[1])


# --- sample laws against the brute-force oracle ---


def test_oracle_two_types_n_le_5() -> None:
    for pop in populations((A, B), 5):
        universe = (A, B, ABSENT)
        for design in must_designs(pop.size, 3, 3):
            fast = design.sample_law(pop, universe)
            assert fast == naive_sample_law(design, pop, universe), (design.describe(), pop)
            assert all(v[2] == 0 and sum(v) == design.m for v in fast.support())  # type: ignore[attr-defined]


def test_oracle_three_types_n_le_4() -> None:
    for pop in populations((A, B, C), 4):
        universe = (A, B, C)
        for design in must_designs(pop.size, 2, 2):
            assert design.sample_law(pop, universe) == naive_sample_law(design, pop, universe)


def test_final_sample_is_a_multiset() -> None:
    pop = Population.of({A: 1, B: 1})
    for design in (MustOW(2, 3), MustWO(3, 3), MustWW(2, 3)):
        law = design.sample_law(pop, (A, B))
        assert law.prob((3, 0)) > 0  # a count above the type's multiplicity 1
    law = MustOW(1, 3).sample_law(pop, (A, B))
    assert dict(law.probs) == {(3, 0): F(1, 2), (0, 3): F(1, 2)}


# --- Corollary 6: MUST.WO(n, b, m) and WR(n, m) generate the same samples ---


def test_corollary6_must_wo_equals_srswr() -> None:
    for pop in populations((A, B, C), 5):
        universe = (A, B, C)
        if pop.size == 0:
            continue
        for b in range(5):
            for m in range(b + 1):
                assert MustWO(b, m).sample_law(pop, universe) == SRSWR(m).sample_law(
                    pop, universe
                ), (b, m, pop)


def test_corollary6_eta_matches_paper_sum() -> None:
    """Table 2's eta for MUST.WO equals the WR closed form 1 - (1 - 1/n)^m."""
    for n, b in product(range(1, 7), range(1, 7)):
        p = F(1, n)
        for m in range(b + 1):
            paper = sum(
                comb(b, j) * p**j * (1 - p) ** (b - j) * (1 - F(comb(b - j, m), comb(b, m)))
                for j in range(1, b + 1)
            )
            assert paper == eta("must-wo", n, b, m) == eta("wr", n, None, m)
            assert k_law("must-wo", n, b, m) == k_law("wr", n, None, m)


# --- the law of K ---


def test_k_law_matches_design_marginals() -> None:
    for scheme, n, b, m in grid():
        assert k_law(scheme, n, b, m) == x_marginal(scheme, n, b, m), (scheme, n, b, m)


def test_k_law_matches_oracle_marginals() -> None:
    for scheme, n, b, m in grid():
        if n <= 6 and (b or 0) <= 3 and m <= 3:
            assert k_law(scheme, n, b, m) == x_marginal(scheme, n, b, m, naive=True)


def test_expected_k_is_m_over_n() -> None:
    for scheme, n, b, m in grid():
        assert k_law(scheme, n, b, m).expectation(lambda k: k) == F(m, n), (scheme, n, b, m)
    for q in (F(0), F(1, 3), F(1)):
        assert k_law_poisson(5, q).expectation(lambda k: k) == q


def test_k_law_closed_forms() -> None:
    assert dict(k_law("wor", 10, None, 3).probs) == {0: F(7, 10), 1: F(3, 10)}
    assert k_law("must-ow", 4, 2, 1).prob(1) == F(2, 4) * F(1, 2)
    assert dict(k_law_poisson(3, "1/4").probs) == {0: F(3, 4), 1: F(1, 4)}
    # MUST.WW concentrates K more than WR: larger Pr(K = 0), same mean
    assert k_law("must-ww", 5, 2, 3).prob(0) > k_law("wr", 5, None, 3).prob(0)


# --- eta = Pr(K >= 1) ---


def test_eta_matches_k_law() -> None:
    for scheme, n, b, m in grid():
        assert eta(scheme, n, b, m) == 1 - k_law(scheme, n, b, m).prob(0), (scheme, n, b, m)


def test_eta_closed_forms() -> None:
    assert eta("wor", 100, None, 20) == F(1, 5)
    assert eta("wr", 10, None, 2) == 1 - F(9, 10) ** 2
    assert eta("must-ow", 10, 4, 3) == F(4, 10) * (1 - F(3, 4) ** 3)
    n, b, m = 7, 5, 4
    ww = sum(
        comb(b, j) * F(1, n) ** j * F(n - 1, n) ** (b - j) * (1 - (1 - F(j, b)) ** m)
        for j in range(b + 1)
    )
    assert eta("must-ww", n, b, m) == ww


@pytest.mark.parametrize("bits", [8, 64])
def test_eta_bracket_is_rigorous(bits: int) -> None:
    cases = [(s, n, b, m) for s, n, b, m in grid() if n in (2, 6)]
    cases += [("must-ww", 1000, 200, 50), ("must-ww", 50, 40, 30), ("must-ow", 1000, 200, 50)]
    for scheme, n, b, m in cases:
        lo, hi = eta_bracket(scheme, n, b, m, bits=bits)
        x = eta(scheme, n, b, m)
        assert lo <= x <= hi and hi - lo <= F(1, 2**bits), (scheme, n, b, m)
        assert (lo * 2 ** (bits + 2)).denominator == 1  # dyadic ends
        assert (hi * 2 ** (bits + 2)).denominator == 1


def test_eta_bracket_at_benchmark_size() -> None:
    """n = 10^6, b = 5 * 10^4, m = 10^4: well under a second per scheme."""
    n, b, m = 10**6, 5 * 10**4, 10**4
    ww = eta_bracket("must-ww", n, b, m)
    ow = eta_bracket("must-ow", n, b, m)
    wr = eta_bracket("wr", n, None, m)
    assert ww[1] - ww[0] <= F(1, 2**256)
    assert eta_bracket("must-wo", n, b, m) == wr
    assert ww[1] < ow[0] and ow[1] < wr[0] and wr[1] < F(m, n)  # WW < OW < WR < WOR


# --- serialisation and errors ---


@pytest.mark.parametrize("design", [MustOW(3, 5), MustWO(4, 2), MustWW(2, 7), MustWO(0, 0)])
def test_json_round_trip(design: Design) -> None:
    back = Design.from_json(json.loads(json.dumps(design.to_json())))
    assert back == design and type(back) is type(design)
    assert hash(back) == hash(design)
    assert back.to_json() == design.to_json() == {"kind": design.kind, "b": design.b, "m": design.m}


def test_kinds_registered() -> None:
    assert {"must-ow", "must-wo", "must-ww"} <= set(Design.registry)


def test_errors() -> None:
    pop = Population.of({A: 2})
    with pytest.raises(DesignError, match="MUST.WO: stage-2 size m = 3 exceeds stage-1 size b = 2"):
        MustWO(2, 3)
    with pytest.raises(DesignError, match="MUST.OW: stage-1 size b = 3 exceeds population size 2"):
        MustOW(3, 1).sample_law(pop, (A,))
    with pytest.raises(DesignError, match="exceeds population size 2"):
        naive_sample_law(MustOW(3, 1), pop, (A,))
    with pytest.raises(DesignError, match="empty stage-1 sample"):
        MustWW(0, 1)
    with pytest.raises(DesignError, match="empty population"):
        MustWW(1, 1).sample_law(Population.of({}), (A,))
    with pytest.raises(DesignError, match="empty population"):
        naive_sample_law(MustWO(1, 1), Population.of({}), (A,))
    with pytest.raises(DesignError, match="negative"):
        MustWW(-1, 0)
    with pytest.raises(DesignError, match="integer"):
        MustOW(2.0, 1)  # type: ignore[arg-type]
    with pytest.raises(DesignError, match="unknown scheme"):
        k_law("poisson", 5, None, 1)
    with pytest.raises(DesignError, match="needs a stage-1 size b"):
        eta("must-ww", 5, None, 1)
    with pytest.raises(DesignError, match="m = 6 exceeds population size 5"):
        k_law("wor", 5, None, 6)
    with pytest.raises(DesignError, match="exact"):
        k_law_poisson(5, 0.5)  # type: ignore[arg-type]
    with pytest.raises(DesignError, match="refuses"):
        naive_sample_law(MustWW(9, 9), Population.of({A: 9}), (A,))
