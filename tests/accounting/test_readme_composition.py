"""The README's certified-composition example (section "Certified composition"): the bracket
its comment shows is what `compose` returns, to the digits printed."""

from __future__ import annotations

import re
from fractions import Fraction as F
from pathlib import Path

from verifydp.accounting import compose, poisson_gaussian

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_delta_bracket_is_what_compose_returns() -> None:
    line = next(x for x in README.read_text(encoding="utf-8").splitlines()
                if x.startswith("compose(pair, 1000, epsilon=F(1))"))
    lo, hi = (float(v) for v in re.search(r"\[([\d.e-]+), ([\d.e-]+)\]", line).groups())  # type: ignore[union-attr]
    b = compose(poisson_gaussian(F(1, 100), F(1)), 1000, epsilon=F(1))
    assert f"{float(b.lo):.4e}" == f"{lo:.4e}" and f"{float(b.hi):.4e}" == f"{hi:.4e}"
