"""The audit report: data, JSON and the terminal table (issues 6, 14 and 17).

Numbers: e^{ε'} brackets are exact rationals (certified); ε' is their logarithm, bracketed
rigorously and printed rounded outward. In `--json` every certified number has one shape,
`{"lo": "exact or decimal string", "hi": ..., "lo_float": ..., "hi_float": ...}` (decimal
strings are rounded outward, so the bracket they print still encloses the number).

Verdict words, per ε of the grid (docs/foundations.md#verdicts): the design *degrades*
privacy when the certified lower bound of the exact worst case exceeds e^ε, *amplifies* it
when the certified upper bound is below e^ε, does *neither* when the whole bracket lies within
10⁻⁹ (relative) of e^ε, and the effect is *undetermined* when the bracket straddles e^ε — the
report then says why and how wide the bracket is. A catalogued theorem's bound that lies below
the certified lower bound on the instance (or a lower bound above the certified upper bound)
is a *contradiction*: a refutation of that application, reported with its numbers and never
counted as "met".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from verifydp.exact.interval import Bracket
from verifydp.exact.special import log_bracket
from verifydp.worstcase import AcceptanceWitness

if TYPE_CHECKING:
    from verifydp.audit.bounds import Bound
    from verifydp.audit.deployment import Deployment
    from verifydp.audit.flags import Flag
    from verifydp.audit.instance import Instance, Scenario
    from verifydp.audit.spec import AuditSpec
    from verifydp.population import Population
    from verifydp.witness import Witness

NEITHER_TOL = Fraction(1, 10**9)  # |ε' − ε| below this (relative, on e^ε') reads as "neither"
DIGITS = 12  # significant digits of the decimal strings in --json
EFFECT_WORDS = {"degrades": "degrades", "amplifies": "amplifies",
                "neither": "neither amplifies nor degrades",
                "undetermined": "undetermined"}


def exact_text(x: Fraction) -> str:
    """A rational as the user would write it: 1/4 → "0.25", 1/3 → "1/3", 2 → "2"."""
    if x.denominator == 1:
        return str(x.numerator)
    d = x.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d == 1:  # a terminating decimal: print it exactly
        return format(Decimal(x.numerator) / Decimal(x.denominator), "f")
    return str(x)


def _decimal(x: Fraction, up: bool) -> str:
    ctx = Context(prec=DIGITS, rounding=ROUND_CEILING if up else ROUND_FLOOR)
    return str(ctx.divide(Decimal(x.numerator), Decimal(x.denominator)))


def _num(x: Fraction | None, up: bool) -> str | None:
    if x is None:
        return None if not up else "inf"
    if x.denominator <= 10**6 and abs(x.numerator) < 10**12:
        return str(x)
    return _decimal(x, up)


def bracket_json(lo: Fraction | None, hi: Fraction | None) -> dict[str, Any]:
    """The one JSON shape of a certified number: exact strings when short, otherwise decimal
    strings rounded outward; floats for plotting. `hi = None` is +∞."""
    return {"lo": _num(lo, False) if lo is not None else "-inf", "hi": _num(hi, True),
            "lo_float": -math.inf if lo is None else float(lo),
            "hi_float": math.inf if hi is None else float(hi)}


def log_json(lo: Fraction | None, hi: Fraction | None) -> dict[str, Any]:
    """ε' = log e^{ε'} for a certified bracket of e^{ε'} (rigorous log, outward decimals)."""
    return bracket_json(None if lo is None or lo <= 0 else log_bracket(lo).lo,
                        None if hi is None else log_bracket(hi).hi)


def bound_json(b: Bound, eps: Fraction) -> dict[str, Any]:
    """A catalogued theorem in --json: the verdict on its hypotheses and its bracket at ε."""
    br = b.eps_prime(eps)
    out: dict[str, Any] = {
        "claim": b.claim, "direction": b.direction, "applies": b.applies, "reason": b.reason,
        "eps_prime": None if br is None else bracket_json(br.lo, br.hi),
        "hypotheses": [c.to_json() for c in b.checks],
    }
    if b.params:
        out["params"] = {k: str(v) for k, v in b.params.items()}
    if b.delta_prime is not None:
        out["delta_prime"] = bracket_json(b.delta_prime.lo, b.delta_prime.hi)
    if b.note:
        out["note"] = b.note
    return out


def _log(x: Fraction | None) -> float | None:
    """ε' = log of a ratio bound (None = ∞ stays None; display only)."""
    return None if x is None else math.log(x) if x > 0 else -math.inf


def _show(x: float | None, digits: int = 4) -> str:
    return "∞" if x is None or x == math.inf else f"{x:.{digits}g}"


def population_text(pop: Population) -> str:
    """"39 × a, 1 × x (stratum s)" — a population in words, not as raw dicts."""
    parts = []
    for rt, c in pop.entries:
        where = ", ".join(f"{k} {v}" for k, v in (("stratum", rt.stratum),
                                                   ("cluster", rt.cluster)) if v is not None)
        parts.append(f"{c} × {rt.value}" + (f" ({where})" if where else ""))
    return ", ".join(parts) or "empty"


def effect_of(lower: Fraction | None, upper: Fraction | None, t_lo: Fraction,
              t_hi: Fraction) -> str:
    """The effect on the instance at one ε from certified brackets only (module docstring)."""
    if lower is None or lower > t_hi:
        return "degrades"
    if upper is not None and upper < t_lo:
        return "amplifies"
    if upper is not None and lower >= t_lo * (1 - NEITHER_TOL) and \
            upper <= t_hi * (1 + NEITHER_TOL):
        return "neither"
    return "undetermined"


@dataclass(frozen=True)
class ExactPoint:
    """Exact worst-case ratio e^{ε'} ∈ [lower, upper] at t_lo ≤ e^ε ≤ t_hi (None: ∞).

    `eps` is the ε the user asked for, exactly (grid labels print it, not log t)."""

    label: float  # ε (display)
    t_lo: Fraction
    t_hi: Fraction
    lower: Fraction | None
    upper: Fraction | None
    scenario: Scenario
    direction: str
    witness: AcceptanceWitness | None = field(compare=False)
    lp_points: int = 0
    eps: Fraction | None = None

    def beats(self, other: ExactPoint) -> bool:
        if self.lower is None:
            return other.lower is not None or (self.upper is None)
        return other.lower is not None and self.lower > other.lower

    @property
    def eps_text(self) -> str:
        return exact_text(self.eps) if self.eps is not None else f"{self.label:.4g}"

    @property
    def effect(self) -> str:
        return effect_of(self.lower, self.upper, self.t_lo, self.t_hi)

    @property
    def precise(self) -> bool:
        """Whether the bracket of ε' is narrow enough to read as a value: at most
        max(1/100, ε/10) wide (an infinite or undetermined bracket is not)."""
        if self.lower is None or self.upper is None:
            return self.lower is None  # ε' = ∞ is certified exactly
        eps = self.eps if self.eps is not None else Fraction(self.label)
        lo = log_bracket(self.lower).lo if self.lower > 0 else None
        hi = log_bracket(self.upper).hi
        return lo is not None and hi - lo <= max(Fraction(1, 100), eps / 10)

    def why_inconclusive(self) -> str:
        """Why the bracket decides nothing at this ε, or is too wide to give ε' (empty when
        it is conclusive). The certificates are exact; their width comes from the float LP
        solution they are built from (verifydp.worstcase.certify)."""
        ends = f"[{_show(self.eps_prime_lower())}, {_show(self.eps_prime_upper())}]"
        if self.effect == "undetermined":
            return (f"at ε = {self.eps_text} the certified bracket ε' ∈ {ends} contains ε: "
                    "the exact certificates built from the float LP solution are too loose "
                    "to decide, so the effect is inconclusive there")
        if not self.precise:
            return (f"at ε = {self.eps_text} the certified bracket ε' ∈ {ends} is too wide to "
                    f"give a value (wider than max(0.01, ε/10)): the effect "
                    f"({self.effect}) is certified, the value of ε' is inconclusive there")
        return ""

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
            "eps": self.eps_text, "e_eps": bracket_json(self.t_lo, self.t_hi),
            "ratio": bracket_json(self.lower, self.upper),
            "eps_prime": log_json(self.lower, self.upper),
            "effect": self.effect, "precise": self.precise,
            "inconclusive": self.why_inconclusive() or None, "pair": self.scenario.label, "direction": self.direction,
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
    eps: Fraction | None = None  # ε' exactly, when it is the user's number (the target)

    @property
    def eps_text(self) -> str:
        return exact_text(self.eps) if self.eps is not None else f"{self.label:.4g}"

    def to_json(self) -> dict[str, Any]:
        return {"eps_prime": self.eps_text, "e_eps_prime": bracket_json(self.tp_lo, self.tp_hi),
                "delta_prime": bracket_json(self.lower, self.upper),
                "pair": self.scenario.label}


@dataclass(frozen=True)
class Contradiction:
    """A catalogued theorem applied to the instance's own parameters contradicts the certified
    worst case there: a refutation of that application (issue 14 item 3)."""

    claim: str
    direction: str  # of the theorem's bound
    at: str  # where: "ε = 1" or "δ'(ε' = 0.7)"
    theorem: Bracket  # the theorem's bound (ε' or δ'), rigorous
    exact: tuple[Fraction | None, Fraction | None]  # certified bracket on the instance (ε' or δ')
    scenario: str
    quantity: str = "eps_prime"  # or "delta_prime"

    def text(self) -> str:
        q = "ε'" if self.quantity == "eps_prime" else "δ'"
        lo, hi = self.exact
        if self.direction == "upper":
            got = f"≥ {float(lo):.6g}" if lo is not None else "= ∞"
            return (f"CONTRADICTION: {self.claim} applied at {self.at} gives {q} ≤ "
                    f"{float(self.theorem.hi):.6g}, but the certified worst case "
                    f"there ({self.scenario}) has {q} {got}: this application is refuted; "
                    f"`verifydp check {self.claim}` shows what the engine found about the "
                    "theorem")
        return (f"CONTRADICTION: {self.claim} gives {q} ≥ {float(self.theorem.lo):.6g} at "
                f"{self.at}, but the certified worst case ({self.scenario}) has {q} ≤ "
                f"{float(hi):.6g}: this application is refuted")  # type: ignore[arg-type]

    def to_json(self) -> dict[str, Any]:
        return {"claim": self.claim, "direction": self.direction, "at": self.at,
                "quantity": self.quantity,
                "theorem": bracket_json(self.theorem.lo, self.theorem.hi),
                "exact": bracket_json(*self.exact), "pair": self.scenario, "text": self.text()}


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
                "claim": self.bound[0].claim,
                "eps_prime": bracket_json(self.bound[1].lo, self.bound[1].hi)},
        }


@dataclass(frozen=True)
class Verdicts:
    effect: str  # degrades | amplifies | neither | undetermined (on the instance, base ε)
    target_instance: str  # violated | met | undetermined (exact, scaled-down instance)
    target_full: str  # violated | met | undetermined | contradicted (theorems, full size)
    best_upper: tuple[Bound, Bracket] | None
    best_lower: tuple[Bound, Bracket] | None
    why: str = ""  # why the effect or the target is undetermined (empty when decided)

    def to_json(self) -> dict[str, Any]:
        def b(x: tuple[Bound, Bracket] | None) -> Any:
            return None if x is None else {"claim": x[0].claim,
                                           "eps_prime": bracket_json(x[1].lo, x[1].hi)}

        out = {"effect": self.effect, "target_on_instance": self.target_instance,
               "target_full_size": self.target_full, "best_upper_bound": b(self.best_upper),
               "best_lower_bound": b(self.best_lower)}
        if self.why:
            out["why_undetermined"] = self.why
        return out


def _frac(x: Fraction | None) -> str:
    if x is None:
        return "∞"
    if x.denominator <= 10**6 and abs(x.numerator) < 10**12:
        return str(x)
    return f"{float(x):.10g}"


def _range(run: list[ExactPoint], first: bool, last: bool) -> str:
    a, b = run[0].eps_text, run[-1].eps_text
    if len(run) == 1 and not (first and last):
        return f"at ε = {a}"
    if first and last:
        return f"at every ε of the grid ({a} to {b})" if len(run) > 1 else f"at ε = {a}"
    if first:
        return f"for ε ≤ {b}"
    if last:
        return f"for ε ≥ {a}"
    return f"for {a} ≤ ε ≤ {b}"


def grid_summary(points: list[ExactPoint]) -> str:
    """"amplifies for ε ≤ 2, degrades at ε = 4": the effect over the whole ε grid, runs of
    the same effect merged (points sorted by ε)."""
    pts = sorted(points, key=lambda p: (p.eps if p.eps is not None else Fraction(p.label)))
    runs: list[list[ExactPoint]] = []
    for p in pts:
        if runs and runs[-1][-1].effect == p.effect:
            runs[-1].append(p)
        else:
            runs.append([p])
    text = ", ".join(f"{EFFECT_WORDS[r[0].effect]} {_range(r, i == 0, i == len(runs) - 1)}"
                     for i, r in enumerate(runs))
    loose = [p.eps_text for p in pts if p.effect != "undetermined" and not p.precise]
    if loose:
        text += f" (the value of ε' is inconclusive at ε = {', '.join(loose)}: bracket too wide)"
    return text


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
    contradictions: tuple[Contradiction, ...] = ()
    # the named mechanism over T releases (design files with [mechanism]/[composition])
    deployment: Deployment | None = None

    @property
    def main(self) -> ExactPoint | None:
        return self.points[0] if self.points else None

    def headline(self) -> str:
        s, v = self.spec, self.verdicts
        m = self.main
        if m is not None:
            where = grid_summary(self.points)
            exact = (f"exact worst case on the scaled instance at ε = {m.eps_text}: "
                     f"{m.ratio_text()}")
            head = f"{s.name}: {where}; {exact}"
        else:
            head = (f"{s.name}: (ε, δ) base, effect at ε = {exact_text(s.base.epsilon)}: "
                    f"{EFFECT_WORDS[v.effect]}; exact worst case: see δ'(ε')")
        if self.contradictions:
            head += f"; {len(self.contradictions)} CONTRADICTION(S) with catalogued theorems"
        return head

    def undetermined(self) -> list[str]:
        """Why each inconclusive grid point (undecided, or too wide to read) is inconclusive."""
        return [w for w in (p.why_inconclusive() for p in self.points) if w]

    def to_json(self) -> dict[str, Any]:
        eps = self.spec.base.epsilon
        main = self.main
        return {
            "design": self.spec.to_json(),
            "verdict": self.verdicts.to_json(),
            "headline": self.headline(),
            "grid_summary": grid_summary(self.points) if self.points else None,
            "inconclusive": self.undetermined(),
            "theorems": [bound_json(b, eps) for b in self.bounds],
            "contradictions": [c.to_json() for c in self.contradictions],
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
            "deployment": self.deployment.to_json() if self.deployment else None,
        }

    def render(self, console: Any = None) -> None:
        """The terminal report (rich)."""
        from rich.console import Console
        from rich.table import Table

        con = console or Console(width=150)
        s, v = self.spec, self.verdicts
        dep = self.deployment
        if dep is not None:  # the deployment's answer first: the report below is per release
            con.print(f"deployment: {dep.headline()}\n(the audit below is of one release; the "
                      "deployment's details follow it)\n", markup=False, highlight=False)
        colour = {"degrades": "red", "amplifies": "green", "neither": "yellow"}
        con.print(f"[bold]{s.name}[/]  ({s.kind}, N = {s.size}; base {s.base.describe()}; "
                  f"protect {s.protect.value}; target {s.target.describe()})")
        if s.reading:
            con.print(f"read as: {s.reading}", markup=False, highlight=False)
        con.print(f"[{colour.get(v.effect, 'white')}]{self.headline()}[/]")
        con.print(f"target on the scaled instance: [bold]{v.target_instance}[/]; at full size "
                  f"by the catalogued theorems: [bold]{v.target_full}[/]")
        for c in self.contradictions:
            con.print(f"[bold red]{c.text()}[/]")
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
        for col in ("ε", "e^ε' (certified)", "ε'", "effect", "worst pair"):
            e.add_column(col, overflow="fold")
        for p in self.points:
            e.add_row(p.eps_text, f"[{_frac(p.lower)}, {_frac(p.upper)}]"
                      if p.lower != p.upper else _frac(p.lower),
                      f"{_show(p.eps_prime_lower())} – {_show(p.eps_prime_upper())}",
                      p.effect, p.scenario.label)
        for h in self.hockey:
            e.add_row(f"δ'(ε' = {h.eps_text})", f"[{float(h.lower):.6g}, "
                      f"{'∞' if h.upper is None else f'{float(h.upper):.6g}'}]", "", "",
                      h.scenario.label)
        con.print(e)
        for why in self.undetermined():
            con.print(f"[yellow]inconclusive[/]: {why}")
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
        if dep is not None:
            con.print("\ndeployment:", markup=False)
            for line in dep.lines():
                con.print(f"  {line}", markup=False, highlight=False)
