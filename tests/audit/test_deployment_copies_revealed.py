"""With replacement under substitution: the copy count revealed given that the record is drawn
(`verifydp.accounting.dominating.copies_revealed`, proofs/deployment_pairs.md#copies-revealed).

The pair is checked the way it is used: its forward profile against both orders of every
substitution of small populations (the oracle enumerates the draws from the records), its
composition after T = 2 and 3 releases against the brute-force composition oracle with the
adversary free to change the other records' values per release, and two mutants (the label
hidden; the rate taken as Pr(K = 1)) are beaten by concrete dataset pairs."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from tests.audit.test_deployment import (
    EPS,
    dataset_pairs,
    set_delta,
    srswr,
)
from tests.audit.test_deployment_composition import (
    DESIGNS,
    MECHANISMS,
    _check,
    candidates,
    certified,
)
from verifydp.accounting import Grid, composed, law_pair
from verifydp.accounting.composition import Revealed, Symmetrised
from verifydp.accounting.dominating import copies_revealed, dominating_pairs
from verifydp.accounting.forms import bernoulli

SIGMA = F(1)


def _forward(pair: object, kernel: str) -> dict[F, F]:
    c = composed(pair, 1, Grid(z=40 if kernel == "laplace" else 12))  # type: ignore[arg-type]
    return {e: c.delta_direction(e, 0).hi for e in EPS}


def _beaten(pair: object, m: int, kernel: str, scale: F) -> list[tuple[object, ...]]:
    """Substitutions of N = 3 records (two others on {−1, −1/2, 0, 1}, the record moved on
    the same grid), m draws with replacement, whose δ in either order exceeds the pair's
    forward profile at some ε ∈ {0, 1/2, 2}."""
    his = _forward(pair, kernel)
    bad = []
    for d1, d2 in dataset_pairs(2, False):
        m1, m2 = srswr(d1, m), srswr(d2, m)
        for e in EPS:
            for a, b in ((m1, m2), (m2, m1)):
                if set_delta(a, b, scale, kernel, e) > his[e]:
                    bad.append((d1, d2, e))
    return bad


@pytest.mark.parametrize("m,kernel,scale", [(2, "gauss", F(1)), (3, "gauss", F(1)),
                                            (2, "laplace", F(1, 2))])
def test_forward_profile_covers_both_orders_of_every_substitution(m: int, kernel: str,
                                                                  scale: F) -> None:
    """The lemma at γ ≥ 1: both orders of every step are below the revealed pair's forward
    profile (N = 3, m ∈ {2, 3}: up to three copies; Gaussian and Laplace)."""
    d = copies_revealed(3, m, F(2), scale, kernel)
    assert isinstance(d.pair, Revealed) and len(d.pair.branches) == m
    assert _beaten(d.pair, m, kernel, scale) == []


def test_orientation_symmetrises_each_branch_and_keeps_the_realised_lower_end() -> None:
    """Laplace noise (Gaussian noise takes the profile's pair, test_deployment_copies_partial):
    the revealed pair's branches symmetrised, the realised pair kept for the lower end."""
    (d,) = dominating_pairs("srswr", {"m": 2}, 3, "laplace", "sum", F(1), F(2), SIGMA, False)
    assert isinstance(d.upper_pair, Revealed)
    assert all(isinstance(b, Symmetrised) for _, b in d.upper_pair.branches)
    assert d.lower == law_pair(((0, F(4, 9)), (1, F(4, 9)), (2, F(1, 9))), F(2), SIGMA,
                               "laplace", "displaced", d.lower.name)


def test_mutants_are_beaten() -> None:
    """The count hidden (Σ Pr(K = l) K(2l) against K(0), the add/remove pair) and the rate
    taken as Pr(K = 1) instead of Pr(K ≥ 1): each is beaten by a concrete substitution."""
    law = ((0, F(4, 9)), (1, F(4, 9)), (2, F(1, 9)))  # Binomial(2, 1/3): N = 3, m = 2
    hidden = law_pair(law, F(2), SIGMA, "gauss", "displaced")
    assert _beaten(hidden, 2, "gauss", SIGMA)
    d = copies_revealed(3, 2, F(2), SIGMA, "gauss")
    assert isinstance(d.pair, Revealed)
    low_rate = Revealed(tuple((w, law_pair(bernoulli(F(4, 9)), max(c for _, c in b.p),
                                           SIGMA, "gauss", "displaced"))
                              for w, b in d.pair.branches))  # type: ignore[union-attr]
    assert _beaten(low_rate, 2, "gauss", SIGMA)


def test_label_tail_is_merged_into_one_dominating_branch() -> None:
    """DP-SGD's size: the counts whose label weight is negligible share one branch at the
    largest count's shift, and the truncated law's tail is counted per release as τ/π."""
    d = copies_revealed(60000, 256, F(2), F(11, 10), "gauss")
    assert isinstance(d.pair, Revealed)
    shifts = [max(c for _, c in b.p) for _, b in d.pair.branches]  # type: ignore[union-attr]
    assert shifts == sorted(shifts) and shifts[:4] == [F(2), F(4), F(6), F(8)]
    assert len(shifts) <= 6 and sum(w for w, _ in d.pair.branches) == 1
    assert 0 < d.tail < F(1, 2**80)


_SRSWR = next(x for x in DESIGNS if x.name == "srswr-replace")


@pytest.mark.parametrize("mech,steps", [("gaussian", 3), ("discrete-gaussian", 2)])
def test_composed_against_the_oracle(mech: str, steps: int) -> None:
    """T releases with the other records' values free per release, both orientations: the
    audit's certified upper end is above every oracle lower value and its lower end below
    the largest oracle upper value (tests/audit/test_deployment_composition.py's oracle;
    its default run covers a Laplace count at T = 2)."""
    mechanism = MECHANISMS[mech]
    at_t, at_1 = certified(_SRSWR, mechanism, steps)
    cands = candidates(_SRSWR, mechanism)
    bad = _check(_SRSWR, mechanism, steps, at_t, cands) + _check(_SRSWR, mechanism, 1, at_1,
                                                                   cands)
    assert not bad, "\n".join(bad)
