"""How an instance states ε: exactly through a rational t = e^ε, or as a rational ε."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from verifydp.exact.interval import Bracket, bracket
from verifydp.exact.special import brackets_for_eps
from verifydp.exact.tfunc import EPS


@dataclass(frozen=True)
class EpsSpec:
    """ε = log t for a rational t (everything stays rational), or a rational ε itself."""

    t: Fraction | None = None
    eps: Fraction | None = None

    def __post_init__(self) -> None:
        if (self.t is None) == (self.eps is None):
            raise ValueError("give exactly one of t = e^ε and ε")
        if self.t is not None and self.t <= 1:
            raise ValueError(f"t = e^ε must exceed 1 (ε > 0), got {self.t}")
        if self.eps is not None and self.eps <= 0:
            raise ValueError(f"ε must be positive, got {self.eps}")

    @staticmethod
    def of_t(t: Fraction | int | str) -> EpsSpec:
        return EpsSpec(t=Fraction(t))

    @staticmethod
    def of_eps(eps: Fraction | int | str) -> EpsSpec:
        return EpsSpec(eps=Fraction(eps))

    def t_bracket(self) -> tuple[Fraction, Fraction]:
        if self.t is not None:
            return self.t, self.t
        assert self.eps is not None
        return brackets_for_eps(self.eps)

    def symbol_value(self) -> sympy.Expr:
        """The value substituted for ε in printed formulas."""
        if self.t is not None:
            return sympy.log(sympy.Rational(self.t.numerator, self.t.denominator))
        assert self.eps is not None
        return sympy.Rational(self.eps.numerator, self.eps.denominator)

    def evaluate(self, expr: sympy.Expr, params: dict[str, Any] | None = None) -> Bracket:
        """Rigorous bracket of a printed expression in ε and named parameters."""
        values = {k: Fraction(v) for k, v in (params or {}).items()}
        subs: dict[Any, Any] = {}
        for sym in expr.free_symbols:  # match by name: assumptions on symbols may differ
            if sym.name == EPS.name:
                subs[sym] = self.symbol_value()
            elif sym.name in values:
                val = values[sym.name]
                subs[sym] = sympy.Rational(val.numerator, val.denominator)
        return bracket(expr.xreplace(subs))

    def __str__(self) -> str:
        return f"t={self.t}" if self.t is not None else f"ε={self.eps}"

    def to_json(self) -> dict[str, str]:
        return {"t": str(self.t)} if self.t is not None else {"eps": str(self.eps)}

    @staticmethod
    def from_json(obj: dict[str, str]) -> EpsSpec:
        if "t" in obj:
            return EpsSpec.of_t(obj["t"])
        return EpsSpec.of_eps(obj["eps"])
