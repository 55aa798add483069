"""Exact privacy loss of finite distributions, against brute force over all events."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

from hypothesis import given
from hypothesis import strategies as st

from verifydp.exact.dist import FiniteDist
from verifydp.exact.loss import hockey_stick, max_divergence, privacy_loss


@st.composite
def dists(draw, support=4):  # type: ignore[no-untyped-def]
    w = draw(st.lists(st.integers(0, 6), min_size=support, max_size=support).filter(any))
    return FiniteDist.from_pairs((i, F(v, sum(w))) for i, v in enumerate(w))


def brute(p, q, tp):  # type: ignore[no-untyped-def]
    ratio, hs = F(0), F(0)
    for k in range(1, 5):
        for ev in itertools.combinations(range(4), k):
            pe = sum(p.prob(x) for x in ev)
            qe = sum(q.prob(x) for x in ev)
            if qe == 0 and pe > 0:
                ratio = None
            elif qe > 0 and ratio is not None:
                ratio = max(ratio, pe / qe)
            hs = max(hs, pe - tp * qe)
    return ratio, hs


@given(dists(), dists(), st.fractions(F(1), F(5)))
def test_matches_brute_force_over_all_events(p, q, tp) -> None:  # type: ignore[no-untyped-def]
    ratio, hs = brute(p, q, tp)
    assert max_divergence(p, q) == ratio
    assert hockey_stick(p, q, tp) == hs


def test_both_directions() -> None:
    p = FiniteDist.from_pairs([(0, F(3, 4)), (1, F(1, 4))])
    q = FiniteDist.from_pairs([(0, F(1, 4)), (1, F(3, 4))])
    loss = privacy_loss(p, q)
    assert loss.forward == loss.backward == loss.worst == 3
    assert privacy_loss(p, FiniteDist.point(0)).forward is None
