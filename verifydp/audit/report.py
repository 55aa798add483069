"""The audit report: data, JSON and the terminal table (issue 6).

Numbers: e^{ε'} brackets are exact rationals (certified); ε' = log of their ends is shown as a
float for reading. Verdict words: the design *degrades* privacy when the certified lower bound
of the exact worst case exceeds e^ε, *amplifies* it when the certified upper bound is below e^ε,
and does *neither* otherwise (ε' = ε, or brackets straddling it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from verifydp.exact.interval import Bracket
from verifydp.worstcase import AcceptanceWitness

if TYPE_CHECKING:
    from verifydp.audit.bounds import Bound
    from verifydp.audit.flags import Flag
    from verifydp.audit.instance import Instance, Scenario
    from verifydp.audit.spec import AuditSpec
    from verifydp.witness import Witness


def _log(x: Fraction | None) -> float | None:
    """ε' = log of a ratio bound (None = ∞ stays None; display only)."""
    return None if x is None else math.log(x) if x > 0 else -math.inf


def _show(x: float | None, digits: int = 4) -> str:
    return "∞" if x is None or x == math.inf else f"{x:.{digits}g}"


@dataclass(frozen=True)
class ExactPoint:
    """Exact worst-case ratio e^{ε'} ∈ [lower, upper] at t_lo ≤ e^ε ≤ t_hi (None: ∞)."""

    label: float  # ε (display)
    t_lo: Fraction
    t_hi: Fraction
    lower: Fraction | None
    upper: Fraction | None
    scenario: Scenario
    direction: str
    witness: AcceptanceWitness | None = field(compare=False)
    lp_points: int = 0

    def beats(self, other: ExactPoint) -> bool:
        if self.lower is None:
            return other.lower is not None or (self.upper is None)
        return other.lower is not None and self.lower > other.lower

    def eps_prime_lower(self) -> float | None:
        return _log(self.lower)

    def eps_prime_upper(self) -> float | None:
        return _log(self.upper)

    def ratio_text(self) -> str:
        if self.lower is None:
            return "e^ε' = ∞ (the samples of P and P' have disjoint supports)"
        if self.lower == self.upper:
            return f"e^ε' = {_frac(self.lower)} (exact), ε' = {_show(_log(self.lower), 6)}"
        return (f"e^ε' ∈ [{_frac(self.lower)}, {_frac(self.upper)}], ε' ∈ "
                f"[{_show(_log(self.lower), 6)}, {_show(_log(self.upper), 6)}]")

    def to_json(self) -> dict[str, Any]:
        return {
            "eps": self.label, "t": [str(self.t_lo), str(self.t_hi)],
            "ratio": [None if self.lower is None else str(self.lower),
                      None if self.upper is None else str(self.upper)],
            "eps_prime": [self.eps_prime_lower(), self.eps_prime_upper()],
            "pair": self.scenario.label, "direction": self.direction,
            "lp_points": self.lp_points,
        }


@dataclass(frozen=True)
class HockeyPoint:
    """Exact worst-case δ'(ε') ∈ [lower, upper] at t'_lo ≤ e^{ε'} ≤ t'_hi."""

    label: float  # ε' (display)
    tp_lo: Fraction
    tp_hi: Fraction
    lower: Fraction
    upper: Fraction | None
    scenario: Scenario
    direction: str
    witness: AcceptanceWitness | None = field(compare=False)

    def to_json(self) -> dict[str, Any]:
        return {"eps_prime": self.label, "t_prime": [str(self.tp_lo), str(self.tp_hi)],
                "delta_prime": [str(self.lower), None if self.upper is None else str(self.upper)],
                "pair": self.scenario.label}


@dataclass(frozen=True)
class Suggestion:
    why: str
    kind: str
    params: Any
    exact: ExactPoint
    bound: tuple[Bound, Bracket] | None
    note: str

    def to_json(self) -> dict[str, Any]:
        return {
            "why": self.why, "design": {"kind": self.kind,
                                        **{k: str(v) for k, v in dict(self.params).items()}},
            "exact": self.exact.to_json(), "instance": self.note,
            "bound": None if self.bound is None else {
                "claim": self.bound[0].claim, "eps_prime_hi": float(self.bound[1].hi)},
        }


@dataclass(frozen=True)
class Verdicts:
    effect: str  # degrades | amplifies | neither | undetermined (on the instance)
    target_instance: str  # violated | met | undetermined (exact, scaled-down instance)
    target_full: str  # violated | met | undetermined (catalogued theorems, full size)
    best_upper: tuple[Bound, Bracket] | None
    best_lower: tuple[Bound, Bracket] | None

    def to_json(self) -> dict[str, Any]:
        def b(x: tuple[Bound, Bracket] | None) -> Any:
            return None if x is None else {"claim": x[0].claim, "eps_prime": [
                float(x[1].lo), float(x[1].hi)]}

        return {"effect": self.effect, "target_on_instance": self.target_instance,
                "target_full_size": self.target_full, "best_upper_bound": b(self.best_upper),
                "best_lower_bound": b(self.best_lower)}


def _frac(x: Fraction | None) -> str:
    if x is None:
        return "∞"
    if x.denominator <= 10**6 and abs(x.numerator) < 10**12:
        return str(x)
    return f"{float(x):.10g}"


@dataclass(frozen=True)
class Report:
    spec: AuditSpec
    instance: Instance
    bounds: list[Bound]
    points: list[ExactPoint]  # points[0] is at the base ε (pure bases)
    hockey: list[HockeyPoint]
    verdicts: Verdicts
    flags: list[Flag]
    suggestion: Suggestion | None
    witness: Witness | None
    witness_path: str | None
    notes: tuple[str, ...] = ()

    @property
    def main(self) -> ExactPoint | None:
        return self.points[0] if self.points else None

    def headline(self) -> str:
        s, v = self.spec, self.verdicts
        eps = float(s.base.epsilon)
        m = self.main
        if m is not None:
            words = {"degrades": "DEGRADES privacy", "amplifies": "amplifies privacy",
                     "neither": "neither amplifies nor degrades privacy",
                     "undetermined": "effect undetermined"}[v.effect]
            exact = f"exact worst case on the scaled instance: {m.ratio_text()} vs ε = {eps:g}"
        else:
            words = f"(ε, δ) base: effect {v.effect}"
            exact = "exact worst case: see δ'(ε')"
        return f"{s.name}: {words}; {exact}"

    def to_json(self) -> dict[str, Any]:
        eps = self.spec.base.epsilon
        main = self.main
        return {
            "design": self.spec.to_json(),
            "verdict": self.verdicts.to_json(),
            "headline": self.headline(),
            "theorems": [b.to_json(eps) for b in self.bounds],
            "instance": {
                "note": self.instance.note,
                "pairs": [{"label": sc.label, "P": sc.pair.p.to_json(),
                           "P_prime": sc.pair.q.to_json(), "relation": sc.pair.relation.value,
                           "design": sc.design.to_json(),
                           "design_prime": sc.design_prime.to_json() if sc.design_prime
                           else None, "shape": {k: str(v) for k, v in sc.shape.items()}}
                          for sc in self.instance.scenarios],
            },
            "exact": {
                "at_base_eps": main.to_json() if main else None,
                "worst_case_mechanism": (main.witness.to_json() if main and main.witness
                                         and main.lower is not None else None),
                "grid": [p.to_json() for p in self.points],
                "hockey": [h.to_json() for h in self.hockey],
            },
            "red_flags": [f.to_json() for f in self.flags],
            "suggestion": self.suggestion.to_json() if self.suggestion else None,
            "witness": self.witness_path or (self.witness.to_json() if self.witness else None),
            "notes": list(self.notes),
        }

    def render(self, console: Any = None) -> None:
        """The terminal report (rich)."""
        from rich.console import Console
        from rich.table import Table

        con = console or Console(width=150)
        s, v = self.spec, self.verdicts
        colour = {"degrades": "red", "amplifies": "green", "neither": "yellow"}
        con.print(f"[bold]{s.name}[/]  ({s.kind}, N = {s.size}; base {s.base.describe()}; "
                  f"protect {s.protect.value}; target {s.target.describe()})")
        con.print(f"[{colour.get(v.effect, 'white')}]{self.headline()}[/]")
        con.print(f"target on the scaled instance: [bold]{v.target_instance}[/]; at full size "
                  f"by the catalogued theorems: [bold]{v.target_full}[/]")
        t = Table(title="catalogued theorems", show_lines=False)
        for col in ("claim", "bound", "applies", "ε' at base ε", "why / why not"):
            t.add_column(col, overflow="fold")
        eps = s.base.epsilon
        for b in self.bounds:
            br = b.eps_prime(eps)
            val = "—" if br is None else f"{float(br.hi):.6g}" if b.direction == "upper" \
                else f"{float(br.lo):.6g}"
            if b.delta_prime is not None and b.applies:
                val += f" (δ' ≤ {float(b.delta_prime.hi):.3g})"
            why = b.reason + (f" [{b.note}]" if b.note else "")
            t.add_row(b.claim, b.direction, "yes" if b.applies else "[dim]no[/]", val, why)
        con.print(t)
        e = Table(title=f"exact worst case over all base mechanisms ({self.instance.note})")
        for col in ("ε", "e^ε' (certified)", "ε'", "worst pair"):
            e.add_column(col, overflow="fold")
        for p in self.points:
            e.add_row(f"{p.label:.4g}", f"[{_frac(p.lower)}, {_frac(p.upper)}]"
                      if p.lower != p.upper else _frac(p.lower),
                      f"{_show(p.eps_prime_lower())} – {_show(p.eps_prime_upper())}",
                      p.scenario.label)
        for h in self.hockey:
            e.add_row(f"δ'(ε' = {h.label:.4g})", f"[{float(h.lower):.6g}, "
                      f"{'∞' if h.upper is None else f'{float(h.upper):.6g}'}]", "", h.scenario.label)
        con.print(e)
        for f in self.flags:
            con.print(f"[red]red flag[/] [bold]{f.title}[/]: {f.why}")
        if self.suggestion:
            sg = self.suggestion
            con.print(f"[green]suggestion[/]: {sg.why}: {sg.exact.ratio_text()}"
                      + (f"; {sg.bound[0].claim} gives ε' ≤ {float(sg.bound[1].hi):.4g}"
                         if sg.bound else ""))
        if self.witness_path:
            con.print(f"witness of the target's violation: {self.witness_path} "
                      f"(verifydp replay {self.witness_path})")
        for n in self.notes:
            con.print(f"[yellow]note[/]: {n}")
